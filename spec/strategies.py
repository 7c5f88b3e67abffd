"""Hypothesis strategies for assignment problems, in hypothesis's own style.

Every strategy is keyword-configurable, composes with the others, and shrinks toward the simplest
problem: fewer members and topics, fewer partitions, equal subscriptions, no claims, generation -1,
no racks, no static members, eager protocol. Names are `t0, t1, ...` (topics), `c0, c1, ...`
(members), `s0, ...` (sub-topologies), `i0, ...` (instance ids), `r0..r2` (racks); `gone` is a topic
that members may subscribe to or claim but that is never in the metadata.

    problems()                      any consumer problem, junk claims included
    problems(claims="valid", equal_subscriptions=True, protocol="cooperative")
    sticky_rounds()                 a balanced previous assignment fed back, then one membership change
    scenarios(max_steps=3)          a `spec.scenario.Scenario`
    streams_problems()              a Streams task problem

`shapes(problem)` names what a problem exercises (each junk claim kind, racks, static members, ...);
tests and campaigns use it to show that the generators reach every shape they promise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from .model import (
    Assignment,
    Client,
    LagInfo,
    Member,
    Problem,
    StreamsProblem,
    TopicOffsets,
    partitions_of,
)
from .rounds import next_round
from .scenario import STEP_KINDS, Scenario, Step, apply_step
from .shapes import (
    ABSENT_TOPIC,
    JUNK_KINDS,
    RACKS,
    STREAMS_JUNK_KINDS,
    T,
    add_junk_claim,
    add_streams_junk,
    deal_least_loaded,
    fitting_step_kinds,
    random_step,
    shapes,
    streams_shapes,
)

__all__ = [
    "ABSENT_TOPIC", "JUNK_KINDS", "RACKS", "STREAMS_JUNK_KINDS", "lag_infos", "partition_racks",
    "previous_assignments", "problems", "scenarios", "shapes", "steps", "sticky_rounds", "streams_problems",
    "streams_shapes", "topics",
]

Claims = Literal["none", "valid", "junk"]


class _Draws:
    """`spec.shapes.Chooser` over hypothesis draws, so shared choices shrink like any other."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def pick(self, options: Sequence[T]) -> T:
        return self.draw(st.sampled_from(options))

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def subset(self, options: Sequence[str], min_size: int = 0) -> frozenset[str]:
        return self.draw(st.frozensets(st.sampled_from(options), min_size=min_size))


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise InvalidArgument(message)


def _check_tristate(value: object, name: str) -> None:
    _check(value in (True, False, None), f"{name} must be True, False or None, got {value!r}")


# ---- topics and subscriptions ----------------------------------------------------------------------------


def topics(
    *, min_topics: int = 1, max_topics: int = 4, min_partitions: int = 1, max_partitions: int = 8
) -> st.SearchStrategy[dict[str, int]]:
    """Topic metadata `{"t0": n0, "t1": n1, ...}` with `min_partitions <= n <= max_partitions`."""
    _check(0 <= min_topics <= max_topics, "need 0 <= min_topics <= max_topics")
    _check(0 <= min_partitions <= max_partitions, "need 0 <= min_partitions <= max_partitions")
    counts = st.lists(st.integers(min_partitions, max_partitions), min_size=min_topics, max_size=max_topics)
    return counts.map(lambda ns: {f"t{i}": n for i, n in enumerate(ns)})


@st.composite
def _subscriptions(
    draw: st.DrawFn, pool: Sequence[str], n: int, equal: bool | None
) -> tuple[frozenset[str], ...]:
    if not pool:
        return (frozenset(),) * n
    if equal is None:
        equal = draw(st.sampled_from((True, False)))
    if equal:
        return (draw(st.frozensets(st.sampled_from(pool), min_size=1)),) * n
    subs = draw(st.lists(st.frozensets(st.sampled_from(pool)), min_size=n, max_size=n))
    if n >= 2 and len(set(subs)) == 1:  # promised unequal: make the last one differ
        subs[-1] = subs[-1] ^ {pool[0]}
    return tuple(subs)


# ---- claims ---------------------------------------------------------------------------------------------


