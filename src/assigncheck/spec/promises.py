"""What an assignor promises (docs/SPEC.md §8), and the interface every assignor shares."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields
from typing import Any, Literal, Protocol, TypeAlias, runtime_checkable

from assigncheck.spec.errors import InputError
from assigncheck.spec.limits import MAX_MEMBERS, MAX_PARTITIONS, MAX_TOPICS
from assigncheck.spec.model import GROUP_TYPES, Assignment, GroupType

Balance: TypeAlias = Literal["none", "per-topic", "local", "perfect", "uniform", "optimal"]
Stickiness: TypeAlias = Literal["none", "max_retained"]
BALANCES: tuple[str, ...] = ("none", "per-topic", "local", "perfect", "uniform", "optimal")
STICKINESS: tuple[str, ...] = ("none", "max_retained")
CLAIMS: tuple[str, ...] = ("any", "real")
TaskBalance: TypeAlias = Literal["none", "ceiling", "capacity"]
ServedGroup: TypeAlias = Literal["classic", "consumer", "share", "streams"]
SERVED_GROUPS: tuple[str, ...] = (*GROUP_TYPES, "streams")
TASK_BALANCES: tuple[str, ...] = ("none", "ceiling", "capacity")
_FLAGS = ("fixpoint", "per_topic_spread", "racks", "equal_subscriptions_only", "order_independent", "eager",
          "active_stickiness", "subtopology_mix")
_TIME_AT = re.compile(r"(\d+)x(\d+)(?:/(\d+))?:(\d+(?:\.\d*)?|\.\d+)s?")
MAX_GROWTH = 10.0  # an exponent above this promises nothing a ladder of doubling rungs can tell apart


@dataclass(frozen=True, slots=True)
class TimeAt:
    """`max_time=2100x2100:0.5`: at most `seconds` of CPU per call at `members` x `partitions` over `topics`
    (`1000x10000/100:0.3`; one topic when not given), on the scale ladder's shapes (`generate.ladder`)."""

    members: int
    partitions: int
    topics: int
    seconds: float

    @classmethod
    def parse(cls, text: str) -> TimeAt:
        found = _TIME_AT.fullmatch(text.strip())
        if not found:
            raise InputError("--promises", f"max_time must be MEMBERSxPARTITIONS[/TOPICS]:SECONDS, e.g. "
                                           f"2100x2100:0.5 or 1000x10000/100:0.3, got {text!r}")
        members, partitions, topics = (int(g) for g in (found[1], found[2], found[3] or "1"))
        seconds = float(found[4])
        for value, limit, what in ((members, MAX_MEMBERS, "members"), (topics, MAX_TOPICS, "topics"),
                                   (partitions, MAX_PARTITIONS, "partitions")):
            if not 1 <= value <= limit:
                raise InputError("--promises", f"max_time: {what} must be 1..{limit:,}, got {value:,}")
        if partitions < topics:
            raise InputError("--promises", f"max_time: {partitions} partitions cannot fill {topics} topics")
        if not 0 < seconds < math.inf:
            raise InputError("--promises", f"max_time: the seconds must be positive, got {found[4]!r}")
        return cls(members, partitions, topics, seconds)

    @property
    def size(self) -> str:
        return f"{self.members}x{self.partitions}" + (f"/{self.topics}" if self.topics != 1 else "")

    def __str__(self) -> str:
        short = f"{self.seconds:g}"
        return f"{self.size}:{short if float(short) == self.seconds else repr(self.seconds)}"


_CHOICES = {"balance": BALANCES, "stickiness": STICKINESS, "group_type": SERVED_GROUPS, "claims": CLAIMS,
            "task_balance": TASK_BALANCES}


