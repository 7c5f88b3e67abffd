"""Hypothesis strategies for assignment problems, in hypothesis's own style.

Every strategy is keyword-configurable, composes with the others, and shrinks toward the simplest
problem: fewer members and topics, fewer partitions, equal subscriptions, no claims, generation -1,
no racks, no static members, eager protocol. Names are `t0, t1, ...` (topics), `c0, c1, ...`
(members), `s0, ...` (sub-topologies), `i0, ...` (instance ids), `r0..r2` (racks); `gone` is a topic
that members may subscribe to or claim but that is never in the metadata.

    problems()                      any consumer problem, junk claims included
    problems(claims="valid", equal_subscriptions=True, protocol="cooperative")
    sticky_rounds()                 a balanced previous assignment fed back, then one membership change
    scenarios(max_steps=3)          a `generate.scenario.Scenario`
    streams_problems()              a Streams task problem

`features(problem)` names what a problem exercises (each junk claim kind, racks, static members, ...);
tests and campaigns use it to show that the generators reach every feature they promise. The problems
themselves come from `generate.build`, the one builder the seeded generators share.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from assigncheck.generate import build
from assigncheck.generate.build import T, fitting_step_kinds, random_step
from assigncheck.generate.scenario import STEP_KINDS, Scenario, Step, apply_step
from assigncheck.spec.features import ABSENT_TOPIC, JUNK_KINDS, RACKS, STREAMS_JUNK_KINDS, features, streams_features
from assigncheck.spec.groups import coordinator_form
from assigncheck.spec.model import GROUP_TYPES, Assignment, GroupType, LagInfo, Problem, StreamsProblem
from assigncheck.spec.rounds import next_round

Claims = Literal["none", "valid", "junk"]


class _Draws:
    """`generate.build.Chooser` over hypothesis draws, so the builder's choices shrink like any other.

    Each strategy is made once per distinct argument and kept (`_made`): a new strategy object is validated on its
    first draw, and that validation, not the draw, was most of the properties stage's time (a problem's fifty
    or so draws cost about 9 ms; the check that follows, under 1 ms)."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def pick(self, options: Sequence[T]) -> T:
        return self.draw(_made(st.sampled_from, tuple(options)))

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(_made(st.integers, lo, hi))

    def subset(self, options: Sequence[str], min_size: int = 0) -> frozenset[str]:
        if not options:
            return frozenset()
        if len(options) > _MASK_BITS or min_size > 1:
            return self.draw(_made(_frozensets, tuple(options), min_size))
        # One integer as a bit mask: one draw, not one per element. It shrinks toward the fewest, earliest
        # options (0: none; 1: the first).
        mask = self.draw(_made(st.integers, min_size, (1 << len(options)) - 1))
        return frozenset(o for k, o in enumerate(options) if mask >> k & 1)

    def coin(self, p: float = 0.5) -> bool:
        return self.draw(_BOOLEANS)  # shrinks to False: the simpler problem

    def permutation(self, items: Sequence[T]) -> list[T]:
        return self.draw(_made(st.permutations, tuple(items)))


_BOOLEANS = st.booleans()
_MADE: dict[tuple, st.SearchStrategy] = {}
_MASK_BITS = 16  # a subset of at most this many options is one integer draw
_MOST_MADE = 4096  # distinct arguments kept; the builders' few shapes need far fewer


def _made(make: Callable[..., st.SearchStrategy[T]], *args: Any) -> st.SearchStrategy[T]:
    """`make(*args)`, the same object for the same arguments (validated once, on its first draw)."""
    key = (make, *args)
    made = _MADE.get(key)
    if made is None:
        if len(_MADE) >= _MOST_MADE:
            _MADE.clear()
        made = _MADE[key] = make(*args)
    return made


def _frozensets(options: tuple[str, ...], min_size: int) -> st.SearchStrategy[frozenset[str]]:
    return st.frozensets(st.sampled_from(options), min_size=min_size)


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise InvalidArgument(message)


def _check_tristate(value: object, name: str) -> None:
    _check(value in (True, False, None), f"{name} must be True, False or None, got {value!r}")