@st.composite
def previous_assignments(draw: st.DrawFn, problem: Problem, *, balanced: bool | None = None) -> Assignment:
    """A plausible previous round's output for `problem`'s members, meant to be fed back as claims.

    Every claim is valid (an existing partition of a subscribed topic, one owner per partition).
    `balanced=True`: every partition goes, in a drawn order, to its least-loaded subscriber (a random
    balanced assignment). `balanced=False`: each partition goes to a drawn subscriber or to nobody (the
    owner left, or the partition is new); this shrinks to no claims at all.
    """
    _check_tristate(balanced, "balanced")
    if balanced is None:
        balanced = draw(st.sampled_from((False, True)))
    members = sorted(problem.members, key=lambda m: m.member_id)
    pairs = [(t, i) for t in problem.subscribed_topics() for i in range(problem.topics[t])]
    subscribers = {t: [m.member_id for m in members if t in m.subscription] for t in problem.subscribed_topics()}
    ids = [m.member_id for m in members]
    if balanced:
        return Assignment.of(deal_least_loaded(draw(st.permutations(pairs)), subscribers, ids))
    given: dict[str, list[tuple[str, int]]] = {m: [] for m in ids}
    for t in problem.subscribed_topics():
        n = problem.topics[t]
        for i, owner in enumerate(draw(st.lists(st.sampled_from([None] + subscribers[t]), min_size=n, max_size=n))):
            if owner is not None:
                given[owner].append((t, i))
    return Assignment.of(given)


# ---- racks and lag ----------------------------------------------------------------------------------------


@st.composite
def partition_racks(draw: st.DrawFn, topic_counts: dict[str, int]) -> dict[str, tuple[frozenset[str], ...]]:
    """Replica racks per partition (KIP-881); sometimes every partition has the same rack set, the case
    in which Kafka turns rack-aware assignment off, and sometimes a topic's racks are not known at all."""
    if draw(st.booleans()):
        same = draw(st.frozensets(st.sampled_from(RACKS), min_size=1))
        out = {t: (same,) * n for t, n in topic_counts.items()}
    else:
        racks = st.frozensets(st.sampled_from(RACKS))
        out = {t: tuple(draw(st.lists(racks, min_size=n, max_size=n))) for t, n in topic_counts.items()}
    unknown = draw(st.sets(st.sampled_from(sorted(topic_counts)), max_size=1)) if topic_counts else set()
    return {t: r for t, r in out.items() if t not in unknown}


@st.composite
def lag_infos(draw: st.DrawFn, topic_counts: dict[str, int], *, max_offset: int = 100) -> LagInfo:
    """Offsets per partition: begin <= end, committed absent or anywhere (below begin, past end)."""
    # (begin, end - begin, committed): committed ranges over [0, 2 * max_offset + 20], so it lands below
    # begin, inside, and past end.
    partition = st.tuples(
        st.integers(0, max_offset),
        st.integers(0, max_offset),
        st.one_of(st.none(), st.integers(0, 2 * max_offset + 20)),
    )
    offsets = {}
    for t, n in topic_counts.items():
        rows = draw(st.lists(partition, min_size=n, max_size=n))
        offsets[t] = TopicOffsets(
            np.array([b for b, _, _ in rows], dtype=np.int64).reshape(-1),
            np.array([b + d for b, d, _ in rows], dtype=np.int64).reshape(-1),
            np.array([-1 if c is None else c for _, _, c in rows], dtype=np.int64).reshape(-1),
        )
    return LagInfo(offsets, draw(st.sampled_from(("latest", "earliest"))))


# ---- problems --------------------------------------------------------------------------------------------


def problems(
    *,
    min_members: int = 1,
    max_members: int = 8,
    min_topics: int = 1,
    max_topics: int = 4,
    max_partitions_per_topic: int = 8,
    min_partitions_per_topic: int = 1,
    equal_subscriptions: bool | None = None,
    claims: Claims = "junk",
    generations: bool = True,
    racks: bool | None = False,
    static_members: bool = True,
    protocol: Literal["eager", "cooperative"] | None = None,
    lag: bool | None = False,
    absent_topics: bool = True,
    co_partitioned: bool = False,
) -> st.SearchStrategy[Problem]:
    """Consumer problems (`min_partitions_per_topic=0` allows empty topics).

    - equal_subscriptions: True (one shared set), False (independent sets, at least two differ when
      there are two members), None (either).
    - claims: "none"; "valid" (a plausible previous round's output, see `previous_assignments`);
      "junk" (that, plus up to four junk claims of the kinds in `JUNK_KINDS`).
    - generations: members get -1, the current generation or an older one; False: all -1.
    - racks: member racks and per-partition replica racks (None: sometimes).
    - static_members: some members get a `group.instance.id` (ordered differently from member ids).
    - protocol: "eager", "cooperative" or None (either).
    - lag: offsets for the lag-based assignor (None: sometimes).
    - absent_topics: subscriptions may name `gone`, a topic missing from the metadata.
    - co_partitioned: every topic has the same partition count (at least two topics when `max_topics`
      allows), the shape KIP-881's rack-aware range assigns partition by partition across topics.
    """
    _check(0 <= min_members <= max_members, "need 0 <= min_members <= max_members")
    _check(claims in ("none", "valid", "junk"), f"claims must be 'none', 'valid' or 'junk', got {claims!r}")
    _check(protocol in (None, "eager", "cooperative"), f"protocol must be eager, cooperative or None, got {protocol!r}")
    for name, value in (("equal_subscriptions", equal_subscriptions), ("racks", racks), ("lag", lag)):
        _check_tristate(value, name)
    return _problems(
        min_members, max_members, min_topics, max_topics, min_partitions_per_topic, max_partitions_per_topic,
        equal_subscriptions, claims, generations, racks, static_members, protocol, lag, absent_topics,
        co_partitioned,
    )