def _parse_value(key: str, value: str) -> object:
    """One promise's value from its text (`key` a field of `Promises`, `value` not empty)."""
    if key in _CHOICES and value not in _CHOICES[key]:
        raise InputError("--promises", f"{key} must be one of {', '.join(_CHOICES[key])}, got {value!r}")
    if key == "exact":
        from assigncheck.spec.reference import REFERENCES  # here: the references import this module

        if value not in REFERENCES:
            raise InputError("--promises", f"exact must name a reference ({', '.join(REFERENCES)}), got {value!r}")
    elif key == "max_time":
        return TimeAt.parse(value)
    elif key == "max_growth":
        return _growth(value)
    elif key == "max_rounds":
        if not value.isdigit():
            raise InputError("--promises", f"max_rounds must be a whole number, got {value!r}")
        return int(value)
    elif key in _FLAGS:
        if value not in ("true", "false"):
            raise InputError("--promises", f"{key} takes true or false, got {value!r}")
        return value == "true"
    return value


def _growth(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= MAX_GROWTH:
        raise InputError("--promises", f"max_growth must be an exponent in (0, {MAX_GROWTH:g}], e.g. 1.2, "
                                       f"got {text!r}")
    return value


@dataclass(frozen=True, slots=True)
class Promises:
    """The promises an assignor declares; the checker enforces exactly these (plus H1-H8, always).

    - balance: "perfect" is enforced on problems whose subscriptions are all equal (elsewhere it may
      be unreachable); "uniform" is perfect there and local elsewhere (Kafka 4's UniformAssignor);
      "optimal" means the minimum sum of squared member counts.
    - stickiness "max_retained": retained == max_retained under the balance promise.
    - fixpoint: feeding the output back (next generation) reproduces it.
    - per_topic_spread: KAFKA-16277 (see `spec.stickiness.per_topic_spread_violations`).
    - racks: KIP-881 (see `spec.racks`): on rack-aware problems, the fewest rack mismatches among the
      assignments meeting the balance promise; `max_retained` is then taken among those.
    - exact: the name of the spec reference assignor whose output must be reproduced exactly.
    - equal_subscriptions_only: the assignor is only defined for equal subscriptions.
    - max_rounds: the assignor speaks the cooperative protocol (KIP-429) and converges (nothing withheld)
      within this many rounds; None = eager only. An eager-only assignor never sees a cooperative group
      in Kafka, so it is checked on the eager form of a cooperative problem.
    - eager: the assignor also speaks the eager protocol; a cooperative-only one (eager=False) makes
      every group it leads cooperative, so it is checked on the cooperative form of every problem.
    - claims: "any" (every well-formed problem, docs/SPEC.md §1.3) or "real": the assignor assumes each member's
      claims are what a previous assignment gave it (no repeats, no negative indices; for a Streams task assignor
      `spec.groups.streams_unreal`: no task claimed active by two clients, none claimed both active and standby by
      one); problems with other claims are still run, and their findings reported apart as unreachable for it
      (`findings.signature`).
    - task_balance, active_stickiness, subtopology_mix: a Streams task assignor's (docs/SPEC.md §7.4, checked by
      `spec.streams_checks` under `streams.balance`, `streams.sticky`, `streams.mix`). task_balance "capacity": the
      tasks/capacity of any two clients at most 1 apart; "ceiling": no client above capacity * ceil(tasks /
      total capacity), i.e. no stream thread above its even share rounded up (KIP-1071's per-member quota).
      active_stickiness: each client keeps min(|its valid previous actives|, its task count) of them.
      subtopology_mix: the previous actives a client keeps are, sub-topology by sub-topology, as close to the
      global mix as any choice of as many of its valid previous actives (KAFKA-7203's step 4).
    - group_type: the group type the assignor serves (`spec.groups`): "classic" (a client-side assignor),
      "consumer" (KIP-848) or "share" (KIP-932): a broker-side one meets every problem as its coordinator holds it;
      "streams" (KIP-1071): a streams group's coordinator runs the task assignor, and its topology never changes
      under a live group (`spec.groups.streams_unreal`).
    - max_time, max_growth: enforced by the gate's scale stage (`run.scale`): at most so many CPU seconds per
      call at a named size (`TimeAt`), and CPU time per call growing at most as (members + partitions)^exponent
      on the scale ladder. H7's per-call budget applies there too.
    """

    balance: Balance = "none"
    stickiness: Stickiness = "none"
    fixpoint: bool = False
    per_topic_spread: bool = False
    racks: bool = False
    exact: str | None = None
    equal_subscriptions_only: bool = False
    order_independent: bool = True
    max_rounds: int | None = None
    eager: bool = True
    claims: Literal["any", "real"] = "any"
    task_balance: TaskBalance = "none"
    active_stickiness: bool = False
    subtopology_mix: bool = False
    group_type: ServedGroup = "classic"
    max_time: TimeAt | None = None
    max_growth: float | None = None

    @classmethod
    def parse(cls, text: str) -> Promises:
        """`balance=optimal,stickiness=max_retained,fixpoint` (the CLI's --promises syntax)."""
        values: dict[str, Any] = {}  # each key's value parsed to its field's type below
        names = {f.name: f for f in fields(cls)}
        for item in filter(None, (s.strip() for s in text.split(","))):
            key, _, value = item.partition("=")
            key = key.strip().replace("-", "_")
            if key not in names:
                raise InputError("--promises", f"unknown promise {key!r}; known: {', '.join(names)}")
            if not value and key in _FLAGS:
                values[key] = True
            elif not value:  # "balance=" would otherwise set balance to True and break the checker later
                raise InputError("--promises", f"{key} needs a value ({key}=...)")
            else:
                values[key] = _parse_value(key, value)
        return cls(**values)

    @property
    def consumer_group_type(self) -> GroupType:
        """The group type a consumer problem takes for this target (`spec.groups.coordinator_form`): its own, or
        "classic" for a Streams task assignor (it never meets consumer problems)."""
        return "classic" if self.group_type == "streams" else self.group_type

    def to_text(self) -> str:
        """The canonical `--promises` text of these promises (only what differs from the defaults), so that
        `Promises.parse(p.to_text()) == p`: how a reproducer and another process carry them."""
        default = Promises()
        items = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value == getattr(default, f.name):
                continue
            items.append(f.name if value is True else f"{f.name}={str(value).lower() if value is False else value}")
        return ",".join(items)



@runtime_checkable
class Assignor(Protocol):
    """Anything with a name, declared promises and `assign(problem) -> Assignment`."""

    # Read-only members: a class attribute, an instance attribute or a property all satisfy them.
    @property
    def name(self) -> str: ...

    @property
    def promises(self) -> Promises: ...

    # A `Problem`, or a `StreamsProblem` for a task assignor (`problem_kind`): each kind takes only its own.
    def assign(self, problem: Any) -> Assignment: ...


def problem_kind(assignor: object) -> str:
    """"streams" for task assignors over `StreamsProblem` (they say so with `problem_kind`), else "consumer"."""
    return getattr(assignor, "problem_kind", "consumer")


_CONSTRAINED = Promises(balance="perfect", stickiness="max_retained", fixpoint=True, per_topic_spread=True,
                        racks=True, equal_subscriptions_only=True)
# docs/SPEC.md §8.2 as data: what each built-in assignor must promise. The gate holds a built-in to at least
# this, so an assignor cannot pass by quietly promising less.
SPEC_PROMISES: dict[str, Promises] = {
    "range": Promises(balance="per-topic", exact="range"),
    "roundrobin": Promises(balance="perfect", exact="roundrobin"),
    "sticky-constrained": _CONSTRAINED,
    "sticky-constrained-4phase": _CONSTRAINED,
    "sticky": Promises(balance="optimal", stickiness="max_retained", fixpoint=True, per_topic_spread=True,
                       racks=True),
    "cooperative-sticky": Promises(balance="optimal", stickiness="max_retained", fixpoint=True, per_topic_spread=True,
                                   racks=True, max_rounds=2),
    "lag": Promises(balance="per-topic", exact="lag"),
    "streams-sticky": Promises(exact="streams", task_balance="capacity", active_stickiness=True, subtopology_mix=True),
}

__all__ = ["Assignor", "BALANCES", "Promises", "SERVED_GROUPS", "SPEC_PROMISES", "TASK_BALANCES", "TimeAt",
           "problem_kind"]
