"""The problem model: immutable, compact, and the one vocabulary every part of assigncheck speaks.

Partitions are never objects of their own on the hot path. A topic carries a partition count, and a
set of partitions of several topics (a member's claims, a member's assignment) is a `Partitions`
mapping: topic name -> read-only int32 numpy array of partition indices. An array may hold junk
(out-of-range or negative indices, repeats): claims are as sent, outputs are as returned, and it is
the spec's job, not the container's, to judge them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, TypeAlias

import numpy as np

TopicPartition: TypeAlias = tuple[str, int]
Partitions: TypeAlias = Mapping[str, np.ndarray]
Protocol: TypeAlias = Literal["eager", "cooperative"]

UNKNOWN_GENERATION = -1
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
_EMPTY = np.zeros(0, dtype=np.int32)
_EMPTY.setflags(write=False)


def index_array(values: Iterable[int] | np.ndarray, *, sort: bool = False) -> np.ndarray:
    """A read-only int32 array of partition indices (the storage unit of `Partitions`)."""
    arr = np.array(values if isinstance(values, np.ndarray) else list(values), dtype=np.int32)
    if arr.ndim != 1:
        arr = arr.reshape(-1)
    if sort:
        arr = np.sort(arr, kind="stable")
    arr.setflags(write=False)
    return arr


def partitions_of(
    spec: Partitions | Mapping[str, Iterable[int]] | Iterable[TopicPartition] | None, *, sort: bool = False
) -> Partitions:
    """Build a read-only `Partitions` from {topic: indices} or from (topic, index) pairs.

    Topics with no index are dropped, so two equal sets always compare equal key by key.
    """
    if spec is None:
        return MappingProxyType({})
    if isinstance(spec, Mapping):
        items: dict[str, np.ndarray] = {}
        for topic, indices in spec.items():
            arr = index_array(indices, sort=sort)
            if len(arr):
                items[str(topic)] = arr
        return MappingProxyType(items)
    grouped: dict[str, list[int]] = {}
    for topic, index in spec:
        grouped.setdefault(topic, []).append(index)
    return partitions_of(grouped, sort=sort)


def iter_pairs(parts: Partitions) -> Iterator[TopicPartition]:
    """Every (topic, index) of a `Partitions`, repeats included, in storage order."""
    for topic, arr in parts.items():
        for index in arr.tolist():
            yield topic, index


def count_of(parts: Partitions) -> int:
    return sum(len(arr) for arr in parts.values())


def partitions_equal(a: Partitions, b: Partitions) -> bool:
    """Equality as multisets (order inside a topic does not matter, repeats do)."""
    keys = {t for t, arr in a.items() if len(arr)} | {t for t, arr in b.items() if len(arr)}
    for topic in keys:
        x, y = a.get(topic, _EMPTY), b.get(topic, _EMPTY)
        if len(x) != len(y) or not np.array_equal(np.sort(x), np.sort(y)):
            return False
    return True


def _as_tuple_of_frozensets(racks: Iterable[Iterable[str]]) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(r) for r in racks)


@dataclass(frozen=True, slots=True)
class Member:
    """A group member as it joins: its subscription and its (raw, possibly junk) ownership claims."""

    member_id: str
    subscription: frozenset[str]
    owned: Partitions = field(default_factory=lambda: partitions_of(None))
    generation: int = UNKNOWN_GENERATION
    instance_id: str | None = None  # group.instance.id: a static member
    rack: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.subscription, frozenset):
            object.__setattr__(self, "subscription", frozenset(self.subscription))
        if not isinstance(self.owned, MappingProxyType):
            object.__setattr__(self, "owned", partitions_of(self.owned))

    def sort_key(self) -> tuple[int, str, str]:
        """Kafka's MemberInfo order: static members first (by instance id), then by member id."""
        if self.instance_id is not None:
            return (0, self.instance_id, self.member_id)
        return (1, "", self.member_id)


@dataclass(frozen=True, slots=True)
class TopicOffsets:
    """Per-partition offsets of one topic (int64 arrays; `committed` uses -1 for "no commit")."""

    begin: np.ndarray
    end: np.ndarray
    committed: np.ndarray

    def lag(self, auto_offset_reset: str) -> np.ndarray:
        """Seed 002: end - committed; with no commit, 0 for `latest`, else end - begin. Never negative."""
        no_commit = self.committed < 0
        fallback = np.zeros_like(self.end) if auto_offset_reset == "latest" else self.end - self.begin
        lag = np.where(no_commit, fallback, self.end - self.committed)
        return np.maximum(lag, 0)


@dataclass(frozen=True, slots=True)
class LagInfo:
    offsets: Mapping[str, TopicOffsets]
    auto_offset_reset: str = "latest"

    def lag(self, topic: str) -> np.ndarray:
        return self.offsets[topic].lag(self.auto_offset_reset)


