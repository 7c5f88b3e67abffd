"""A seeded schedule of what happens to a live group: its topics, the members it starts with, then steps.

Steps (`Step.op`): `join` (a new member; `static` ones carry a group.instance.id), `leave` (a clean close),
`crash` (SIGKILL: the broker learns of it from the session timeout), `restart` (a crashed static member comes
back with its instance id), `subscribe` (a member changes its subscription), `partitions` (a topic gains
partitions), `slow` (a member's rebalance callbacks take seconds from now on). After each step the run waits for
a stable point. The JSON form is what a live finding's reproducer carries.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from assigncheck.spec.errors import FormatError, InputError

OPS = ("join", "leave", "crash", "restart", "subscribe", "partitions", "slow")


@dataclass(frozen=True)
class Step:
    op: str
    member: str = ""
    topics: tuple[str, ...] = ()  # join, subscribe: the subscription
    count: int = 0  # partitions: the topic's new partition count (topics[0])
    static: bool = False  # join: with group.instance.id = the member's name
    seconds: float = 0.0  # slow: per callback

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"op": self.op}
        if self.member:
            doc["member"] = self.member
        if self.topics:
            doc["topics"] = list(self.topics)
        if self.count:
            doc["count"] = self.count
        if self.static:
            doc["static"] = True
        if self.seconds:
            doc["seconds"] = self.seconds
        return doc

    @classmethod
    def from_json(cls, doc: Any, path: str) -> Step:
        if not isinstance(doc, dict) or doc.get("op") not in OPS:
            raise FormatError(f"{path}.op", f"must be one of {', '.join(OPS)}")
        try:
            return cls(doc["op"], str(doc.get("member", "")), tuple(map(str, doc.get("topics", ()))),
                       int(doc.get("count", 0)), bool(doc.get("static", False)), float(doc.get("seconds", 0.0)))
        except (TypeError, ValueError):
            raise FormatError(path, "has a field of the wrong type") from None

    def __str__(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.to_json().items())


@dataclass(frozen=True)
class Schedule:
    topics: dict[str, int]
    steps: tuple[Step, ...] = field(default=())  # the first steps are the initial joins

    def to_json(self) -> dict[str, Any]:
        return {"topics": dict(self.topics), "steps": [s.to_json() for s in self.steps]}

    @classmethod
    def from_json(cls, doc: Any, path: str = "schedule") -> Schedule:
        if not isinstance(doc, dict) or not isinstance(doc.get("topics"), dict) \
                or not isinstance(doc.get("steps"), list):
            raise FormatError(path, "must be an object with 'topics' {name: partitions} and 'steps' [...]")
        topics = {}
        for name, count in doc["topics"].items():
            if isinstance(count, bool) or not isinstance(count, int) or count < 1:
                raise FormatError(f"{path}.topics.{name}", "must be a partition count of at least 1")
            topics[str(name)] = count
        return cls(topics, tuple(Step.from_json(s, f"{path}.steps[{i}]") for i, s in enumerate(doc["steps"])))


def generate(seed: int, steps: int, *, static: bool = True, slow: bool = True) -> Schedule:
    """A seeded schedule: two topics, two or three members joining, then `steps` changes that keep at least one
    member in the group. `static`: some members are static (the client supports group.instance.id); `slow`: a
    step may slow a member's callbacks."""
    rng = random.Random(seed)
    topics = {"t0": rng.randint(3, 6), "t1": rng.randint(2, 4)}
    names = iter(f"m{i}" for i in range(1000))
    plan: list[Step] = []
    live: list[str] = []
    crashed_static: list[str] = []
    statics: set[str] = set()

    def join() -> None:
        name = next(names)
        is_static = static and rng.random() < 0.3
        if is_static:
            statics.add(name)
        subscription = ("t0", "t1") if rng.random() < 0.7 else ("t0",)
        plan.append(Step("join", name, subscription, static=is_static))
        live.append(name)

    for _ in range(rng.randint(2, 3)):
        join()
    for _ in range(steps):
        ops = ["join", "subscribe", "partitions"]
        if len(live) > 1:
            ops += ["leave", "crash"]
        if crashed_static:
            ops.append("restart")
        if slow:
            ops.append("slow")
        op = rng.choice(ops)
        if op == "join":
            join()
        elif op in ("leave", "crash"):
            name = rng.choice(live)
            live.remove(name)
            if op == "crash" and name in statics:
                crashed_static.append(name)
            plan.append(Step(op, name))
        elif op == "restart":
            name = crashed_static.pop(0)
            live.append(name)
            plan.append(Step("restart", name))
        elif op == "subscribe":
            name = rng.choice(live)
            now = next(s.topics for s in reversed(plan) if s.member == name and s.op in ("join", "subscribe"))
            plan.append(Step("subscribe", name, rng.choice([t for t in (("t0",), ("t1",), ("t0", "t1")) if t != now])))
        elif op == "partitions":
            topic = rng.choice(sorted(topics))
            topics_now = _counts(topics, plan)
            plan.append(Step("partitions", topics=(topic,), count=topics_now[topic] + rng.randint(1, 2)))
        else:
            plan.append(Step("slow", rng.choice(live), seconds=round(rng.uniform(0.5, 2.0), 1)))
    return Schedule(topics, tuple(plan))