@st.composite
def _problems(
    draw: st.DrawFn, min_members: int, max_members: int, min_topics: int, max_topics: int, min_partitions: int,
    max_partitions: int, equal: bool | None, claims: Claims, generations: bool, racks: bool | None,
    static_members: bool, protocol: str | None, lag: bool | None, absent_topics: bool, co_partitioned: bool,
) -> Problem:
    topic_counts = draw(topics(
        min_topics=max(min_topics, min(2, max_topics)) if co_partitioned else min_topics, max_topics=max_topics,
        min_partitions=min_partitions, max_partitions=max_partitions,
    ))
    if co_partitioned:
        topic_counts = dict.fromkeys(topic_counts, next(iter(topic_counts.values()), 0))
    n = draw(st.integers(min_members, max_members))
    ids = [f"c{i}" for i in range(n)]
    pool = sorted(topic_counts) + ([ABSENT_TOPIC] if absent_topics else [])
    subs = draw(_subscriptions(pool, n, equal))

    instance_ids: list[str | None] = [None] * n
    if static_members and n:
        order = draw(st.permutations(range(n)))
        static = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        instance_ids = [f"i{order[j]}" if static[j] else None for j in range(n)]
    with_racks = draw(st.booleans()) if racks is None else racks
    member_racks = [None] * n
    if with_racks:
        member_racks = draw(st.lists(st.sampled_from((None,) + RACKS), min_size=n, max_size=n))

    skeleton = Problem(topic_counts, tuple(Member(m, s) for m, s in zip(ids, subs)))
    owned: list[dict[str, list[int]]] = [{} for _ in range(n)]
    if claims != "none" and n:
        previous = draw(previous_assignments(skeleton))
        owned = [{t: arr.tolist() for t, arr in previous.get(m).items()} for m in ids]
    gens = [-1] * n
    if generations:
        current = draw(st.integers(1, 5))
        # unknown (-1) first so that it shrinks there, then the current generation, then an older one
        age = st.one_of(st.just(-1), st.just(current), st.integers(0, current - 1))
        gens = draw(st.lists(age, min_size=n, max_size=n))
    if claims == "junk" and n:
        choose = _Draws(draw)
        for _ in range(draw(st.integers(0, 4))):
            kind = draw(st.sampled_from(JUNK_KINDS))
            add_junk_claim(choose, kind, owned, gens, subs, topic_counts, generations=generations)

    members = tuple(
        Member(ids[j], subs[j], partitions_of(owned[j]), gens[j], instance_ids[j], member_racks[j]) for j in range(n)
    )
    with_lag = draw(st.booleans()) if lag is None else lag
    return Problem(
        topics=topic_counts,
        members=members,
        protocol=draw(st.sampled_from(("eager", "cooperative"))) if protocol is None else protocol,
        partition_racks=draw(partition_racks(topic_counts)) if with_racks else None,
        lag=draw(lag_infos(topic_counts)) if with_lag else None,
    )


# ---- membership changes -----------------------------------------------------------------------------------


@st.composite
def steps(draw: st.DrawFn, problem: Problem, history: Sequence[Problem], *, kinds: Sequence[str] = STEP_KINDS) -> Step:
    """One membership or metadata change that fits `problem` (see `spec.shapes.random_step`)."""
    _check(bool(fitting_step_kinds(problem, history, kinds)), f"no step of kinds {list(kinds)} fits this problem")
    return random_step(_Draws(draw), problem, history, kinds)


