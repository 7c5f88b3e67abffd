"""One way to build problems from choices: the generator family behind hypothesis's strategies
(`generate.strategies`), the seeded campaign generators (`generate.seeded`) and the Z3 models' sampled problems
(`verify.counterexamples`). Each draws its randomness through a `Chooser` (hypothesis's `draw`, which shrinks; a seeded
`random.Random`, which replays from three integers) and says which problems it wants with a `Space`.

A builder draws the simple choice first (no claims, generation -1, no racks, eager...), so hypothesis shrinks
toward it; `coin(p)` is True with probability p for a seeded chooser, and a shrinkable boolean for hypothesis.
The fuzzer's byte decoder (`fuzz.decode`) and the exhaustive enumeration (`verify.exhaustive`) stay apart: the
decoder must also encode any problem back into bytes, the enumeration must visit every problem of a bound.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol, TypeVar

import numpy as np

from assigncheck.generate.scenario import (
    STEP_KINDS,
    AddPartitions,
    DeleteTopic,
    Join,
    Leave,
    RejoinStale,
    Step,
    Subscribe,
)
from assigncheck.spec.features import ABSENT_TOPIC, JUNK_KINDS, RACKS
from assigncheck.spec.model import (
    INT32_MIN,
    Assignment,
    Client,
    LagInfo,
    Member,
    Problem,
    StreamsProblem,
    TopicOffsets,
    partitions_of,
)
from assigncheck.spec.model import Protocol as RebalanceProtocol

T = TypeVar("T")
Claims = Literal["none", "valid", "junk", "any"]


class Chooser(Protocol):
    """A source of choices. Implementations shrink (hypothesis) or replay from a seed (random)."""

    def pick(self, options: Sequence[T]) -> T: ...

    def integer(self, lo: int, hi: int) -> int: ...

    def subset(self, options: Sequence[str], min_size: int = 0) -> frozenset[str]: ...

    def coin(self, p: float = 0.5) -> bool: ...

    def permutation(self, items: Sequence[T]) -> list[T]: ...


class SeededChooser:
    """A `Chooser` over a seeded `random.Random`: the same seed, the same problem, in any process."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick(self, options: Sequence[T]) -> T:
        return options[self.rng.randrange(len(options))]

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def subset(self, options: Sequence[str], min_size: int = 0) -> frozenset[str]:
        return frozenset(self.rng.sample(list(options), self.rng.randint(min_size, len(options))))

    def coin(self, p: float = 0.5) -> bool:
        return self.rng.random() < p

    def permutation(self, items: Sequence[T]) -> list[T]:
        out = list(items)
        self.rng.shuffle(out)
        return out


@dataclass(frozen=True)
class Space:
    """Which consumer problems to build; None means "either", the chooser's pick.

    - claims: "none"; "valid" (a plausible previous round's output: balanced, or partitions to random
      subscribers); "junk" (that, plus up to `max_junk` claims of the kinds in `junk_kinds`); "any": one of them.
    - generations: members get -1, the current generation or an older one; False: all -1.
    - partition_counts: exactly these topics' partition counts (a Z3 model's shape), instead of the ranges.
    - co_partitioned: every topic has the same partition count (KIP-881's partition-by-partition range).
    """

    min_members: int = 1
    max_members: int = 8
    min_topics: int = 1
    max_topics: int = 4
    min_partitions: int = 1
    max_partitions: int = 8
    partition_counts: tuple[int, ...] | None = None
    equal_subscriptions: bool | None = None
    claims: Claims = "junk"
    junk_kinds: tuple[str, ...] = JUNK_KINDS
    max_junk: int = 4
    generations: bool = True
    max_generation: int = 5  # the current generation is 1..max_generation, older ones below it
    racks: bool | None = False
    static_members: bool = True
    protocol: Literal["eager", "cooperative"] | None = None
    lag: bool | None = False
    absent_topics: bool | None = True
    co_partitioned: bool = False


