"""The two-phase constrained assignment (ALGORITHMS.md "sticky-constrained", impl/constrained.py) in plain
Python over an ownership map and keep order that a zoo entry chooses, so each constrained bug only states
what it gets wrong. Plain Python, not impl's array layout: the zoo must not break when impl's internals
change, and its problems are small."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.racks import rack_aware

Claims = Mapping[str, Mapping[str, Sequence[int]]]  # member id -> topic -> indices (sorted, unique)
Claim = tuple[str, int, int]  # (topic, index, rank of the index among the member's own of that topic)
# (valid claim counts in member order, f, c, r) -> who keeps the ceiling, one flag per member
KeepRule = Callable[[list[int], int, int, int], list[bool]]
# (who keeps the ceiling, r) -> who is dealt up to the ceiling
ExtraRule = Callable[[list[bool], int], list[bool]]


def rank_topic(claims: list[Claim]) -> list[Claim]:
    """The fixed keep order (KAFKA-16277): by (rank of the index among the member's own, topic)."""
    return sorted(claims, key=lambda c: (c[2], c[0]))


def first_r_holders(v: list[int], f: int, c: int, r: int) -> list[bool]:
    """Phase 1's rule: the first r members (M order) that hold at least c keep c."""
    flags, n_max = [], 0
    for count in v:
        flags.append(c > f and count >= c and n_max < r)
        n_max += flags[-1]
    return flags


def first_spare(at_max: list[bool], r: int) -> list[bool]:
    """Phase 2's rule: the first r - n_max members that did not keep the ceiling are dealt up to it."""
    flags, spare = [], r - sum(at_max)
    for big in at_max:
        flags.append(not big and spare > 0)
        spare -= flags[-1]
    return flags


def own_claims(problem: Problem) -> dict[str, dict[str, list[int]]]:
    """docs/SPEC.md §2, rules 1-3 only: existing partitions of subscribed topics, repeats dropped, no generations."""
    out: dict[str, dict[str, list[int]]] = {}
    for m in problem.members:
        mine = {}
        for topic, arr in m.owned.items():
            n = problem.topics.get(topic)
            if n is not None and topic in m.subscription:
                kept = sorted({int(i) for i in arr.tolist() if 0 <= i < n})
                if kept:
                    mine[topic] = kept
        out[m.member_id] = mine
    return out


def as_claims(owned: Mapping[str, Mapping[str, object]]) -> dict[str, dict[str, list[int]]]:
    """`valid_owned`'s result as plain lists."""
    return {m: {t: [int(i) for i in list(parts[t])] for t in parts} for m, parts in owned.items()}


def two_phase(problem: Problem, claims: Claims, *, keep_order: Callable[[list[Claim]], list[Claim]] = rank_topic,
              keeps_max: KeepRule = first_r_holders, extra: ExtraRule = first_spare) -> Assignment:
    """Phase 1 keeps a prefix of each member's claims in keep order, phase 2 deals the rest round-robin.
    A bug may replace the keep order or the rules choosing who keeps (`keeps_max`) or is dealt (`extra`)
    the ceiling. Claims may overlap across members: then the bug shows in the output."""
    members = sorted(m.member_id for m in problem.members)
    if not members:
        return Assignment({})
    if rack_aware(problem):  # the constrained assignor hands these to its rack-aware flow: the bugs are elsewhere
        from assigncheck.impl.constrained import general_sticky

        return general_sticky(problem)
    subscription = problem.member(members[0]).subscription
    topics = sorted(t for t in subscription if t in problem.topics)
    offset, total = {}, 0
    for t in topics:
        offset[t], total = total, total + problem.topics[t]
    f, r = divmod(total, len(members))
    c = f + (r > 0)
    lists = [keep_order([(t, i, rank) for t in sorted(claims.get(m, {}))
                         for rank, i in enumerate(claims[m][t])]) for m in members]
    v = [len(x) for x in lists]
    at_max = keeps_max(v, f, c, r)
    kept = [lst[: c if big else min(len(lst), f)] for lst, big in zip(lists, at_max)]
    taken = {offset[t] + i for lst in kept for t, i, _ in lst}  # a deleted topic has no offset: Kafka's NPE
    more = extra(at_max, r)
    need = [max((c if big or up else f) - len(k), 0) for k, big, up in zip(kept, at_max, more)]
    receivers = [j for lap in range(max(need, default=0)) for j in range(len(members)) if need[j] > lap]
    free = [(t, i) for t in topics for i in range(problem.topics[t]) if offset[t] + i not in taken]
    out: dict[str, list[tuple[str, int]]] = {m: [(t, i) for t, i, _ in k] for m, k in zip(members, kept)}
    for j, pair in zip(receivers, free):
        out[members[j]].append(pair)
    return Assignment.of(out)