@st.composite
def scenarios(
    draw: st.DrawFn,
    *,
    initial: st.SearchStrategy[Problem] | None = None,
    min_steps: int = 1,
    max_steps: int = 4,
    kinds: Sequence[str] = STEP_KINDS,
) -> Scenario:
    """A `Scenario`: an initial problem (default: `problems(max_members=6, claims="valid")`) and
    `min_steps..max_steps` changes, each fitting the group as it is at that point."""
    _check(0 <= min_steps <= max_steps, "need 0 <= min_steps <= max_steps")
    first = draw(initial if initial is not None else problems(max_members=6, claims="valid"))
    # Which members and topics exist never depends on the assignor: track them with empty outputs.
    history = [first, next_round(first, Assignment({}))]
    chosen: list[Step] = []
    for _ in range(draw(st.integers(min_steps, max_steps))):
        step = draw(steps(history[-1], history, kinds=kinds))
        chosen.append(step)
        history.append(next_round(apply_step(history[-1], step, history), Assignment({})))
    return Scenario(first, tuple(chosen))


@st.composite
def sticky_rounds(
    draw: st.DrawFn,
    *,
    min_members: int = 2,
    max_members: int = 8,
    max_topics: int = 4,
    max_partitions_per_topic: int = 8,
    equal_subscriptions: bool | None = None,
    protocol: Literal["eager", "cooperative"] | None = None,
    kinds: Sequence[str] = STEP_KINDS,
) -> Problem:
    """A realistic sticky rebalance: a random balanced assignment of a fresh problem, fed back with
    `next_round` (owned := it, generation 2), then one membership or metadata change. Generation 1 held
    another balanced assignment, so `rejoin_stale` sends claims that clash with generation 2's."""
    base = draw(problems(
        min_members=min_members, max_members=max_members, max_topics=max_topics,
        max_partitions_per_topic=max_partitions_per_topic, equal_subscriptions=equal_subscriptions,
        claims="none", generations=False, static_members=False, protocol=protocol, absent_topics=False,
    ))
    older = next_round(base, draw(previous_assignments(base, balanced=True)))
    fed = next_round(older, draw(previous_assignments(base, balanced=True)))
    history = [older, fed]
    return apply_step(fed, draw(steps(fed, history, kinds=kinds)), history)


# ---- Streams ---------------------------------------------------------------------------------------------


def streams_problems(
    *,
    min_clients: int = 1,
    max_clients: int = 6,
    max_subtopologies: int = 3,
    max_tasks_per_subtopology: int = 8,
    max_capacity: int = 4,
    claims: Claims = "junk",
) -> st.SearchStrategy[StreamsProblem]:
    """Streams task problems: clients with capacities 1..max_capacity, previous actives (at most one
    client per task) and standbys (never on the task's active client); "junk" adds up to four claims
    of the kinds in `STREAMS_JUNK_KINDS`."""
    _check(1 <= min_clients <= max_clients, "need 1 <= min_clients <= max_clients")
    _check(max_capacity >= 1, "max_capacity must be at least 1")
    _check(claims in ("none", "valid", "junk"), f"claims must be 'none', 'valid' or 'junk', got {claims!r}")
    return _streams_problems(min_clients, max_clients, max_subtopologies, max_tasks_per_subtopology, max_capacity,
                             claims)


@st.composite
def _streams_problems(
    draw: st.DrawFn, min_clients: int, max_clients: int, max_subtopologies: int, max_tasks: int,
    max_capacity: int, claims: Claims,
) -> StreamsProblem:
    counts = draw(st.lists(st.integers(1, max_tasks), min_size=1, max_size=max_subtopologies))
    subtopologies = {f"s{i}": n for i, n in enumerate(counts)}
    n = draw(st.integers(min_clients, max_clients))
    capacities = [draw(st.integers(1, max_capacity)) for _ in range(n)]
    active: list[dict[str, list[int]]] = [{} for _ in range(n)]
    standby: list[dict[str, list[int]]] = [{} for _ in range(n)]
    if claims != "none":
        for s, count in subtopologies.items():
            for task in range(count):
                owner = draw(st.sampled_from((None,) + tuple(range(n))))
                if owner is not None:
                    active[owner].setdefault(s, []).append(task)
                backup = draw(st.sampled_from((None,) + tuple(c for c in range(n) if c != owner)))
                if backup is not None:
                    standby[backup].setdefault(s, []).append(task)
    if claims == "junk":
        for _ in range(draw(st.integers(0, 4))):
            add_streams_junk(_Draws(draw), draw(st.sampled_from(STREAMS_JUNK_KINDS)), active, standby, subtopologies)
    clients = tuple(
        Client(f"c{j}", capacities[j], partitions_of(active[j]), partitions_of(standby[j])) for j in range(n)
    )
    return StreamsProblem(subtopologies, clients)
