"""Reference range assignor (docs/SPEC.md §7.1, docs/ALGORITHMS.md), rack-aware as in Kafka's client.

Per topic, subscribers in `Member.sort_key` order (static members by instance id, then member id)
get contiguous runs: `n // C` each, the first `n % C` one more. Topics missing from the metadata, or
with no partitions, are skipped.

Rack-aware (KIP-881): followed step by step from Kafka's client `RangeAssignor.assignPartitions`.
A topic "needs" it when `useRackAwareAssignment` holds for it (its subscribers' racks are non-empty,
intersect its partitions' racks, and not every partition has the same rack set). If any topic needs
it: (1) topics with the same subscribers (and racks) and the same partition count are co-partitioned:
partition p of all of them goes to the first remaining subscriber that matches racks on every one and
may still take one of each; (2) a lone topic that needs it gets a range pass restricted to
rack-matching partitions; then (3) a plain range pass fills whatever is left, on every topic.
A member with no rack (or an empty one) matches every partition. Kafka's grouping iterates a
HashMap, but each topic's state is touched only inside its own group, so the order is irrelevant.
"""

from __future__ import annotations

from collections.abc import Callable

from assigncheck.spec.model import Assignment, Member, Problem
from assigncheck.spec.promises import Promises


class _TopicState:
    """Kafka's `TopicAssignmentState`: one topic's subscribers, quotas and unassigned partitions."""

    def __init__(self, topic: str, n: int, subscribers: list[Member], problem: Problem) -> None:
        self.topic = topic
        self.consumers = [m.member_id for m in sorted(subscribers, key=Member.sort_key)]
        self.rack = {m.member_id: m.rack or None for m in subscribers}  # "" counts as no rack
        self.unassigned = list(range(n))  # in index order, like Kafka's LinkedHashSet
        self.assigned = dict.fromkeys(self.consumers, 0)
        self.per_consumer = n // len(self.consumers)
        self.with_extra = n % len(self.consumers)
        consumer_racks = {r for r in self.rack.values() if r is not None}
        if consumer_racks:
            known = (problem.partition_racks or {}).get(topic)
            self.partition_racks = [frozenset(known[i]) if known else frozenset() for i in range(n)]
        else:
            self.partition_racks = []  # Kafka keeps no partition racks when no subscriber has one
        all_partition_racks = frozenset().union(*self.partition_racks)
        self.needs_rack_aware = (
            bool(consumer_racks)
            and not consumer_racks.isdisjoint(all_partition_racks)
            and not all(r == all_partition_racks for r in self.partition_racks)
        )

    def group_key(self) -> tuple[tuple[tuple[str, str | None], ...], int]:
        """Kafka groups by the consumers map (ids and racks), then by the partition racks' size."""
        return tuple((c, self.rack[c]) for c in self.consumers), len(self.partition_racks)

    def racks_match(self, consumer: str, index: int) -> bool:
        rack = self.rack[consumer]
        return rack is None or rack in self.partition_racks[index]

    def max_assignable(self, consumer: str) -> int:
        quota = self.per_consumer + (1 if self.with_extra > 0 else 0)
        return max(0, quota - self.assigned[consumer])

    def on_assigned(self, consumer: str, indices: list[int], out: dict[str, list[tuple[str, int]]]) -> None:
        out[consumer].extend((self.topic, i) for i in indices)
        self.assigned[consumer] += len(indices)
        if self.assigned[consumer] > self.per_consumer:
            self.with_extra -= 1
        taken = set(indices)
        self.unassigned = [i for i in self.unassigned if i not in taken]


def _assign_ranges(
    state: _TopicState, may_assign: Callable[[str, int], bool], out: dict[str, list[tuple[str, int]]]
) -> None:
    for consumer in state.consumers:
        if not state.unassigned:
            break
        limit = state.max_assignable(consumer)
        chosen = [i for i in state.unassigned if may_assign(consumer, i)][:limit]
        if chosen:
            state.on_assigned(consumer, chosen, out)


def _assign_co_partitioned(
    consumers: list[str], n: int, states: list[_TopicState], out: dict[str, list[tuple[str, int]]]
) -> None:
    remaining = list(consumers)
    for p in range(n):
        match = next(
            (c for c in remaining if all(s.racks_match(c, p) and s.max_assignable(c) > 0 for s in states)), None
        )
        if match is None:
            continue
        for s in states:
            s.on_assigned(match, [p], out)
        if not any(s.max_assignable(match) > 0 for s in states):
            remaining.remove(match)
            if not remaining:
                break


def _assign_with_rack_matching(states: list[_TopicState], out: dict[str, list[tuple[str, int]]]) -> None:
    groups: dict[tuple, list[_TopicState]] = {}
    for s in states:
        groups.setdefault(s.group_key(), []).append(s)
    for (consumers, n), group in groups.items():
        if len(group) > 1:
            _assign_co_partitioned([c for c, _ in consumers], n, group, out)
        elif group[0].needs_rack_aware:
            _assign_ranges(group[0], group[0].racks_match, out)


class RangeReference:
    name = "range"
    promises = Promises(balance="per-topic")

    def assign(self, problem: Problem) -> Assignment:
        out: dict[str, list[tuple[str, int]]] = {m.member_id: [] for m in problem.members}
        states = []
        for topic in problem.subscribed_topics():
            n = problem.topics[topic]
            if n > 0:
                states.append(_TopicState(topic, n, list(problem.subscribers(topic)), problem))
        if any(s.needs_rack_aware for s in states):
            _assign_with_rack_matching(states, out)
        for s in states:
            _assign_ranges(s, lambda consumer, index: True, out)
        return Assignment.of(out)


def plain_range(problem: Problem) -> Assignment:
    """The closed form of docs/ALGORITHMS.md (no racks), written independently as a cross-check."""
    out: dict[str, list[tuple[str, int]]] = {m.member_id: [] for m in problem.members}
    for topic in problem.subscribed_topics():
        n = problem.topics[topic]
        subs = sorted(problem.subscribers(topic), key=Member.sort_key)
        q, r = divmod(n, len(subs))
        for i, m in enumerate(subs):
            start = i * q + min(i, r)
            out[m.member_id].extend((topic, p) for p in range(start, start + q + (1 if i < r else 0)))
    return Assignment.of(out)

__all__ = ["RangeReference", "plain_range"]
