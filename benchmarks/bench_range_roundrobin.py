"""Range and round-robin against the spec's references and kafka-python 3.0.12's, same run, same problems.

Goal: <= 50 ms on 2100 consumers x 2100 partitions (1 topic), on 2000 consumers x 1 M
partitions (500 topics x 2000), and on 1000 consumers x 10,000 partitions over 100 topics with 1-20
random topics each (seeded).
"""

from __future__ import annotations

import random
from functools import partial
from typing import Any

from assigncheck.spec.model import Member, Problem
from assigncheck.spec.reference import REFERENCES
from assigncheck.targets import registry

from .bench_constrained import uniform
from .harness import best_time, peak_mib, row


def random_subscriptions(consumers: int, topics: int, partitions: int, seed: int = 3) -> Problem:
    rng = random.Random(seed)
    names = {f"topic{t:03d}": partitions // topics for t in range(topics)}
    pool = sorted(names)
    members = tuple(Member(f"consumer{i:05d}", frozenset(rng.sample(pool, rng.randint(1, 20))))
                    for i in range(consumers))
    return Problem(names, members)


def run(quick: bool) -> list[dict[str, Any]]:
    shapes = {
        "2100x2100 fresh": (uniform(300, 1, 300) if quick else uniform(2100, 1, 2100), True),
        "1000x10000 over 100 topics, 1-20 each": (random_subscriptions(200 if quick else 1000, 100, 10_000), True),
        "2000x1M (500 topics x 2000)": (uniform(200, 50, 2000) if quick else uniform(2000, 500, 2000), False),
    }
    rows = []
    for scenario, (problem, with_peers) in shapes.items():
        for name in ("range", "roundrobin"):
            assignor = registry.get(name)
            s, out = best_time(partial(assignor.assign, problem), repeat=3)
            peak = peak_mib(partial(assignor.assign, problem))
            reference = REFERENCES[name]
            peers = {f"spec.reference.{name}": reference, f"kafka-python:{name}": registry.load_target(
                f"kafka-python:{name}")} if with_peers else {}
            for peer_name, peer in peers.items():
                try:
                    peer_s, expected = best_time(partial(peer.assign, problem), repeat=1)
                except Exception as e:  # kafka-python 3.0.12's round-robin fails on unequal subscriptions
                    rows.append(row(scenario, name, s, peer=peer_name, goal="<=50 ms", ok=s <= 0.050, peak=peak,
                                    note=f"peer raised {type(e).__name__}: {e}"))
                    continue
                if peer is reference and expected != out:
                    raise AssertionError(f"{name} differs from its reference on {scenario}")
                rows.append(row(scenario, name, s, peer=peer_name, peer_seconds=peer_s, goal="<=50 ms",
                                ok=s <= 0.050, peak=peak))
            if not peers:
                rows.append(row(scenario, name, s, goal="<=50 ms", ok=s <= 0.050, peak=peak))
    return rows