def problem(choose: Chooser, space: Space) -> Problem:
    """A consumer problem in `space`."""
    topics = _topic_counts(choose, space)
    with_racks = choose.coin(0.25) if space.racks is None else space.racks
    members = _members(choose, space, topics, with_racks)
    protocol: RebalanceProtocol = space.protocol if space.protocol else choose.pick(("eager", "cooperative"))
    with_lag = choose.coin(0.2) if space.lag is None else space.lag
    return Problem(topics, members, protocol, partition_racks(choose, topics) if with_racks else None,
                   lag_info(choose, topics) if with_lag else None)


def _members(choose: Chooser, space: Space, topics: dict[str, int], with_racks: bool) -> tuple[Member, ...]:
    """The group: subscriptions, static ids, racks, then claims (valid, then junk) and generations."""
    n = choose.integer(space.min_members, space.max_members)
    ids = [f"c{i}" for i in range(n)]
    absent = choose.coin(0.2) if space.absent_topics is None else space.absent_topics
    subs = subscriptions(choose, sorted(topics) + ([ABSENT_TOPIC] if absent else []), n, space.equal_subscriptions)
    statics = _instance_ids(choose, n) if space.static_members and n and choose.coin(0.3) else [None] * n
    racks = [choose.pick((None, *RACKS)) for _ in range(n)] if with_racks else [None] * n
    mode = space.claims if space.claims != "any" else choose.pick(("none", "valid", "junk", "junk"))
    owned: list[dict[str, list[int]]] = [{} for _ in range(n)]
    if mode != "none" and n:
        owned = previous_claims(choose, topics, ids, subs, balanced=choose.coin())
    gens = _generations(choose, n, space.max_generation) if space.generations else [-1] * n
    if mode == "junk" and n:
        for _ in range(choose.integer(0, space.max_junk)):
            add_junk_claim(choose, choose.pick(space.junk_kinds), owned, gens, subs, topics,
                           generations=space.generations)
    return tuple(Member(ids[j], subs[j], partitions_of(owned[j]), gens[j], statics[j], racks[j]) for j in range(n))


def _topic_counts(choose: Chooser, space: Space) -> dict[str, int]:
    if space.partition_counts is not None:
        return {f"t{i}": c for i, c in enumerate(space.partition_counts)}
    lo = max(space.min_topics, min(2, space.max_topics)) if space.co_partitioned else space.min_topics
    count = choose.integer(lo, space.max_topics)
    first = choose.integer(space.min_partitions, space.max_partitions)
    rest = [first if space.co_partitioned else choose.integer(space.min_partitions, space.max_partitions)
            for _ in range(count - 1)]
    return {f"t{i}": c for i, c in enumerate([first, *rest][:count])}


def subscriptions(choose: Chooser, pool: Sequence[str], n: int, equal: bool | None) -> list[frozenset[str]]:
    """n subscriptions over `pool`: one shared set (equal), or independent sets of which two differ."""
    if not pool:
        return [frozenset()] * n
    if equal is None:
        equal = not choose.coin()
    if equal:
        return [choose.subset(pool, 1)] * n
    subs = [choose.subset(pool, 0 if choose.coin(0.1) else 1) for _ in range(n)]
    if n >= 2 and len(set(subs)) == 1:  # promised unequal: make the last one differ
        subs[-1] = subs[-1] ^ {pool[0]}
    return subs


def _instance_ids(choose: Chooser, n: int) -> list[str | None]:
    """Some members static, their instance ids in another order than their member ids."""
    order = choose.permutation(range(n))
    return [f"i{order[j]}" if choose.coin() else None for j in range(n)]


def _generations(choose: Chooser, n: int, most: int) -> list[int]:
    """Unknown (-1) first so that it shrinks there, then the current generation, then an older one."""
    current = choose.integer(1, most)
    return [choose.pick((-1, current, current, choose.integer(0, current - 1))) for _ in range(n)]