@dataclass(frozen=True, slots=True)
class Problem:
    """One rebalance of a consumer group: topic metadata and the members' join requests."""

    topics: Mapping[str, int]
    members: tuple[Member, ...]
    protocol: Protocol = "eager"
    # Per topic, per partition: the racks of its replicas (KIP-881). None = no rack information.
    partition_racks: Mapping[str, tuple[frozenset[str], ...]] | None = None
    lag: LagInfo | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.topics, MappingProxyType):
            object.__setattr__(self, "topics", MappingProxyType(dict(self.topics)))
        if not isinstance(self.members, tuple):
            object.__setattr__(self, "members", tuple(self.members))
        if self.partition_racks is not None and not isinstance(self.partition_racks, MappingProxyType):
            racks = {t: _as_tuple_of_frozensets(r) for t, r in self.partition_racks.items()}
            object.__setattr__(self, "partition_racks", MappingProxyType(racks))

    @property
    def member_ids(self) -> tuple[str, ...]:
        return tuple(m.member_id for m in self.members)

    def member(self, member_id: str) -> Member:
        for m in self.members:
            if m.member_id == member_id:
                return m
        raise KeyError(member_id)

    @property
    def partition_count(self) -> int:
        return sum(self.topics.values())

    def subscribers(self, topic: str) -> tuple[Member, ...]:
        return tuple(m for m in self.members if topic in m.subscription)

    def subscribed_topics(self) -> tuple[str, ...]:
        """Topics that exist and have at least one subscriber, sorted by name."""
        wanted = set().union(*(m.subscription for m in self.members)) if self.members else set()
        return tuple(sorted(t for t in self.topics if t in wanted))

    def subscriptions_equal(self) -> bool:
        return len({m.subscription for m in self.members}) <= 1

    def replace(self, **changes: object) -> Problem:
        from dataclasses import replace

        return replace(self, **changes)


@dataclass(frozen=True)
class Assignment:
    """An assignor's output: member id -> `Partitions`. Holds whatever an assignor returned
    (unknown members, repeats, junk indices), sorted inside each topic so equal outputs compare equal."""

    by_member: Mapping[str, Partitions]

    def __post_init__(self) -> None:
        canonical = {str(m): partitions_of(p, sort=True) for m, p in self.by_member.items()}
        object.__setattr__(self, "by_member", MappingProxyType(canonical))

    @classmethod
    def of(
        cls, spec: Mapping[str, Partitions | Mapping[str, Iterable[int]] | Iterable[TopicPartition]]
    ) -> Assignment:
        return cls({m: partitions_of(p) for m, p in spec.items()})

    def get(self, member_id: str) -> Partitions:
        return self.by_member.get(member_id, MappingProxyType({}))

    def count(self, member_id: str) -> int:
        return count_of(self.get(member_id))

    def counts(self) -> dict[str, int]:
        return {m: count_of(p) for m, p in self.by_member.items()}

    def pairs(self, member_id: str) -> Iterator[TopicPartition]:
        return iter_pairs(self.get(member_id))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Assignment):
            return NotImplemented
        if set(self.by_member) != set(other.by_member):
            return False
        return all(partitions_equal(p, other.by_member[m]) for m, p in self.by_member.items())

    def __hash__(self) -> int:
        return hash(tuple(sorted((m, self.count(m)) for m in self.by_member)))

    def as_lists(self) -> dict[str, dict[str, list[int]]]:
        """Plain Python form, e.g. for printing and tests."""
        return {m: {t: arr.tolist() for t, arr in sorted(p.items())} for m, p in self.by_member.items()}


# ---- Kafka Streams task problems (seed 003) -------------------------------------------------------
# A task is (subtopology, partition); a set of tasks uses the same `Partitions` container.


@dataclass(frozen=True, slots=True)
class Client:
    client_id: str
    capacity: int  # number of stream threads
    active: Partitions = field(default_factory=lambda: partitions_of(None))  # previous active tasks
    standby: Partitions = field(default_factory=lambda: partitions_of(None))  # previous standby tasks

    def __post_init__(self) -> None:
        for name in ("active", "standby"):
            value = getattr(self, name)
            if not isinstance(value, MappingProxyType):
                object.__setattr__(self, name, partitions_of(value))


@dataclass(frozen=True, slots=True)
class StreamsProblem:
    """Sub-topology -> number of tasks, and the clients with their capacities and previous tasks."""

    subtopologies: Mapping[str, int]
    clients: tuple[Client, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.subtopologies, MappingProxyType):
            object.__setattr__(self, "subtopologies", MappingProxyType(dict(self.subtopologies)))
        if not isinstance(self.clients, tuple):
            object.__setattr__(self, "clients", tuple(self.clients))

    @property
    def client_ids(self) -> tuple[str, ...]:
        return tuple(c.client_id for c in self.clients)

    @property
    def task_count(self) -> int:
        return sum(self.subtopologies.values())

    @property
    def total_capacity(self) -> int:
        return sum(c.capacity for c in self.clients)


AnyProblem: TypeAlias = Problem | StreamsProblem