def _counts(initial: dict[str, int], plan: list[Step]) -> dict[str, int]:
    counts = dict(initial)
    for step in plan:
        if step.op == "partitions":
            counts[step.topics[0]] = step.count
    return counts


def check(steps: tuple[Step, ...] | list[Step], topics: dict[str, int], path: str = "schedule.steps") -> None:
    """An `InputError` naming the first step no group can take: a member named before it joins (or after it left),
    a restart of a member that did not crash, a join of a member already in the group, a step after the group
    emptied, a topic the schedule does not create, or a topic shrinking."""
    group = _Group(dict(topics))
    for i, s in enumerate(steps):
        group.take(s, f"{path}[{i}]")
        if not group.alive and i + 1 < len(steps) and steps[i + 1].op not in ("join", "restart"):
            raise InputError(f"{path}[{i + 1}]", "the group is empty")


@dataclass
class _Group:
    """The group as `check` replays the schedule: who is in it, who crashed, each topic's partition count."""

    counts: dict[str, int]
    alive: set[str] = field(default_factory=set)
    crashed: set[str] = field(default_factory=set)

    def take(self, s: Step, where: str) -> None:
        """Apply step `s`, or raise the `InputError` (at `where`) that says why no group can take it."""
        unknown = sorted(set(s.topics) - set(self.counts))
        if unknown:
            raise InputError(f"{where}.topics", f"{unknown[0]!r} is not one of the schedule's topics")
        if s.op == "join":
            self._join(s, where)
        elif s.op == "restart":
            self._restart(s, where)
        elif s.op == "partitions":
            self._grow(s, where)
        elif s.member not in self.alive:
            raise InputError(f"{where}.member", f"{s.member!r} is not in the group")
        elif s.op in ("leave", "crash"):
            self.alive.discard(s.member)
            if s.op == "crash":
                self.crashed.add(s.member)
        elif s.op == "subscribe" and not s.topics:
            raise InputError(f"{where}.topics", "a subscription names at least one topic")

    def _join(self, s: Step, where: str) -> None:
        if s.member in self.alive or s.member in self.crashed or not s.member or not s.topics:
            raise InputError(f"{where}.member", f"{s.member!r} cannot join: already in the group, or no name or "
                                                "topics")
        self.alive.add(s.member)

    def _restart(self, s: Step, where: str) -> None:
        if s.member not in self.crashed:
            raise InputError(f"{where}.member", f"{s.member!r} did not crash: nothing to restart")
        self.crashed.discard(s.member)
        self.alive.add(s.member)

    def _grow(self, s: Step, where: str) -> None:
        if len(s.topics) != 1 or s.count <= self.counts.get(s.topics[0], 0):
            raise InputError(f"{where}.count", "a topic only gains partitions: name one topic and a larger count")
        self.counts[s.topics[0]] = s.count
