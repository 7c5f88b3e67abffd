"""spec.assignment_check.check_assignment (hard invariants, balance, stickiness, per-topic spread; no oracle) at
1000 members x 10 000 partitions over 100 topics and 2000 x 1 000 000 over 500 topics (the size of
Kafka's testLargeAssignmentAndGroupWithUniformSubscription). Goal: a few seconds at the large size.

The output deals every topic over all members (one partition per member per topic: the most
(member, topic) arrays an output of that size can have); members validly own the previous round's
deal shifted by one. Peer: `spec.ownership.valid_owned` on the same problem, which the stickiness
measures cannot avoid. Each timed call gets a fresh problem/assignment object, so the checker's
per-object caches start cold.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from assigncheck.spec.assignment_check import Report, check_assignment
from assigncheck.spec.model import Assignment, Member, Problem, index_array
from assigncheck.spec.ownership import valid_owned
from assigncheck.spec.promises import Promises

from .harness import best_time, row


def _case(members: int, partitions: int, topics: int) -> tuple[Problem, Assignment]:
    per_topic = partitions // topics
    names = [f"t{i:03d}" for i in range(topics)]
    out: dict[str, dict[str, np.ndarray]] = {f"m{m:05d}": {} for m in range(members)}
    owned: dict[str, dict[str, np.ndarray]] = {f"m{m:05d}": {} for m in range(members)}
    for k, name in enumerate(names):
        owner = (np.arange(per_topic) + k * per_topic) % members  # the deal goes on across topics
        for m in range(members):
            mine = np.flatnonzero(owner == m)
            if len(mine):
                out[f"m{m:05d}"][name] = index_array(mine)
                owned[f"m{(m + 1) % members:05d}"][name] = index_array(mine)
    subs = frozenset(names)
    problem = Problem({n: per_topic for n in names}, tuple(Member(m, subs, owned[m], 3) for m in sorted(owned)))
    return problem, Assignment(out)


def _check_next(fresh: list[tuple[Problem, Assignment]], promises: Promises) -> Report:
    return check_assignment(*fresh.pop(), promises, oracle=False)


def run(quick: bool) -> list[dict]:
    sizes = [(100, 10_000, 10, 1.0)] if quick else [(1000, 10_000, 100, 1.0), (2000, 1_000_000, 500, 30.0)]
    promises = Promises(balance="perfect", per_topic_spread=True)
    rows = []
    for members, partitions, topics, budget in sizes:
        problem, assignment = _case(members, partitions, topics)
        repeat = 1 if partitions > 100_000 else 3
        scenario = f"{members}x{partitions}/{topics}t"
        peer_s, _ = best_time(partial(valid_owned, problem), repeat=repeat)
        fresh = [(problem.replace(), Assignment(assignment.by_member)) for _ in range(repeat)]
        seconds, report = best_time(partial(_check_next, fresh, promises), repeat=repeat)
        rows.append(row(scenario, "check_assignment", seconds, peer="valid_owned", peer_seconds=peer_s,
                        goal=f"< {budget:g} s", ok=seconds < budget and report.ok,
                        note=f"{len(report.violations)} violation(s)"))
    return rows
