"""Kafka's rack test fixtures (AbstractPartitionAssignorTest, clients 3.5+), rebuilt as problems: brokers
with racks, replica i+j of partition i (j < replication factor) on broker (i + j + first index of its
topic) mod brokers, topics numbered in the order given, consumers `consumer<i>` with a rack each."""

from __future__ import annotations

from assigncheck.spec.model import Member, Problem, partitions_of

ALL_RACKS = ("a", "b", "c", "d", "e", "f")


def racks(n: int) -> list[str]:
    return [ALL_RACKS[i % len(ALL_RACKS)] for i in range(n)]


def null_racks(n: int) -> list[None]:
    return [None] * n


def parse_partitions(text: str) -> list[tuple[str, int]]:
    """'t1-0, t2-3' -> [('t1', 0), ('t2', 3)]."""
    out = []
    for item in filter(None, (s.strip() for s in text.split(","))):
        topic, _, index = item.rpartition("-")
        out.append((topic, int(index)))
    return out


def kafka_problem(topics: dict[str, int], replication: int, broker_racks: list[str | None],
                  consumer_racks: list[str | None], consumer_topics: list[list[str]],
                  owned: list[str] | None = None, generation: int = -1, protocol: str = "eager") -> Problem:
    partition_racks = {}
    first = 0
    for topic, n in topics.items():
        per_partition = []
        for i in range(n):
            on = {broker_racks[(i + j + first) % len(broker_racks)] for j in range(replication)}
            per_partition.append(frozenset(r for r in on if r is not None))
        partition_racks[topic] = tuple(per_partition)
        first += n
    members = []
    for i, (rack, subscribed) in enumerate(zip(consumer_racks, consumer_topics)):
        claims = parse_partitions(owned[i]) if owned and i < len(owned) else []
        members.append(Member(f"consumer{i}", frozenset(subscribed), partitions_of(claims), generation, None, rack))
    return Problem(topics, tuple(members), protocol, partition_racks)
