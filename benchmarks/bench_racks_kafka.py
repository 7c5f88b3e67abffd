"""Racks (KIP-881) against Kafka's own rack-aware assignors (kafka-clients 3.9.1 through the `java:` target): the
same rack-aware groups, fresh and after one member leaves and one joins (each assignor settling its own previous
output; a cooperative rebalance taken to its last round), and the rack mismatches each side leaves
(`spec.racks.mismatches`).

Groups: 3 brokers on racks a, b, c; replication 1 or 2; 3-9 consumers, each on one of the racks (one in five
without a rack); 1-4 topics of 2-12 partitions. Pairs: `sticky-constrained` vs Kafka's StickyAssignor and
`cooperative-sticky` vs CooperativeStickyAssignor on equal subscriptions, `sticky` vs StickyAssignor on unequal
ones, `range` vs RangeAssignor. Ours promise the fewest mismatches among the assignments as balanced as theirs
must be, so wherever Kafka's output is as balanced (Σ count² no smaller), ours may not mismatch more: `ok`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from assigncheck.spec.balance import sum_squares
from assigncheck.spec.model import Member, Problem
from assigncheck.spec.racks import mismatches, rack_aware
from assigncheck.spec.rounds import next_round, run_rounds
from assigncheck.targets import registry

KAFKA = "java:org.apache.kafka.clients.consumer."
PAIRS = (  # ours, Kafka's class, protocol, subscriptions equal
    ("sticky-constrained", "StickyAssignor", "eager", True),
    ("cooperative-sticky", "CooperativeStickyAssignor", "cooperative", True),
    ("sticky", "StickyAssignor", "eager", False),
    ("range", "RangeAssignor", "eager", False),
)
BROKER_RACKS = ("a", "b", "c")


def rack_group(rng: random.Random, equal: bool, protocol: str) -> Problem:
    """A fresh rack-aware group (drawn again until `spec.racks.rack_aware` holds)."""
    while True:
        topics = {f"t{t}": rng.randint(2, 12) for t in range(rng.randint(1, 4))}
        replication, first, racks = rng.randint(1, 2), 0, {}
        for topic, n in topics.items():
            racks[topic] = tuple(frozenset(BROKER_RACKS[(i + j + first) % 3] for j in range(replication))
                                 for i in range(n))
            first += n
        names = sorted(topics)
        members = tuple(
            Member(f"c{k}", frozenset(names if equal else rng.sample(names, rng.randint(1, len(names)))),
                   rack=None if rng.random() < 0.2 else rng.choice(BROKER_RACKS))
            for k in range(rng.randint(3, 9)))
        problem = Problem(topics, members, protocol=protocol, partition_racks=racks)  # type: ignore[arg-type]
        if rack_aware(problem):
            return problem


def leave_and_join(problem: Problem, rng: random.Random) -> Problem:
    """The first member leaves; a new one joins on a random rack with the subscription of the last."""
    joiner = Member("joiner", problem.members[-1].subscription, rack=rng.choice(BROKER_RACKS))
    return problem.replace(members=problem.members[1:] + (joiner,))


def settled(assignor: Any, problem: Problem) -> tuple[Problem, Any]:
    """The last round's input and output: a cooperative rebalance runs until nothing is withheld."""
    return run_rounds(assignor.assign, problem)[-1]


@dataclass
class Case:
    pair: str
    round: str
    ours: int  # mismatches
    kafka: int
    ours_squares: int
    kafka_squares: int

    @property
    def comparable(self) -> bool:
        """Kafka's output at least as balanced as ours: ours then promises no more mismatches."""
        return self.kafka_squares <= self.ours_squares

    @property
    def ok(self) -> bool:
        return not self.comparable or self.ours <= self.kafka


def compare(groups: int, seed: int = 881) -> list[Case]:
    """Each pair on `groups` seeded rack-aware groups, fresh and after one leave and one join."""
    cases = []
    for ours_name, kafka_class, protocol, equal in PAIRS:
        ours, kafka = registry.get(ours_name), registry.load(KAFKA + kafka_class)
        try:
            rng = random.Random(f"{seed}/{ours_name}")
            for _ in range(groups):
                fresh = rack_group(rng, equal, protocol)
                later = leave_and_join(fresh, rng)
                for name, problem, settle in (("fresh", fresh, False), ("leave+join", later, True)):
                    mine, theirs = problem, problem
                    if settle:  # each side continues from its own previous output
                        mine = leave_and_join(next_round(fresh, ours.assign(fresh)), random.Random(0))
                        theirs = leave_and_join(next_round(fresh, kafka.assign(fresh)), random.Random(0))
                    (mine, a), (theirs, b) = settled(ours, mine), settled(kafka, theirs)
                    cases.append(Case(f"{ours_name} / Kafka {kafka_class}", name, mismatches(mine, a),
                                      mismatches(theirs, b), sum_squares(mine, a), sum_squares(theirs, b)))
        finally:
            kafka.close()
    return cases


def run(quick: bool) -> list[dict[str, Any]]:
    cases = compare(5 if quick else 40)
    rows = []
    for pair in dict.fromkeys(c.pair for c in cases):
        for rnd in ("fresh", "leave+join"):
            mine = [c for c in cases if c.pair == pair and c.round == rnd]
            fewer = sum(c.ours < c.kafka for c in mine)
            more = sum(c.ours > c.kafka for c in mine)
            rows.append({
                "scenario": f"racks, {len(mine)} groups, {rnd}", "subject": pair.split(" / ")[0],
                "ms": None, "peer": pair.split(" / ")[1], "peer_ms": None, "speedup": None, "peak_mib": None,
                "goal": "mismatches <= Kafka's where as balanced", "ok": all(c.ok for c in mine),
                "note": (f"mismatches {sum(c.ours for c in mine)} vs {sum(c.kafka for c in mine)}; fewer on {fewer}, "
                         f"more on {more} (Kafka less balanced on {sum(not c.comparable for c in mine)})"),
                "groups": len(mine), "round": rnd, "ours_mismatches": sum(c.ours for c in mine),
                "kafka_mismatches": sum(c.kafka for c in mine), "fewer": fewer, "more": more,
                "kafka_less_balanced": sum(not c.comparable for c in mine),
            })
    return rows