def deal_least_loaded(pairs: Sequence[tuple[str, int]], subscribers: dict[str, list[str]], members: Sequence[str]
                      ) -> dict[str, list[tuple[str, int]]]:
    """Each partition, in the given order, to its least-loaded subscriber (ties: earlier in `subscribers`):
    a random balanced previous assignment when `pairs` is shuffled."""
    given: dict[str, list[tuple[str, int]]] = {m: [] for m in members}
    for t, i in pairs:
        if subscribers.get(t):
            given[min(subscribers[t], key=lambda m: len(given[m]))].append((t, i))
    return given


def previous_assignment(choose: Chooser, problem: Problem, *, balanced: bool) -> Assignment:
    """A plausible previous round's output for `problem`'s members, meant to be fed back as claims: every
    claim valid, one owner per partition; balanced (a least-loaded deal in a random order) or each partition to
    a random subscriber or to nobody (its owner left, or it is new)."""
    ids = sorted(problem.member_ids)
    subs = [next(m.subscription for m in problem.members if m.member_id == i) for i in ids]
    claims = previous_claims(choose, dict(problem.topics), ids, subs, balanced=balanced)
    return Assignment.of({m: [(t, i) for t, idx in c.items() for i in idx] for m, c in zip(ids, claims)})


def previous_claims(choose: Chooser, topics: dict[str, int], ids: Sequence[str], subs: Sequence[frozenset[str]],
                    *, balanced: bool) -> list[dict[str, list[int]]]:
    """`previous_assignment` as claims per member (in `ids` order)."""
    subscribers = {t: [m for m, s in zip(ids, subs) if t in s] for t in sorted(topics)}
    pairs = [(t, i) for t in sorted(topics) for i in range(topics[t]) if subscribers[t]]
    if balanced:
        given = deal_least_loaded(choose.permutation(pairs), subscribers, ids)
    else:
        given = {m: [] for m in ids}
        for t, i in pairs:
            owner = choose.pick([None, *subscribers[t]])
            if owner is not None:
                given[owner].append((t, i))
    claims: list[dict[str, list[int]]] = []
    for m in ids:
        mine: dict[str, list[int]] = {}
        for t, i in given[m]:
            mine.setdefault(t, []).append(i)
        claims.append(mine)
    return claims


def partition_racks(choose: Chooser, topics: dict[str, int]) -> dict[str, tuple[frozenset[str], ...]]:
    """Replica racks per partition (KIP-881); sometimes every partition has the same rack set (the case in
    which Kafka turns rack-aware assignment off), and sometimes one topic's racks are not known at all."""
    if choose.coin(0.2):
        same = choose.subset(RACKS, 1)
        out = {t: (same,) * n for t, n in topics.items()}
    else:
        out = {t: tuple(choose.subset(RACKS) for _ in range(n)) for t, n in topics.items()}
    unknown = choose.pick([None, *sorted(topics)]) if topics and choose.coin(0.2) else None
    return {t: r for t, r in out.items() if t != unknown}


def lag_info(choose: Chooser, topics: dict[str, int], max_offset: int = 100) -> LagInfo:
    """Offsets per partition: begin <= end, committed absent (3 times in 10) or anywhere (below begin, inside, past
    end). Each partition's three offsets are the digits of one drawn number: a draw costs the same whatever its
    range, and draws per partition were most of a lag problem's draws. 0 still means the simplest offsets (begin 0,
    end = begin, no commit)."""
    digit = max_offset + 1
    committed_values = 2 * max_offset + 21  # 0 .. 2 * max_offset + 20
    absent = committed_values * 3 // 7  # the lowest third digits: no commit
    offsets = {}
    for t, n in topics.items():
        drawn = np.array([choose.integer(0, digit * digit * (absent + committed_values) - 1) for _ in range(n)],
                         dtype=np.int64)
        begin, span, third = drawn % digit, drawn // digit % digit, drawn // (digit * digit)
        offsets[t] = TopicOffsets(begin, begin + span, np.where(third < absent, -1, third - absent))
    return LagInfo(offsets, choose.pick(("latest", "earliest")))


