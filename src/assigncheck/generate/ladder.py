"""The scale ladder: seeded problems of production size, in rungs of doubling size, for the gate's scale stage.

A rung is a size (members x partitions over topics) and a state; its problem is a function of the rung, the
seed and the target's form (`Form`: the problem kind, the protocol it speaks, lag offsets, equal subscriptions)
alone, so any process builds the same one. The shapes are the ones production groups and Kafka's own reports
use (docs/SPEC.md §5.6 and §12):
- one topic: M members x M partitions (KIP-615's 2,100 x 2,100, the 2.5-minute assignment);
- many topics: M members x P partitions spread evenly over T topics, each member subscribing to 1-20 random
  topics (Kafka's heterogeneous benchmarks; 1,000 x 10,000 over 100 topics takes 10-14 s with Kafka's general
  sticky path), or to all of them for a target that declares `equal_subscriptions_only`.
States: `fresh` (no claims) and `churn`, the next rebalance of a settled group: every member claims its share
of a previous assignment (each topic's partitions dealt in turn to its subscribers, in a seeded order), then
2% of the members leave and 2% join. Members are listed in a seeded order, as a leader receives them.

Streams task problems take the same sizes as clients x tasks over sub-topologies, with capacities 1-4; a
churned group had every task active on one client and 30% of them standing by on another.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from assigncheck.spec.model import (
    AnyProblem,
    Client,
    LagInfo,
    Member,
    Problem,
    Protocol,
    StreamsProblem,
    TopicOffsets,
    partitions_of,
)
from assigncheck.spec.promises import Promises, TimeAt

State = Literal["fresh", "churn"]
STATES: tuple[State, ...] = ("fresh", "churn")
KINDS = ("consumer", "streams")  # problem kinds with a ladder
MOST_TOPICS_EACH = 20  # a member of a many-topic group subscribes to 1..20 of them
CHURN = 50  # one member in CHURN leaves, and as many join, between the settled round and the churned one
GENERATION = 7  # the settled round's generation, carried by every claim


@dataclass(frozen=True, order=True)
class Rung:
    """One size and state of the ladder: `members` x `partitions` over `topics` (clients x tasks over
    sub-topologies for Streams)."""

    members: int
    partitions: int
    topics: int = 1
    state: State = "fresh"

    @property
    def size(self) -> int:
        """What growth is measured against: the input's size, members + partitions."""
        return self.members + self.partitions

    @property
    def text(self) -> str:
        """`2100x2100`, `1000x10000/100`: the syntax of the `max_time` promise."""
        return f"{self.members}x{self.partitions}" + (f"/{self.topics}" if self.topics != 1 else "")

    def series(self, kind: str = "consumer") -> str:
        """The rungs of one shape and state, whose times make one growth curve: `1 topic fresh`."""
        unit = ("sub-topology", "sub-topologies") if kind == "streams" else ("topic", "topics")
        return f"{self.topics} {unit[self.topics != 1]} {self.state}"


def rungs(one_topic: tuple[int, ...], many_topics: tuple[int, ...], topics: int, ratio: int,
          named: TimeAt | None = None) -> list[Rung]:
    """Every rung in ascending size: M x M on one topic for M in `one_topic`, M x ratio*M over `topics` topics
    for M in `many_topics`, each fresh and churned, plus a `max_time` promise's own size."""
    sizes = [(m, m, 1) for m in one_topic] + [(m, ratio * m, topics) for m in many_topics]
    if named is not None:
        sizes.append((named.members, named.partitions, named.topics))
    found = {Rung(m, p, t, s) for m, p, t in sizes for s in STATES}
    return sorted(found, key=lambda r: (r.size, r.topics, STATES.index(r.state)))


@dataclass(frozen=True)
class Form:
    """What of a rung's problem depends on the target: its kind, the protocol its groups run, lag offsets (a
    lag-based assignor needs them), and equal subscriptions (for a target defined only on those)."""

    kind: str = "consumer"
    protocol: Protocol = "eager"
    lag: bool = False
    equal: bool = False

    @classmethod
    def of(cls, promises: Promises, kind: str = "consumer") -> Form:
        # A group runs the cooperative protocol when its leader's assignor speaks it (KIP-429).
        return cls(kind, "cooperative" if promises.max_rounds is not None else "eager", promises.exact == "lag",
                   promises.equal_subscriptions_only)


def problem(rung: Rung, seed: int, form: Form = Form()) -> AnyProblem:
    """The rung's problem for a target of this form (made once per process: every target reads it only)."""
    if form.kind == "streams":
        return _streams(rung, seed)
    if form.kind != "consumer":
        raise ValueError(f"no ladder for {form.kind} problems")
    return _consumer(rung, seed, form.lag, form.equal).with_protocol(form.protocol)


def _rng(rung: Rung, seed: int, kind: int) -> np.random.Generator:
    return np.random.default_rng([seed, kind, rung.members, rung.partitions, rung.topics, STATES.index(rung.state)])


