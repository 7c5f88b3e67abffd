"""Run a schedule on a real broker with real members, and observe the group's stable points.

A stable point is read from both sides: the broker's description of the group (state Stable, exactly the members
the schedule has alive, each member's assignment, and under KIP-848 its target equal to it) must agree with what
each member's own timeline says it owns, on `OBSERVATIONS` observations `QUIET_S` apart. After a step the run
waits `SETTLE_S` first (a change reaches the group through a poll, a heartbeat or a metadata refresh of a second), then
at most `converge_s` for a stable point; a group that does not settle ends the run there.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assigncheck.live import members as members_mod
from assigncheck.live.schedule import Schedule, Step
from assigncheck.live.schedule import check as check_steps

SETTLE_S = 2.5
QUIET_S = 1.0
# A classic leader that lacked a topic's metadata assigns without it and rebalances again once its metadata
# refreshes (a second here): three equal observations, two seconds, outlast that.
OBSERVATIONS = 3
CONVERGE_S = 60.0


@dataclass(frozen=True)
class Client:
    """Who the members are: a client library, a group protocol and an assignor (a class or name as the client takes
    it; under KIP-848, the broker's assignor as `group.remote.assignor` names it)."""

    client: str
    protocol: str
    assignor: str
    classpath: tuple[str, ...] = ()  # java: jars or directories holding the assignor class

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"client": self.client, "protocol": self.protocol, "assignor": self.assignor}
        if self.classpath:
            doc["classpath"] = list(self.classpath)
        return doc

    def __str__(self) -> str:
        return f"{self.client} ({self.protocol}, {self.assignor})"


@dataclass(frozen=True)
class StablePoint:
    """The group after step `step` (its index in the schedule): each live member's broker-side id, subscription,
    instance id and partitions; `seconds`: from the step to the stable point."""

    step: int
    member_ids: dict[str, str]
    subscriptions: dict[str, tuple[str, ...]]
    instance_ids: dict[str, str | None]
    assignment: dict[str, frozenset[tuple[str, int]]]
    topics: dict[str, int]
    seconds: float


@dataclass
class Outcome:
    points: list[StablePoint] = field(default_factory=list)
    timelines: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    unsettled: tuple[int, float] | None = None  # (step, seconds waited) when the group did not settle
    seconds: float = 0.0


def owned(events: list[dict[str, Any]]) -> frozenset[tuple[str, int]]:
    """What a member's timeline says it owns after its last event."""
    held: set[tuple[str, int]] = set()
    for e in events:
        pairs = {(t, int(p)) for t, p in e.get("partitions", ())}
        if e["event"] == "assigned":
            held |= pairs
        elif e["event"] in ("revoked", "lost"):
            held -= pairs
        elif e["event"] in ("closed", "killed"):
            held.clear()
    return frozenset(held)