# ---- junk claims ----------------------------------------------------------------------------------------

# A junk kind's builder: adds its claim to the members' claims (and generations) in place.
JunkBuilder = Callable[[Chooser, list[dict[str, list[int]]], list[int], Sequence[frozenset[str]], dict[str, int]], None]


def add_junk_claim(choose: Chooser, kind: str, owned: list[dict[str, list[int]]], gens: list[int],
                   subs: Sequence[frozenset[str]], topics: dict[str, int], *, generations: bool = True) -> None:
    """Add one junk claim of `kind` to the members' claims (in place); a kind the problem cannot express
    (no second member, no unsubscribed topic, all generations unknown) is skipped."""
    if kind not in JUNK_KINDS:
        raise ValueError(f"unknown junk kind {kind!r}")
    if owned and not (kind == "double_claim_other_generation" and not generations):
        _JUNK[kind](choose, owned, gens, subs, topics)


def _unknown_topic(choose: Chooser, owned: list[dict[str, list[int]]], *_: object) -> None:
    owned[choose.integer(0, len(owned) - 1)].setdefault(ABSENT_TOPIC, []).append(choose.integer(0, 3))


def _bad_index(negative: bool) -> JunkBuilder:
    def add(choose: Chooser, owned: list[dict[str, list[int]]], _g: object, _s: object, topics: dict[str, int]
            ) -> None:
        if topics:
            m, t = choose.integer(0, len(owned) - 1), choose.pick(sorted(topics))
            index = choose.pick((-1, -2, INT32_MIN)) if negative else topics[t] + choose.integer(0, 3)
            owned[m].setdefault(t, []).append(index)

    return add


def _existing(topics: dict[str, int]) -> list[str]:
    return [t for t, c in topics.items() if c > 0]


def _unsubscribed(choose: Chooser, owned: list[dict[str, list[int]]], _g: object, subs: Sequence[frozenset[str]],
                  topics: dict[str, int]) -> None:
    options = [(m, t) for m in range(len(owned)) for t in _existing(topics) if t not in subs[m]]
    if options:
        m, t = choose.pick(options)
        owned[m].setdefault(t, []).append(choose.integer(0, topics[t] - 1))


def _repeated(choose: Chooser, owned: list[dict[str, list[int]]], _g: object, _s: object,
              topics: dict[str, int]) -> None:
    m = choose.integer(0, len(owned) - 1)
    claims = [(t, i) for t, idx in owned[m].items() for i in idx]
    if claims:
        t, i = choose.pick(claims)
        owned[m][t].append(i)
    elif _existing(topics):
        t = choose.pick(_existing(topics))
        i = choose.integer(0, topics[t] - 1)
        owned[m].setdefault(t, []).extend([i, i])


def _double_claim(same_generation: bool) -> JunkBuilder:
    def add(choose: Chooser, owned: list[dict[str, list[int]]], gens: list[int], subs: Sequence[frozenset[str]],
            topics: dict[str, int]) -> None:
        n, existing = len(owned), _existing(topics)
        if n < 2 or not existing:
            return
        a = choose.integer(0, n - 1)
        b = choose.pick([x for x in range(n) if x != a])
        # Prefer a topic both claimants subscribe to: only then does rule 4 of valid_owned decide.
        t = choose.pick([t for t in existing if t in subs[a] & subs[b]] or existing)
        i = choose.integer(0, topics[t] - 1)
        for m in (a, b):
            if i not in owned[m].get(t, []):
                owned[m].setdefault(t, []).append(i)
        gens[b] = gens[a] if same_generation else gens[a] + choose.integer(1, 2)

    return add


_JUNK: dict[str, JunkBuilder] = {
    "unknown_topic": _unknown_topic, "out_of_range": _bad_index(False), "negative_index": _bad_index(True),
    "unsubscribed_topic": _unsubscribed, "repeated": _repeated,
    "double_claim_same_generation": _double_claim(True), "double_claim_other_generation": _double_claim(False),
}