def _counts(total: int, parts: int) -> list[int]:
    """`total` split as evenly as possible into `parts`, the larger shares first."""
    return [total // parts + (i < total % parts) for i in range(parts)]


def _names(prefix: str, n: int) -> list[str]:
    width = len(str(max(n - 1, 0)))
    return [f"{prefix}-{i:0{width}d}" for i in range(n)]


def _dealt(rng: np.random.Generator, holders: np.ndarray, count: int) -> np.ndarray:
    """Who held each of `count` partitions: `holders` in a seeded order, in turn."""
    order = rng.permutation(holders)
    return order[np.arange(count) % len(order)]


def _churned(rng: np.random.Generator, n: int) -> tuple[np.ndarray, int]:
    """Which of n settled members stay (sorted indices) and how many join."""
    moved = max(1, n // CHURN) if n > 1 else 0
    return np.sort(rng.permutation(n)[: n - moved]), moved


@lru_cache(maxsize=48)
def _consumer(rung: Rung, seed: int, lag: bool, equal: bool) -> Problem:
    rng = _rng(rung, seed, 0)
    n, names = rung.members, _names("topic", rung.topics)
    counts = dict(zip(names, _counts(rung.partitions, rung.topics)))
    if rung.topics == 1 or equal:
        subs = [frozenset(names)] * n
    else:
        most = min(MOST_TOPICS_EACH, rung.topics)
        picks = [rng.choice(rung.topics, int(k), replace=False) for k in rng.integers(1, most + 1, size=n)]
        subs = [frozenset(names[i] for i in p) for p in picks]
    ids = _names("consumer", n + n // CHURN + 1)
    if rung.state == "fresh":
        members = [Member(ids[j], subs[j]) for j in range(n)]
    else:
        owned: list[dict[str, np.ndarray]] = [{} for _ in range(n)]
        for name in names:
            subscribers = np.array([j for j in range(n) if name in subs[j]], dtype=np.int64)
            if not len(subscribers):
                continue
            holder = _dealt(rng, subscribers, counts[name])
            by_holder = np.argsort(holder, kind="stable")
            cuts = np.searchsorted(holder[by_holder], subscribers)
            for j, lo, hi in zip(np.sort(subscribers).tolist(), cuts.tolist(), [*cuts[1:].tolist(), counts[name]]):
                if hi > lo:
                    owned[j][name] = by_holder[lo:hi].astype(np.int32)
        stay, joining = _churned(rng, n)
        members = [Member(ids[j], subs[j], partitions_of(owned[j]), GENERATION) for j in stay.tolist()]
        members += [Member(ids[n + k], subs[int(rng.integers(n))]) for k in range(joining)]
    listed = tuple(members[i] for i in rng.permutation(len(members)).tolist())
    return Problem(counts, listed, lag=_lag(rng, counts) if lag else None)


def _lag(rng: np.random.Generator, counts: dict[str, int]) -> LagInfo:
    """Offsets of every partition: end below 10^6, begin below it, a commit in between (none for 10%)."""
    offsets = {}
    for topic, n in counts.items():
        end = rng.integers(0, 1_000_000, size=n)
        begin = (end * rng.random(n) * 0.2).astype(np.int64)
        committed = begin + ((end - begin) * rng.random(n)).astype(np.int64)
        committed[rng.random(n) < 0.1] = -1
        offsets[topic] = TopicOffsets(begin, end, committed)
    return LagInfo(offsets, "earliest")


@lru_cache(maxsize=16)
def _streams(rung: Rung, seed: int) -> StreamsProblem:
    rng = _rng(rung, seed, 1)
    n, names = rung.members, _names("st", rung.topics)
    counts = dict(zip(names, _counts(rung.partitions, rung.topics)))
    capacity = rng.integers(1, 5, size=n).tolist()
    ids = _names("client", n + n // CHURN + 1)
    if rung.state == "fresh":
        clients = [Client(ids[j], capacity[j]) for j in range(n)]
    else:
        active: list[dict[str, list[int]]] = [{} for _ in range(n)]
        standby: list[dict[str, list[int]]] = [{} for _ in range(n)]
        everyone = np.arange(n)
        for name, count in counts.items():
            holder = _dealt(rng, everyone, count)
            for task, j in enumerate(holder.tolist()):
                active[j].setdefault(name, []).append(task)
            if n > 1:
                for task in np.flatnonzero(rng.random(count) < 0.3).tolist():
                    standby[(holder[task] + 1 + int(rng.integers(n - 1))) % n].setdefault(name, []).append(task)
        stay, joining = _churned(rng, n)
        clients = [Client(ids[j], capacity[j], active[j], standby[j]) for j in stay.tolist()]
        clients += [Client(ids[n + k], int(rng.integers(1, 5))) for k in range(joining)]
    listed = tuple(clients[i] for i in rng.permutation(len(clients)).tolist())
    return StreamsProblem(counts, listed)

__all__ = ["Form", "KINDS", "Rung", "problem", "rungs"]
