"""The shapes generated problems take, shared by the hypothesis strategies and the seeded generators.

Both draw their randomness through a `Chooser` (hypothesis's `draw` in `spec.strategies`, a seeded
`random.Random` in `spec.generators`), so junk claims and membership changes are made by one piece of
code, and `shapes(problem)` recognises, from the problem alone, what a problem exercises.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from .model import INT32_MIN, Member, Problem, StreamsProblem, iter_pairs
from .scenario import STEP_KINDS, AddPartitions, DeleteTopic, Join, Leave, RejoinStale, Step, Subscribe

JUNK_KINDS = (
    "unknown_topic",  # a claim on a topic missing from the metadata
    "out_of_range",  # index >= partition count
    "negative_index",
    "unsubscribed_topic",  # a claim on an existing topic the member does not subscribe to
    "repeated",  # a member lists one partition twice
    "double_claim_same_generation",  # two members claim one partition at the same generation
    "double_claim_other_generation",  # ... at different generations
)
STREAMS_JUNK_KINDS = (
    "unknown_subtopology",
    "out_of_range",
    "negative_index",
    "repeated",
    "double_active",  # two clients claim one task as active
    "active_and_standby",  # one client lists a task both as active and as standby
)
RACKS = ("r0", "r1", "r2")
ABSENT_TOPIC = "gone"  # subscribed or claimed by members, never in the metadata

T = TypeVar("T")


class Chooser(Protocol):
    """A source of choices. Implementations shrink (hypothesis) or replay from a seed (random)."""

    def pick(self, options: Sequence[T]) -> T: ...

    def integer(self, lo: int, hi: int) -> int: ...

    def subset(self, options: Sequence[str], min_size: int = 0) -> frozenset[str]: ...


def deal_least_loaded(
    pairs: Sequence[tuple[str, int]], subscribers: dict[str, list[str]], members: Sequence[str]
) -> dict[str, list[tuple[str, int]]]:
    """Each partition, in the given order, to its least-loaded subscriber (ties: earlier in `subscribers`):
    a random balanced previous assignment when `pairs` is shuffled."""
    given: dict[str, list[tuple[str, int]]] = {m: [] for m in members}
    for t, i in pairs:
        if subscribers.get(t):
            given[min(subscribers[t], key=lambda m: len(given[m]))].append((t, i))
    return given


def add_junk_claim(
    choose: Chooser,
    kind: str,
    owned: list[dict[str, list[int]]],
    gens: list[int],
    subs: Sequence[frozenset[str]],
    topic_counts: dict[str, int],
    *,
    generations: bool = True,
) -> None:
    """Add one junk claim of `kind` to the members' claims (in place); a kind the problem cannot
    express (no second member, no unsubscribed topic, all generations unknown) is skipped."""
    n = len(owned)
    existing = [t for t, c in topic_counts.items() if c > 0]
    if n == 0:
        return
    if kind == "unknown_topic":
        owned[choose.integer(0, n - 1)].setdefault(ABSENT_TOPIC, []).append(choose.integer(0, 3))
    elif kind in ("out_of_range", "negative_index") and topic_counts:
        m, t = choose.integer(0, n - 1), choose.pick(sorted(topic_counts))
        if kind == "out_of_range":
            index = topic_counts[t] + choose.integer(0, 3)
        else:
            index = choose.pick((-1, -2, INT32_MIN))
        owned[m].setdefault(t, []).append(index)
    elif kind == "unsubscribed_topic":
        options = [(m, t) for m in range(n) for t in existing if t not in subs[m]]
        if options:
            m, t = choose.pick(options)
            owned[m].setdefault(t, []).append(choose.integer(0, topic_counts[t] - 1))
    elif kind == "repeated":
        m = choose.integer(0, n - 1)
        claims = [(t, i) for t, idx in owned[m].items() for i in idx]
        if claims:
            t, i = choose.pick(claims)
            owned[m][t].append(i)
        elif existing:
            t = choose.pick(existing)
            i = choose.integer(0, topic_counts[t] - 1)
            owned[m].setdefault(t, []).extend([i, i])
    elif kind.startswith("double_claim") and n >= 2 and existing:
        if kind == "double_claim_other_generation" and not generations:
            return
        a = choose.integer(0, n - 1)
        b = choose.pick([x for x in range(n) if x != a])
        # Prefer a topic both claimants subscribe to: only then does rule 4 of valid_owned decide.
        shared = [t for t in existing if t in subs[a] & subs[b]]
        t = choose.pick(shared or existing)
        i = choose.integer(0, topic_counts[t] - 1)
        for m in (a, b):
            if i not in owned[m].get(t, []):
                owned[m].setdefault(t, []).append(i)
        gens[b] = gens[a] if kind == "double_claim_same_generation" else gens[a] + choose.integer(1, 2)
    elif kind not in JUNK_KINDS:
        raise ValueError(f"unknown junk kind {kind!r}")


def add_streams_junk(
    choose: Chooser,
    kind: str,
    active: list[dict[str, list[int]]],
    standby: list[dict[str, list[int]]],
    subtopologies: dict[str, int],
) -> None:
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


def random_step(
    choose: Chooser, problem: Problem, history: Sequence[Problem], kinds: Sequence[str] = STEP_KINDS
) -> Step:
    """One membership or metadata change that fits `problem` (`history` as in `spec.scenario.apply_step`).
    New subscriptions may name `gone`; adding partitions to `gone` creates it."""
    possible = fitting_step_kinds(problem, history, kinds)
    if not possible:
        raise ValueError(f"no step of kinds {list(kinds)} fits this problem")
    kind = choose.pick(possible)
    pool = sorted(set(problem.topics) | {ABSENT_TOPIC})
    ids = sorted(problem.member_ids)
    if kind == "join":
        rack = choose.pick((None,) + RACKS) if problem.partition_racks is not None else None
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


# ---- what a problem exercises ----------------------------------------------------------------------------


def shapes(problem: Problem) -> frozenset[str]:
    """The shapes a consumer problem exercises: each kind of `JUNK_KINDS` it contains, and
    `unknown_generation`, `mixed_generations`, `equal_subscriptions`/`unequal_subscriptions`,
    `absent_subscribed_topic`, `empty_subscription`, `no_members`, `empty_topic`, `static`, `member_racks`,
    `racks`, `cooperative`,
    `lag`, `lag_no_commit`, `lag_committed_past_end`, `lag_committed_before_begin`, `earliest`, `latest`."""
    found: set[str] = set()
    valid_claims: dict[tuple[str, int], list[int]] = {}  # rules 1-3 of valid_owned -> claimant generations
    for m in problem.members:
        seen: set[tuple[str, int]] = set()
        for t, i in iter_pairs(m.owned):
            n = problem.topics.get(t)
            if n is None:
                found.add("unknown_topic")
            elif i < 0:
                found.add("negative_index")
            elif i >= n:
                found.add("out_of_range")
            elif t not in m.subscription:
                found.add("unsubscribed_topic")
            if (t, i) in seen:
                found.add("repeated")
            elif n is not None and 0 <= i < n and t in m.subscription:
                valid_claims.setdefault((t, i), []).append(m.generation)
            seen.add((t, i))
        if any(t not in problem.topics for t in m.subscription):
            found.add("absent_subscribed_topic")
        if not m.subscription:
            found.add("empty_subscription")
    for gens in valid_claims.values():
        if len(gens) >= 2:
            found.add("double_claim_same_generation" if len(set(gens)) < len(gens) else "double_claim_other_generation")
    if not problem.members:
        found.add("no_members")
    if any(n == 0 for n in problem.topics.values()):
        found.add("empty_topic")
    generations = {m.generation for m in problem.members}
    if -1 in generations:
        found.add("unknown_generation")
    if len(generations) >= 2:
        found.add("mixed_generations")
    found.add("equal_subscriptions" if problem.subscriptions_equal() else "unequal_subscriptions")
    if any(m.instance_id is not None for m in problem.members):
        found.add("static")
    if any(m.rack is not None for m in problem.members):
        found.add("member_racks")
    if problem.partition_racks is not None:
        found.add("racks")
    if problem.protocol == "cooperative":
        found.add("cooperative")
    if problem.lag is not None:
        found.update(("lag", problem.lag.auto_offset_reset))
        for o in problem.lag.offsets.values():
            has = o.committed >= 0
            if (~has).any():
                found.add("lag_no_commit")
            if (has & (o.committed > o.end)).any():
                found.add("lag_committed_past_end")
            if (has & (o.committed < o.begin)).any():
                found.add("lag_committed_before_begin")
    return frozenset(found)


def streams_shapes(problem: StreamsProblem) -> frozenset[str]:
    """The kinds of `STREAMS_JUNK_KINDS` a Streams problem contains, plus `standby` and `capacity_over_1`."""
    found: set[str] = set()
    owners: dict[tuple[str, int], int] = {}
    for c in problem.clients:
        if c.capacity > 1:
            found.add("capacity_over_1")
        actives = set(iter_pairs(c.active))
        for role, parts in (("active", c.active), ("standby", c.standby)):
            pairs = list(iter_pairs(parts))
            if len(set(pairs)) < len(pairs):
                found.add("repeated")
            for s, i in pairs:
                n = problem.subtopologies.get(s)
                if n is None:
                    found.add("unknown_subtopology")
                elif i < 0:
                    found.add("negative_index")
                elif i >= n:
                    found.add("out_of_range")
                if role == "standby":
                    found.add("standby")
                    if (s, i) in actives:
                        found.add("active_and_standby")
        for task in actives:
            owners[task] = owners.get(task, 0) + 1
    if any(k >= 2 and 0 <= i < problem.subtopologies.get(s, 0) for (s, i), k in owners.items()):
        found.add("double_active")
    return frozenset(found)