# ---- Streams task problems ------------------------------------------------------------------------------


def add_streams_junk(choose: Chooser, kind: str, active: list[dict[str, list[int]]],
                     standby: list[dict[str, list[int]]], subtopologies: dict[str, int]) -> None:
    """Add one junk task claim of `kind` (in place), as `add_junk_claim` does for consumers."""
    n = len(active)
    c, s = choose.integer(0, n - 1), choose.pick(sorted(subtopologies))
    task = choose.integer(0, subtopologies[s] - 1)
    if kind == "unknown_subtopology":
        active[c].setdefault("gone", []).append(task)
    elif kind == "out_of_range":
        active[c].setdefault(s, []).append(subtopologies[s] + choose.integer(0, 3))
    elif kind == "negative_index":
        standby[c].setdefault(s, []).append(choose.pick((-1, INT32_MIN)))
    elif kind == "repeated":
        active[c].setdefault(s, []).extend([task, task])
    elif kind == "double_active" and n >= 2:
        other = choose.pick([x for x in range(n) if x != c])
        for x in (c, other):
            active[x].setdefault(s, []).append(task)
    elif kind == "active_and_standby":
        active[c].setdefault(s, []).append(task)
        standby[c].setdefault(s, []).append(task)


def streams_problem(choose: Chooser, *, min_clients: int = 1, max_clients: int = 6, max_subtopologies: int = 3,
                    max_tasks: int = 8, max_capacity: int = 4, claims: Claims = "junk",
                    max_standbys: int = 1, inputs: bool = True) -> StreamsProblem:
    """A Streams task problem: clients of capacity 1..max_capacity, previous actives (at most one client per
    task) and up to `max_standbys` standbys per task (never on its active client); "junk" adds up to four junk
    task claims. With `inputs`, sometimes what clients report too (`streams_inputs`), drawn after all the rest,
    so that every other field is what the same draws gave without it."""
    from assigncheck.spec.features import STREAMS_JUNK_KINDS

    subtopologies = {f"s{i}": choose.integer(1, max_tasks) for i in range(choose.integer(1, max_subtopologies))}
    n = choose.integer(min_clients, max_clients)
    capacities = [choose.integer(1, max_capacity) for _ in range(n)]
    active: list[dict[str, list[int]]] = [{} for _ in range(n)]
    standby: list[dict[str, list[int]]] = [{} for _ in range(n)]
    mode = claims if claims != "any" else choose.pick(("none", "valid", "junk"))
    if mode != "none":
        for s, count in subtopologies.items():
            for task in range(count):
                owner = choose.pick((None, *range(n)))
                if owner is not None:
                    active[owner].setdefault(s, []).append(task)
                others = [c for c in range(n) if c != owner]
                for c in choose.permutation(others)[: choose.integer(0, min(max_standbys, len(others)))]:
                    standby[c].setdefault(s, []).append(task)
    if mode == "junk":
        for _ in range(choose.integer(0, 4)):
            add_streams_junk(choose, choose.pick(STREAMS_JUNK_KINDS), active, standby, subtopologies)
    clients = tuple(Client(f"c{j}", capacities[j], partitions_of(active[j]), partitions_of(standby[j]))
                    for j in range(n))
    problem = StreamsProblem(subtopologies, clients, num_standby_replicas=choose.integer(0, 2),
                             stateless=choose.subset(sorted(subtopologies)) if choose.coin(0.3) else frozenset())
    return streams_inputs(choose, problem) if inputs and choose.coin(0.4) else problem


# Lags around the acceptable recovery lags below: caught up, within, just past, far behind.
STREAMS_LAGS = (0, 0, 50, 100, 101, 9_999, 10_000, 10_001, 1_000_000)
STREAMS_TAG_KEYS = ("zone", "cluster")


