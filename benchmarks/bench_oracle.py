"""spec.oracle (min-cost flow) at the sizes the task names: 1000 members x 10 000 partitions over 100
topics (goal: well under a second) and 2000 x 1 000 000 over 500 topics (goal: seconds).

Equal subscriptions, every partition validly owned by one member (a previous round's output with 10
members fewer, so some churn). Peer: `spec.ownership.valid_owned` on the same problem, the input step
the oracle cannot avoid, so the ratio shows what the flow itself adds.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from assigncheck.spec import oracle
from assigncheck.spec.model import Member, Problem, index_array
from assigncheck.spec.ownership import valid_owned

from .harness import best_time, row


def _problem(members: int, partitions: int, topics: int, seed: int = 1) -> Problem:
    per_topic = partitions // topics
    names = [f"t{i:03d}" for i in range(topics)]
    rng = np.random.default_rng(seed)
    owner = rng.integers(0, members + 10, size=(topics, per_topic))  # 10 previous members have left
    out = []
    for m in range(members):
        owned = {}
        for t, name in enumerate(names):
            mine = np.flatnonzero(owner[t] == m)
            if len(mine):
                owned[name] = index_array(mine)
        out.append(Member(f"m{m:05d}", frozenset(names), owned, 3))
    return Problem({n: per_topic for n in names}, tuple(out))


def _subjects(problem: Problem) -> list[tuple[str, Callable[[], object]]]:
    return [
        ("optimal_sum_squares", lambda: oracle.optimal_sum_squares(problem)),
        ("max_retained(optimal)", lambda: oracle.max_retained(problem, "optimal")),
        ("max_retained(perfect)", lambda: oracle.max_retained(problem, "perfect")),
        ("optimal_assignment", lambda: oracle.optimal_assignment(problem)),
    ]


def run(quick: bool) -> list[dict]:
    sizes = [(100, 1_000, 10, 1.0)] if quick else [(1000, 10_000, 100, 1.0), (2000, 1_000_000, 500, 30.0)]
    rows = []
    for members, partitions, topics, budget in sizes:
        problem = _problem(members, partitions, topics)
        repeat = 1 if partitions > 100_000 else 3
        scenario = f"{members}x{partitions}/{topics}t"
        peer_s, _ = best_time(partial(valid_owned, problem), repeat=repeat)
        for name, fn in _subjects(problem):
            seconds, _ = best_time(fn, repeat=repeat)
            rows.append(row(scenario, name, seconds, peer="valid_owned", peer_seconds=peer_s,
                            goal=f"< {budget:g} s", ok=seconds < budget))
    return rows
