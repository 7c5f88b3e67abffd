"""Rack awareness (KIP-881) for the sticky assignors: when it applies, what a mismatch is, and how many.

**When** (`rack_aware`, Kafka's `AbstractPartitionAssignor.useRackAwareAssignment` over the subscribed
partitions): some member has a rack (a non-empty string), the members' racks intersect the racks of the
subscribed partitions' replicas, and not every subscribed partition has the same rack set (a partition of a
topic without rack information has the empty set). Otherwise racks change nothing.

**Mismatch** (Kafka's `racksMismatch`): a member with a rack holding a partition none of whose replicas is on
that rack. A member without a rack matches every partition.

**The rule** every sticky assignor promises (`Promises.racks`; docs/ALGORITHMS.md): in rack-aware problems,
among the assignments meeting its balance promise, the fewest mismatches; stickiness (retained) and per-topic
spread are then maximised among those. That is Kafka's order: its sticky builders drop a rack-mismatched owned
partition before anything else and hand partitions to rack-matching members first, but never give up balance
(`testUniformSubscriptionTransferOwnershipListIsRight`, `AbstractStickyAssignorTest`'s rack variants).
Partitions with the same topic and the same rack set are interchangeable; they form the oracle's groups.

**Two paths, one answer**: `racks_for` picks, per problem, `SMALL` (lists, for small problems:
`spec.small.views.is_small`, where numpy's per-call cost dominates) or `VECTORIZED` (arrays);
`tests/spec/small/test_racks.py` holds them equal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.partition_rows import assigned_rows, layout
from assigncheck.spec.small.views import is_small
from assigncheck.spec.violations import Violation


def member_rack(rack: str | None) -> str | None:
    """"" counts as no rack (as in the range assignor and Kafka's empty rackId)."""
    return rack or None


@dataclass(frozen=True)
class RackLayout:
    """Per global partition id (`spec.partition_rows.layout` numbering): its rack-set id; per member (problem
    order): its rack id (-1: none); `match[s, r]`: rack set s contains rack r."""

    aware: bool
    partition_set: np.ndarray
    member_rack: np.ndarray
    match: np.ndarray
    sets: tuple[frozenset[str], ...]

    def mismatch(self, member: np.ndarray, gid: np.ndarray) -> np.ndarray:
        """Per (member position, existing gid) row: does it mismatch (whether or not the problem is rack-aware)."""
        rack = self.member_rack[member]
        has = rack >= 0
        out = np.zeros(len(member), dtype=bool)
        out[has] = ~self.match[self.partition_set[gid[has]], rack[has]]
        return out


def rack_layout(problem: Problem) -> RackLayout:
    """Computed once per problem (`Problem.derived`)."""
    return problem.derived("rack_layout", _rack_layout)


def _rack_layout(problem: Problem) -> RackLayout:
    return racks_for(problem).layout(problem)


def _rack_layout_vectorized(problem: Problem) -> RackLayout:
    lay = layout(problem)
    racks = sorted({r for m in problem.members if (r := member_rack(m.rack)) is not None})
    rack_code = {r: i for i, r in enumerate(racks)}
    known = problem.partition_racks or {}
    sets: dict[frozenset[str], int] = {frozenset(): 0}
    per_partition = np.zeros(lay.total, dtype=np.int64)
    for k, topic in enumerate(lay.topics):
        given = known.get(topic)
        if given is None or not lay.sizes[k]:
            continue
        ids = [sets.setdefault(frozenset(s), len(sets)) for s in given[: int(lay.sizes[k])]]
        per_partition[lay.offsets[k]:lay.offsets[k] + len(ids)] = ids
    ordered = tuple(sorted(sets, key=sets.__getitem__))
    match = np.array([[r in s for r in racks] for s in ordered], dtype=bool).reshape(len(ordered), len(racks))
    member = np.array([rack_code.get(r, -1) if (r := member_rack(m.rack)) else -1 for m in problem.members],
                      dtype=np.int64)
    subscribed = lay.subscribed_partitions()
    used = per_partition[subscribed]
    all_racks = frozenset().union(*(ordered[i] for i in np.unique(used).tolist())) if len(used) else frozenset()
    aware = (bool(racks) and not all_racks.isdisjoint(racks) and len(used) > 0
             and not all(ordered[i] == all_racks for i in np.unique(used).tolist()))
    return RackLayout(aware, per_partition, member, match, ordered)


def _rack_layout_small(problem: Problem) -> RackLayout:
    """`_rack_layout` in plain Python (the same ids, in the same order), for small problems."""
    racks = sorted({r for m in problem.members if (r := member_rack(m.rack)) is not None})
    rack_code = {r: i for i, r in enumerate(racks)}
    ordered, per_partition, used = _partition_rack_sets(problem)
    match = np.array([[r in s for r in racks] for s in ordered], dtype=bool).reshape(len(ordered), len(racks))
    member = np.array([rack_code[r] if (r := member_rack(m.rack)) else -1 for m in problem.members], dtype=np.int64)
    all_racks = frozenset().union(*(ordered[i] for i in used))
    aware = (bool(racks) and not all_racks.isdisjoint(racks) and bool(used)
             and not all(ordered[i] == all_racks for i in used))
    return RackLayout(aware, np.array(per_partition, dtype=np.int64), member, match, ordered)


def _partition_rack_sets(problem: Problem) -> tuple[tuple[frozenset[str], ...], list[int], set[int]]:
    """The distinct rack sets (id order: the empty set, then as first met by topic name and index), each partition's
    set id (topics by name) and the ids of the subscribed partitions' sets."""
    known = problem.partition_racks or {}
    wanted = set().union(*(m.subscription for m in problem.members)) if problem.members else set()
    sets: dict[frozenset[str], int] = {frozenset(): 0}
    per_partition: list[int] = []
    used: set[int] = set()
    for topic in sorted(problem.topics):
        size = problem.topics[topic]
        given = known.get(topic)
        ids = [sets.setdefault(frozenset(r), len(sets)) for r in given[:size]] if given is not None and size else []
        ids += [0] * (size - len(ids))
        per_partition += ids
        if topic in wanted:
            used.update(ids)
    return tuple(sorted(sets, key=sets.__getitem__)), per_partition, used


def rack_aware(problem: Problem) -> bool:
    """Does KIP-881's rack-aware assignment apply to this problem (module docstring)?"""
    if problem.partition_racks is None or not any(m.rack for m in problem.members):
        return False  # the common case, without building the layout
    return racks_for(problem).aware(problem)


def _aware_small(problem: Problem) -> bool:
    """`RackLayout.aware` without the layout: member racks meet the subscribed partitions' racks, and not every
    subscribed partition has the same rack set (a partition of a topic without rack information has none)."""
    racks = {r for m in problem.members if (r := member_rack(m.rack)) is not None}
    known = problem.partition_racks or {}
    wanted = set().union(*(m.subscription for m in problem.members))
    used: set[frozenset[str]] = set()
    for topic, size in problem.topics.items():
        if topic in wanted and size:
            given = known.get(topic) or ()
            used.update(given[:size])
            if len(given) < size:
                used.add(frozenset())
    all_racks = frozenset().union(*used)
    return bool(racks) and not all_racks.isdisjoint(racks) and bool(used) and any(s != all_racks for s in used)


class _Racks(NamedTuple):
    """One way to compute the rack layout and whether racks apply (module docstring)."""

    layout: Callable[[Problem], RackLayout]
    aware: Callable[[Problem], bool]


VECTORIZED = _Racks(_rack_layout_vectorized, lambda p: rack_layout(p).aware)
SMALL = _Racks(_rack_layout_small, lambda p: p.derived("rack_aware", _aware_small))


def racks_for(problem: Problem) -> _Racks:
    """The plain-Python path for a small problem, the arrays otherwise: the one place the choice is made."""
    return SMALL if is_small(problem) else VECTORIZED


def mismatches(problem: Problem, assignment: Assignment) -> int:
    """Assigned (member, partition) pairs whose member has a rack none of the partition's replicas is on (a
    measure on every problem; a promise only on rack-aware ones). Members the problem does not know and junk
    partitions are not counted."""
    if not any(m.rack for m in problem.members):
        return 0
    racks = rack_layout(problem)
    rows = assigned_rows(problem, assignment)
    ok = (rows.gid >= 0) & (rows.member < len(problem.members))
    return int(racks.mismatch(rows.member[ok], rows.gid[ok]).sum())


def rack_violations(problem: Problem, assignment: Assignment, balance: str) -> list[Violation]:
    """The `racks` promise: on a rack-aware problem, no more mismatches than the fewest any assignment meeting
    H1-H5 and `balance` ("none", "perfect", "optimal") has (min-cost flow oracle over (topic, rack set) groups)."""
    if not rack_aware(problem):
        return []
    from assigncheck.spec.oracle import min_mismatches  # here: the oracle reads this module's rack layout

    best = min_mismatches(problem, balance)
    got = mismatches(problem, assignment)
    if best is None or got <= best:
        return []
    racks = rack_layout(problem)
    rows = assigned_rows(problem, assignment)
    ok = np.flatnonzero((rows.gid >= 0) & (rows.member < len(problem.members)))
    bad = ok[racks.mismatch(rows.member[ok], rows.gid[ok])]
    shown = [(rows.member_ids[int(rows.member[r])], rows.pair(r)) for r in bad[:20].tolist()]
    texts = ", ".join(f"{t}-{i} to {m}" for m, (t, i) in shown)
    msg = (f"{got} partition(s) on members whose rack none of their replicas is on; {best} is the fewest under "
           f"{balance} balance (KIP-881): {texts}")
    return [Violation("racks", msg, tuple(dict.fromkeys(m for m, _ in shown)), tuple(tp for _, tp in shown))]

__all__ = ["SMALL", "VECTORIZED", "member_rack", "mismatches", "rack_aware", "rack_layout", "rack_violations"]