def streams_inputs(choose: Chooser, problem: StreamsProblem) -> StreamsProblem:
    """`problem` with what its clients report, each part sometimes: lags for some of each client's stateful
    tasks (`STREAMS_LAGS`), rack ids (racks r0..r2), client tags (values a..c) under one or two keys every client
    sets, and the configs that read them: `acceptable_recovery_lag` (0, 100 or 10000) and
    `rack_aware_assignment_tags` (some of those keys)."""
    stateful = [(s, i) for s, n in problem.subtopologies.items() if problem.stateful(s) for i in range(n)]
    lags = choose.coin(0.7)
    racks = choose.coin(0.5)
    keys = sorted(choose.subset(STREAMS_TAG_KEYS, min_size=1)) if choose.coin(0.5) else []
    clients = tuple(
        replace(c,
                lags={t: choose.pick(STREAMS_LAGS) for t in stateful if choose.coin(0.5)} if lags else {},
                rack=f"r{choose.integer(0, 2)}" if racks and choose.coin(0.9) else None,
                client_tags={k: choose.pick(("a", "b", "c")) for k in keys})
        for c in problem.clients)
    return replace(problem, clients=clients,
                   acceptable_recovery_lag=choose.pick((0, 100, 10_000)) if choose.coin(0.5) else None,
                   rack_aware_assignment_tags=tuple(sorted(choose.subset(keys))) if keys else ())


# ---- membership changes -----------------------------------------------------------------------------------


def fresh_member_id(history: Sequence[Problem]) -> str:
    """The first `c<k>` no member has ever used: Kafka hands a joining member a new id."""
    seen = {m.member_id for p in history for m in p.members}
    k = 0
    while f"c{k}" in seen:
        k += 1
    return f"c{k}"


def fitting_step_kinds(problem: Problem, history: Sequence[Problem], kinds: Sequence[str] = STEP_KINDS) -> list[str]:
    """The step kinds that fit: leaves keep one member, deletes keep one topic, rejoins need a past."""
    n = len(problem.members)
    return [
        k for k in kinds
        if k in ("join", "add_partitions")
        or (k == "leave" and n >= 2)
        or (k == "subscribe" and n >= 1)
        or (k == "delete_topic" and len(problem.topics) >= 2)
        or (k == "rejoin_stale" and len(history) >= 2)
    ]


def random_step(choose: Chooser, problem: Problem, history: Sequence[Problem], kinds: Sequence[str] = STEP_KINDS
                ) -> Step:
    """One membership or metadata change that fits `problem` (`history` as in `generate.scenario.apply_step`).
    New subscriptions may name `gone`; adding partitions to `gone` creates it."""
    possible = fitting_step_kinds(problem, history, kinds)
    if not possible:
        raise ValueError(f"no step of kinds {list(kinds)} fits this problem")
    kind = choose.pick(possible)
    pool = sorted(set(problem.topics) | {ABSENT_TOPIC})
    ids = sorted(problem.member_ids)
    if kind == "join":
        rack = choose.pick((None, *RACKS)) if problem.partition_racks is not None else None
        return Join(Member(fresh_member_id(history), choose.subset(pool, 1), rack=rack))
    if kind == "leave":
        return Leave(choose.pick(ids))
    if kind == "subscribe":
        return Subscribe(choose.pick(ids), choose.subset(pool))
    if kind == "add_partitions":
        topic = choose.pick(pool)
        return AddPartitions(topic, problem.topics.get(topic, 0) + choose.integer(1, 4))
    if kind == "delete_topic":
        return DeleteTopic(choose.pick(sorted(problem.topics)))
    rounds_back = choose.integer(1, len(history) - 1)
    source = history[-1 - rounds_back]
    return RejoinStale(choose.pick(sorted(set(ids) | set(source.member_ids))), rounds_back)

__all__ = [
    "SeededChooser", "Space", "T", "add_junk_claim", "fitting_step_kinds", "lag_info", "partition_racks",
    "previous_assignment", "previous_claims", "problem", "random_step", "STREAMS_LAGS", "STREAMS_TAG_KEYS",
    "streams_inputs", "streams_problem"
]