class _Group:
    def __init__(self, schedule: Schedule, client: Client, bootstrap: str, directory: Path) -> None:
        from confluent_kafka.admin import AdminClient

        self.client, self.bootstrap, self.directory = client, bootstrap, directory
        self.run_id = uuid.uuid4().hex[:8]
        self.group = f"assigncheck-live-{self.run_id}"
        self.admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 3})
        self.topics = dict(schedule.topics)
        self.members: dict[str, members_mod.Member] = {}
        self.subscriptions: dict[str, tuple[str, ...]] = {}
        self.instance_ids: dict[str, str | None] = {}
        self.java = members_mod.java_command(client.classpath) if client.client == "java" else None
        self._create({t: n for t, n in self.topics.items()})

    def real(self, topic: str) -> str:
        return f"{self.run_id}.{topic}"

    def logical(self, topic: str) -> str:
        return topic.split(".", 1)[1]

    def _create(self, topics: dict[str, int]) -> None:
        from confluent_kafka.admin import NewTopic

        for future in self.admin.create_topics([NewTopic(self.real(t), n, 1) for t, n in topics.items()]).values():
            future.result(timeout=60)

    def apply(self, step: Step) -> None:
        if step.op in ("join", "restart"):
            topics = step.topics if step.op == "join" else self.subscriptions[step.member]
            instance = (step.member if step.static else None) if step.op == "join" else self.instance_ids[step.member]
            self.subscriptions[step.member], self.instance_ids[step.member] = topics, instance
            self.members[step.member] = members_mod.start(
                self.client.client, self.client.protocol, self.client.assignor, step.member, self.group,
                self.bootstrap, [self.real(t) for t in topics], self.directory, instance, self.java)
        elif step.op == "leave":
            self.members.pop(step.member).leave()
        elif step.op == "crash":
            self.members.pop(step.member).kill()
        elif step.op == "subscribe":
            self.subscriptions[step.member] = step.topics
            self.members[step.member].send("subscribe " + ",".join(self.real(t) for t in step.topics))
        elif step.op == "partitions":
            from confluent_kafka.admin import NewPartitions

            topic = step.topics[0]
            for future in self.admin.create_partitions([NewPartitions(self.real(topic), step.count)]).values():
                future.result(timeout=60)
            self.topics[topic] = step.count
        elif step.op == "slow":
            self.members[step.member].send(f"slow {step.seconds}")

    def observe(self) -> tuple[Any, ...] | None:
        """The group's state when the broker and every member's timeline agree on it, else None."""
        from confluent_kafka import ConsumerGroupState

        try:
            described = self.admin.describe_consumer_groups([self.group])[self.group].result(timeout=10)
        except Exception:  # noqa: BLE001 (the coordinator is moving or loading: not stable yet)
            return None
        if described.state != ConsumerGroupState.STABLE:
            return None
        by_name = {m.client_id: m for m in described.members}
        if set(by_name) != set(self.members) or len(described.members) != len(self.members):
            return None
        seen = []
        for name in sorted(by_name):
            m = by_name[name]
            broker_side = frozenset((self.logical(tp.topic), tp.partition) for tp in m.assignment.topic_partitions)
            if m.target_assignment is not None:
                target = frozenset((self.logical(tp.topic), tp.partition)
                                   for tp in m.target_assignment.topic_partitions)
                if target != broker_side:
                    return None
            if owned(self.members[name].events()) != {(self.real(t), i) for t, i in broker_side}:
                return None
            seen.append((name, m.member_id, broker_side))
        return tuple(seen)

    def point(self, index: int, seen: tuple[Any, ...], seconds: float) -> StablePoint:
        """The stable point after step `index` that `observe` saw."""
        return StablePoint(index, {name: mid for name, mid, _ in seen}, dict(self.subscriptions),
                           {name: self.instance_ids[name] for name, _, _ in seen},
                           {name: parts for name, _, parts in seen}, dict(self.topics), seconds)

    def stop(self) -> None:
        for member in self.members.values():
            member.leave(timeout_s=10)


def run(schedule: Schedule, client: Client, bootstrap: str, directory: Path, *,
        converge_s: float = CONVERGE_S) -> Outcome:
    """Run every step of `schedule`, waiting for a stable point after each (see the module's docstring)."""
    members_mod.check_client(client.client, client.protocol)
    check_steps(schedule.steps, schedule.topics)
    started = time.monotonic()
    outcome = Outcome()
    group = _Group(schedule, client, bootstrap, directory)
    try:
        for index, step in enumerate(schedule.steps):
            group.apply(step)
            if _joins_with_next(schedule.steps, index):
                continue
            point, waited = _settle(group, index, converge_s)
            if point is None:
                outcome.unsettled = (index, waited)
                break
            outcome.points.append(point)
    finally:
        group.stop()
        outcome.timelines = {p.stem: members_mod.timeline(p) for p in sorted(directory.glob("*.jsonl"))}
        outcome.seconds = time.monotonic() - started
    for events in outcome.timelines.values():
        for e in events:
            e["partitions"] = [[group.logical(t), p] for t, p in e.get("partitions", ())]
    return outcome


def _joins_with_next(steps: tuple[Step, ...], index: int) -> bool:
    """Is step `index` one of the initial joins, but not the last? The initial members join together: the first
    stable point is after the last of them."""
    return index + 1 < len(steps) and steps[index + 1].op == "join" and all(s.op == "join" for s in steps[:index + 1])


def _settle(group: _Group, index: int, converge_s: float) -> tuple[StablePoint | None, float]:
    """The stable point after step `index` (None when there is none within `converge_s`), and the seconds from the
    step to it (or waited for it)."""
    at = time.monotonic()
    time.sleep(SETTLE_S)
    same: list[Any] = []
    while True:
        seen = group.observe()
        same = [*same, seen] if seen is not None and same and seen == same[-1] else [seen]
        waited = time.monotonic() - at
        if seen is not None and len(same) == OBSERVATIONS:
            return group.point(index, seen, waited), waited
        if waited > converge_s:
            return None, waited
        time.sleep(QUIET_S)
