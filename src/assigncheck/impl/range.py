"""Range assignment (docs/SPEC.md §7.1, ALGORITHMS.md "range"), with Kafka's KIP-881 rack-aware variant.

Without racks every subscriber of a topic gets one contiguous run of indices, computed by arithmetic.
The rack-aware variant follows Kafka's `RangeAssignor.assignPartitions` step by step (it is rarely used and
small, so it stays a plain port rather than a clever one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter

import numpy as np

from assigncheck.impl.problem_kind import require_problem
from assigncheck.spec.model import AnyProblem, Assignment, Member, Problem, TopicTable, ranges
from assigncheck.spec.promises import Promises
from assigncheck.spec.small.views import is_small

_INSTANCE_ID, _MEMBER_ID = attrgetter("instance_id"), attrgetter("member_id")


def member_info_order(problem: Problem) -> list[Member]:
    """Members in Kafka's `MemberInfo` order (`Member.sort_key`); without static members that is member id order,
    sorted without a key tuple per member."""
    members = problem.members
    if set(map(_INSTANCE_ID, members)) - {None}:
        return sorted(members, key=Member.sort_key)
    return sorted(members, key=_MEMBER_ID)


def subscriber_positions(problem: Problem) -> tuple[list[Member], dict[str, np.ndarray]]:
    """Members in Kafka's `MemberInfo` order, and each existing topic's subscribers as ascending positions
    in it. Members are grouped by subscription first, so equal subscriptions cost one group, not C."""
    members = member_info_order(problem)
    subs = [m.subscription for m in members]
    if problem.subscriptions_equal():  # the common case: one group, every position
        everyone = np.arange(len(subs), dtype=np.int64)
        return members, {t: everyone for t in sorted(problem.topics) if subs and t in subs[0]}
    groups: dict[frozenset[str], list[int]] = {}
    for i, sub in enumerate(subs):
        groups.setdefault(sub, []).append(i)
    topics = sorted(problem.topics)
    code = {t: k for k, t in enumerate(topics)}
    # One (topic, group) pair per topic a group subscribes to, then every member of the group: one sort of
    # (topic, position) keys instead of a pass over the groups per topic.
    pair_code, pair_group = [], []
    for g, sub in enumerate(groups):
        for t in sub:
            if t in code:
                pair_code.append(code[t])
                pair_group.append(g)
    size = np.array([len(p) for p in groups.values()], dtype=np.int64)
    start = np.cumsum(size) - size
    flat = np.array([i for p in groups.values() for i in p], dtype=np.int64)
    group = np.array(pair_group, dtype=np.int64)
    n = max(len(members), 1)
    key = np.sort(np.repeat(np.array(pair_code, dtype=np.int64), size[group]) * n
                  + flat[ranges(start[group], size[group])])
    bounds = np.searchsorted(key // n, np.arange(len(topics) + 1)).tolist()
    position = key % n
    out = {t: position[bounds[k]:bounds[k + 1]] for k, t in enumerate(topics) if bounds[k + 1] > bounds[k]}
    return members, out


def subscribers_by_topic(problem: Problem) -> dict[str, list[Member]]:
    """Existing topics -> their subscribers in Kafka's `MemberInfo` order (static members first)."""
    out: dict[str, list[Member]] = {}
    for m in sorted(problem.members, key=Member.sort_key):
        for topic in m.subscription:
            if topic in problem.topics:
                out.setdefault(topic, []).append(m)
    return out


class RangeAssignor:
    name = "range"
    promises = Promises(balance="per-topic", exact="range")

    def assign(self, problem: AnyProblem) -> Assignment:
        problem = require_problem(problem, self.name)
        if problem.partition_racks is not None and any(m.rack for m in problem.members):
            by_topic = subscribers_by_topic(problem)
            states = [_TopicState.build(problem, t, by_topic[t]) for t in sorted(by_topic) if problem.topics[t] > 0]
            if any(s.needs_rack_aware for s in states):
                return _rack_aware(problem, states)
        if is_small(problem):
            return _plain_ranges(problem)
        members, positions = subscriber_positions(problem)
        table = TopicTable(t for t in positions if problem.topics[t] > 0)
        members_row, topics_row, index_row = [], [], []
        for code, topic in enumerate(table.names):
            n, subscribers = problem.topics[topic], positions[topic]
            quota, extra = divmod(n, len(subscribers))
            lengths = np.full(len(subscribers), quota, dtype=np.int64)
            lengths[:extra] += 1  # runs are consecutive in subscriber order, so the owner of index i is a repeat
            members_row.append(np.repeat(subscribers, lengths))
            topics_row.append(np.full(n, code, dtype=np.int64))
            index_row.append(np.arange(n, dtype=np.int32))
        ids = [m.member_id for m in members]
        if not members_row:
            return Assignment.from_rows(ids, np.zeros(0), table, np.zeros(0), np.zeros(0))
        return Assignment.from_rows(ids, np.concatenate(members_row), table, np.concatenate(topics_row),
                                    np.concatenate(index_row))


