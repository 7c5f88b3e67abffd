"""Adapters that run other Python libraries' assignors unmodified: `kafka-python:NAME`, `aiokafka:NAME`.

Each adapter encodes the problem the way that library's consumers would have sent it - the eager
sticky assignors read previous ownership from their StickyAssignor userData (built with the library's
own `_metadata`), the cooperative one from the Subscription's owned-partitions and generation fields -
and decodes the library's answer into an `Assignment`. Promises are the ones each library documents.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from assigncheck.spec.errors import InputError
from assigncheck.spec.model import AnyProblem, Assignment, Member, Problem, iter_pairs
from assigncheck.spec.promises import Promises

_DOCUMENTED = {
    "range": Promises(balance="per-topic"),
    "roundrobin": Promises(balance="perfect"),
    "sticky": Promises(balance="local", fixpoint=True),
    "cooperative-sticky": Promises(balance="local", fixpoint=True, max_rounds=2, eager=False),
}


class _Cluster:
    """The two methods of ClusterMetadata the assignors call."""

    def __init__(self, topics: Mapping[str, int]) -> None:
        self._topics = dict(topics)

    def topics(self) -> set[str]:
        return set(self._topics)

    def partitions_for_topic(self, topic: str) -> set[int] | None:
        n = self._topics.get(topic)
        return None if n is None else set(range(n))


def _require(module: str, extra: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError("--target", f"{extra} is not installed: pip install 'assigncheck[kafka]'") from None


def _owned_tps(member: Member, tp_type: Callable[[str, int], Any]) -> list[Any]:
    return [tp_type(t, i) for t, i in iter_pairs(member.owned)]


@dataclass
class _LibraryAssignor:
    name: str
    promises: Promises
    run: Callable[[Problem], Mapping[str, list[tuple[str, list[int]]]]]

    def assign(self, problem: AnyProblem) -> Assignment:
        if not isinstance(problem, Problem):
            raise InputError("--target", f"{self.name} assigns consumer groups, not Streams tasks")
        raw = self.run(problem)
        return Assignment.of({m: {t: list(ps) for t, ps in pairs} for m, pairs in raw.items()})


# ---- kafka-python ----------------------------------------------------------------------------------

_KAFKA_PYTHON = {
    "range": "kafka.coordinator.assignors.range:RangePartitionAssignor",
    "roundrobin": "kafka.coordinator.assignors.roundrobin:RoundRobinPartitionAssignor",
    "sticky": "kafka.coordinator.assignors.sticky.sticky_assignor:StickyPartitionAssignor",
    "cooperative-sticky": "kafka.coordinator.assignors.cooperative_sticky:CooperativeStickyAssignor",
}


def _kafka_python(kind: str) -> _LibraryAssignor:
    module_name, cls_name = _KAFKA_PYTHON[kind].split(":")
    cls = getattr(_require(module_name, "kafka-python"), cls_name)
    from kafka.protocol.consumer.group import JoinGroupResponse
    from kafka.protocol.consumer.metadata import ConsumerProtocolSubscription
    from kafka.structs import TopicPartition

    def subscription(m: Member) -> Any:
        topics = sorted(m.subscription)
        if kind == "sticky":  # eager sticky: previous assignment and generation live in userData
            owned = _owned_tps(m, TopicPartition) or None
            return cls._metadata(topics, owned, m.generation)
        if kind == "cooperative-sticky":  # KIP-429/792: Subscription fields
            by_topic = [ConsumerProtocolSubscription.TopicPartition(topic=t, partitions=a.tolist())
                        for t, a in m.owned.items()]
            return ConsumerProtocolSubscription(version=3, topics=topics, user_data=b"",
                                                owned_partitions=by_topic, generation_id=m.generation,
                                                rack_id=m.rack)
        return ConsumerProtocolSubscription(version=0, topics=topics, user_data=b"")

    def run(problem: Problem) -> Mapping[str, list[tuple[str, list[int]]]]:
        members = [JoinGroupResponse.JoinGroupResponseMember(
            member_id=m.member_id, group_instance_id=m.instance_id, metadata=subscription(m))
            for m in problem.members]
        result = cls().assign(_Cluster(problem.topics), members)
        return {m: [(t, list(ps)) for t, ps in a.assigned_partitions] for m, a in result.items()}

    return _LibraryAssignor(f"kafka-python:{kind}", _DOCUMENTED[kind], run)


# ---- aiokafka --------------------------------------------------------------------------------------

_AIOKAFKA = {
    "range": "aiokafka.coordinator.assignors.range:RangePartitionAssignor",
    "roundrobin": "aiokafka.coordinator.assignors.roundrobin:RoundRobinPartitionAssignor",
    "sticky": "aiokafka.coordinator.assignors.sticky.sticky_assignor:StickyPartitionAssignor",
}


def _aiokafka(kind: str) -> _LibraryAssignor:
    module_name, cls_name = _AIOKAFKA[kind].split(":")
    cls = getattr(_require(module_name, "aiokafka"), cls_name)
    from aiokafka.coordinator.protocol import ConsumerProtocolMemberMetadata
    from aiokafka.structs import TopicPartition

    def metadata(m: Member) -> Any:
        topics = sorted(m.subscription)
        if kind == "sticky":
            return cls._metadata(topics, _owned_tps(m, TopicPartition) or None, m.generation)
        return ConsumerProtocolMemberMetadata(0, topics, b"")

    def run(problem: Problem) -> Mapping[str, list[tuple[str, list[int]]]]:
        members = {m.member_id: metadata(m) for m in problem.members}
        result = cls.assign(_Cluster(problem.topics), members)
        return {m: [(t, list(ps)) for t, ps in a.assignment] for m, a in result.items()}

    return _LibraryAssignor(f"aiokafka:{kind}", _DOCUMENTED[kind], run)


_LIBRARIES = {"kafka-python": (_KAFKA_PYTHON, _kafka_python), "aiokafka": (_AIOKAFKA, _aiokafka)}


def load(library: str, kind: str) -> _LibraryAssignor:
    table, make = _LIBRARIES[library]
    if kind not in table:
        raise InputError("--target", f"{library} has no {kind!r} assignor; choose from {', '.join(table)}")
    return make(kind)


__all__ = [
    "load"
]