def topics(
    *, min_topics: int = 1, max_topics: int = 4, min_partitions: int = 1, max_partitions: int = 8
) -> st.SearchStrategy[dict[str, int]]:
    """Topic metadata `{"t0": n0, "t1": n1, ...}` with `min_partitions <= n <= max_partitions`."""
    _check(0 <= min_topics <= max_topics, "need 0 <= min_topics <= max_topics")
    _check(0 <= min_partitions <= max_partitions, "need 0 <= min_partitions <= max_partitions")
    counts = st.lists(st.integers(min_partitions, max_partitions), min_size=min_topics, max_size=max_topics)
    return counts.map(lambda ns: {f"t{i}": n for i, n in enumerate(ns)})


@st.composite
def previous_assignments(draw: st.DrawFn, problem: Problem, *, balanced: bool | None = None) -> Assignment:
    """A plausible previous round's output for `problem`'s members, meant to be fed back as claims.

    Every claim is valid (an existing partition of a subscribed topic, one owner per partition).
    `balanced=True`: every partition goes, in a drawn order, to its least-loaded subscriber (a random
    balanced assignment). `balanced=False`: each partition goes to a drawn subscriber or to nobody (the
    owner left, or the partition is new); this shrinks to no claims at all.
    """
    _check_tristate(balanced, "balanced")
    choose = _Draws(draw)
    return build.previous_assignment(choose, problem, balanced=choose.coin() if balanced is None else balanced)


@st.composite
def partition_racks(draw: st.DrawFn, topic_counts: dict[str, int]) -> dict[str, tuple[frozenset[str], ...]]:
    """Replica racks per partition (KIP-881), see `generate.build.partition_racks`."""
    return build.partition_racks(_Draws(draw), topic_counts)


@st.composite
def lag_infos(draw: st.DrawFn, topic_counts: dict[str, int], *, max_offset: int = 100) -> LagInfo:
    """Offsets per partition: begin <= end, committed absent or anywhere (below begin, past end)."""
    return build.lag_info(_Draws(draw), topic_counts, max_offset)


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
    group_type: GroupType = "classic",
) -> st.SearchStrategy[Problem]:
    """Consumer problems (`min_partitions_per_topic=0` allows empty topics); see `generate.build.Space`.

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
    - group_type: "consumer" (KIP-848) or "share" (KIP-932): each problem as that group's coordinator holds it
      (`spec.groups.coordinator_form`: the claims become a previous target assignment).
    """
    _check(0 <= min_members <= max_members, "need 0 <= min_members <= max_members")
    _check(0 <= min_topics <= max_topics, "need 0 <= min_topics <= max_topics")
    _check(0 <= min_partitions_per_topic <= max_partitions_per_topic,
           "need 0 <= min_partitions_per_topic <= max_partitions_per_topic")
    _check(claims in ("none", "valid", "junk"), f"claims must be 'none', 'valid' or 'junk', got {claims!r}")
    _check(protocol in (None, "eager", "cooperative"), f"protocol must be eager, cooperative or None, got {protocol!r}")
    for name, value in (("equal_subscriptions", equal_subscriptions), ("racks", racks), ("lag", lag)):
        _check_tristate(value, name)
    space = build.Space(min_members, max_members, min_topics, max_topics, min_partitions_per_topic,
                        max_partitions_per_topic, equal_subscriptions=equal_subscriptions, claims=claims,
                        generations=generations, racks=racks, static_members=static_members, protocol=protocol,
                        lag=lag, absent_topics=absent_topics, co_partitioned=co_partitioned)
    _check(group_type in GROUP_TYPES, f"group_type must be one of {', '.join(GROUP_TYPES)}, got {group_type!r}")
    return st.composite(lambda draw: coordinator_form(build.problem(_Draws(draw), space), group_type))()


# ---- membership changes -----------------------------------------------------------------------------------


@st.composite
def steps(draw: st.DrawFn, problem: Problem, history: Sequence[Problem], *, kinds: Sequence[str] = STEP_KINDS) -> Step:
    """One membership or metadata change that fits `problem` (see `generate.build.random_step`)."""
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
    return st.composite(lambda draw: build.streams_problem(
        _Draws(draw), min_clients=min_clients, max_clients=max_clients, max_subtopologies=max_subtopologies,
        max_tasks=max_tasks_per_subtopology, max_capacity=max_capacity, claims=claims))()

__all__ = [
    "ABSENT_TOPIC", "JUNK_KINDS", "RACKS", "STREAMS_JUNK_KINDS", "features", "lag_infos", "partition_racks",
    "previous_assignments", "problems", "scenarios", "steps", "sticky_rounds", "streams_features", "streams_problems",
    "topics"
]