def subscribers_small(problem: Problem) -> tuple[list[Member], TopicTable, list[list[int]]]:
    """`subscriber_positions` in plain Python, for small problems: members in `MemberInfo` order, the existing
    topics with partitions and subscribers, and each one's subscribers as ascending positions."""
    members = sorted(problem.members, key=Member.sort_key)
    subscribers = {t: [i for i, m in enumerate(members) if t in m.subscription]
                   for t, n in problem.topics.items() if n > 0}
    table = TopicTable(t for t, subs in subscribers.items() if subs)
    return members, table, [subscribers[t] for t in table.names]


def _plain_ranges(problem: Problem) -> Assignment:
    """The runs of `RangeAssignor.assign` in plain Python (small problems: numpy's per-call cost dominates)."""
    members, table, subscribers = subscribers_small(problem)
    member_row: list[int] = []
    topic_row: list[int] = []
    index_row: list[int] = []
    for code, subs in enumerate(subscribers):
        n = problem.topics[table.names[code]]
        quota, extra = divmod(n, len(subs))
        for k, pos in enumerate(subs):
            member_row += [pos] * (quota + (k < extra))
        topic_row += [code] * n
        index_row += range(n)
    return Assignment.from_rows([m.member_id for m in members], member_row, table, topic_row, index_row)


# ---- KIP-881 rack-aware range: a port of Kafka's RangeAssignor (clients, 3.5+) --------------------------


@dataclass
class _TopicState:
    """Kafka's `TopicAssignmentState`: per-topic quotas, what is left, and the replica racks."""

    topic: str
    consumers: list[tuple[str, str | None]]  # (member id, rack or None), in MemberInfo order
    partition_racks: list[frozenset[str]]  # empty when no subscriber has a rack (as in Kafka)
    needs_rack_aware: bool
    unassigned: dict[int, None]  # an ordered set of partition indices
    quota: int
    extra: int
    assigned: dict[str, int] = field(default_factory=dict)
    rack_of: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def build(cls, problem: Problem, topic: str, members: list[Member]) -> _TopicState:
        n = problem.topics[topic]
        consumers = [(m.member_id, m.rack or None) for m in members]
        consumer_racks = {rack for _, rack in consumers if rack is not None}
        racks: list[frozenset[str]] = []
        needs = False
        if consumer_racks:
            known = (problem.partition_racks or {}).get(topic)
            racks = list(known) if known is not None else [frozenset()] * n
            all_racks = frozenset().union(*racks)
            # AbstractPartitionAssignor.useRackAwareAssignment
            needs = not consumer_racks.isdisjoint(all_racks) and not all(r == all_racks for r in racks)
        count = len(consumers)
        quota, extra = divmod(n, count) if count else (0, 0)
        return cls(topic, consumers, racks, needs, dict.fromkeys(range(n)), quota, extra,
                   {c: 0 for c, _ in consumers}, dict(consumers))

    def racks_match(self, consumer: str, partition: int) -> bool:
        rack = self.rack_of[consumer]
        return rack is None or (partition < len(self.partition_racks) and rack in self.partition_racks[partition])

    def max_assignable(self, consumer: str) -> int:
        return max(0, self.quota + (1 if self.extra > 0 else 0) - self.assigned[consumer])

    def on_assigned(self, consumer: str, partitions: list[int], out: dict[str, dict[str, list[int]]]) -> None:
        out[consumer].setdefault(self.topic, []).extend(partitions)
        self.assigned[consumer] += len(partitions)
        if self.assigned[consumer] > self.quota:
            self.extra -= 1
        for p in partitions:
            del self.unassigned[p]


def _assign_ranges(state: _TopicState, rack_matching: bool, out: dict[str, dict[str, list[int]]]) -> None:
    for consumer, _ in state.consumers:
        if not state.unassigned:
            break
        limit = state.max_assignable(consumer)
        chosen = [p for p in state.unassigned if not rack_matching or state.racks_match(consumer, p)][:limit]
        if chosen:
            state.on_assigned(consumer, chosen, out)


def _assign_co_partitioned(states: list[_TopicState], n: int, out: dict[str, dict[str, list[int]]]) -> None:
    remaining = [c for c, _ in states[0].consumers]
    for p in range(n):
        match = next((c for c in remaining
                      if all(s.racks_match(c, p) and s.max_assignable(c) > 0 for s in states)), None)
        if match is None:
            continue
        for s in states:
            s.on_assigned(match, [p], out)
        if not any(s.max_assignable(match) > 0 for s in states):
            remaining.remove(match)
            if not remaining:
                break


def _rack_aware(problem: Problem, states: list[_TopicState]) -> Assignment:
    out: dict[str, dict[str, list[int]]] = {m.member_id: {} for m in problem.members}
    # Kafka groups topics by their (ordered) consumer map, then by the size of their partition-rack map.
    groups: dict[tuple, list[_TopicState]] = {}
    for s in states:
        groups.setdefault((tuple(s.consumers), len(s.partition_racks)), []).append(s)
    for (_, n), group in groups.items():
        if len(group) > 1:
            _assign_co_partitioned(group, n, out)
        elif group[0].needs_rack_aware:
            _assign_ranges(group[0], True, out)
    for s in states:
        _assign_ranges(s, False, out)
    return Assignment.of(out)


__all__ = ["RangeAssignor", "member_info_order", "subscriber_positions", "subscribers_by_topic", "subscribers_small"]
