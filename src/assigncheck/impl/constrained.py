"""Constrained sticky assignment for equal subscriptions (KAFKA-12464, two phases; ALGORITHMS.md).

Everything is arithmetic over "global partition ids": topics in name order, `g = offset[t] + i`, so
`(topic, index)` order is plain integer order. A member's valid claims become one run of a sorted array (its
*keep order*); phase 1 keeps a prefix of each run, phase 2 deals the rest round-robin. The two-phase variant does
this in one compiled call (`impl.native.place_two_phase`); `ConstrainedLayout` (arrays) and the helpers are the
four-phase variant's (`impl/constrained_kip615.py`).

**Two paths, one answer**: both variants also place in plain Python for a small problem (`impl/constrained_small.py`,
the same steps on lists; `spec.small.views.is_small`); `ConstrainedAssignor.placed` is the one place the choice is
made, and `tests/impl/test_constrained_small.py` holds the twins equal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assigncheck import impl
from assigncheck.impl import flow  # noqa: F401 - loads the compiled flow solver now, never inside a timed call (`general_sticky`)
from assigncheck.impl.constrained_small import SmallLayout, place_two_phase
from assigncheck.impl.native import place_two_phase as place_two_phase_compiled
from assigncheck.impl.problem_kind import require_problem
from assigncheck.spec.model import AnyProblem, Assignment, Member, Problem, TopicTable
from assigncheck.spec.ownership import valid_claims, valid_owned
from assigncheck.spec.promises import Promises
from assigncheck.spec.racks import rack_aware
from assigncheck.spec.small.views import is_small

CONSTRAINED_PROMISES = Promises(
    balance="perfect", stickiness="max_retained", fixpoint=True, per_topic_spread=True, racks=True,
    equal_subscriptions_only=True
)


@dataclass(frozen=True)
class ConstrainedLayout:
    """The members (`M`, by id), topics (`T`, by name) and every member's valid claims in keep order."""

    member_ids: list[str]
    table: TopicTable  # T, coded in name order
    offsets: np.ndarray  # int64, len(T) + 1: topic k owns global ids offsets[k] .. offsets[k+1]-1
    claims: np.ndarray  # global ids, grouped by member (in M order), each group in keep order
    starts: np.ndarray  # claims[starts[m]:starts[m] + valid[m]] are member m's
    valid: np.ndarray  # |V_m| per member

    @property
    def partitions(self) -> int:
        return int(self.offsets[-1])

    @classmethod
    def of(cls, problem: Problem) -> ConstrainedLayout:
        ids = [m.member_id for m in problem.members]
        by_name = sorted(range(len(ids)), key=ids.__getitem__)  # M: problem positions by member id
        subscription = problem.members[by_name[0]].subscription if by_name else frozenset()
        table = TopicTable(t for t in subscription if t in problem.topics)
        offsets = np.zeros(len(table.names) + 1, dtype=np.int64)
        np.cumsum([problem.topics[t] for t in table.names], out=offsets[1:])
        v = valid_claims(problem)  # flat rows, sorted by (member position in problem, topic, index)
        by_id = np.empty(len(problem.members), dtype=np.int64)  # problem position -> position in M
        by_id[by_name] = np.arange(len(by_name))
        # valid claims are of subscribed, existing topics: all in T (subscriptions are equal here)
        base = np.array([offsets[table.code[n]] if n in table.code else -1 for n in v.table.names], dtype=np.int64)
        owner, g = by_id[v.member], base[v.topic] + v.index
        # rank = position among the member's own indices of the topic (the rows are sorted, unique)
        new_run = np.ones(len(g), dtype=bool)
        new_run[1:] = (v.member[1:] != v.member[:-1]) | (v.topic[1:] != v.topic[:-1])
        heads = np.flatnonzero(new_run)
        rank = np.arange(len(g)) - np.repeat(heads, np.diff(np.append(heads, len(g))))
        # keep order: (rank, topic) within each member; one int64 key sorts faster than a lexsort of three
        span_g, span_r = int(offsets[-1]) + 1, int(rank.max(initial=0)) + 1
        if max(len(by_name), 1) * span_r * span_g < 2**62 and g.min(initial=0) >= 0:
            claims = np.sort((owner * span_r + rank) * span_g + g) % span_g
        else:
            claims = g[np.lexsort((g, rank, owner))]
        valid = np.bincount(owner, minlength=len(by_name)).astype(np.int64)
        starts = np.cumsum(valid) - valid
        return cls(list(map(ids.__getitem__, by_name)), table, offsets, claims, starts, valid)

    def prefixes(self, kept: np.ndarray) -> np.ndarray:
        """A mask over `claims`: the first `kept[m]` entries of every member's run."""
        owner = np.repeat(np.arange(len(self.valid)), self.valid)
        return np.arange(len(self.claims)) - self.starts[owner] < kept[owner]

    def unassigned(self, taken: np.ndarray) -> np.ndarray:
        """Global ids not in `taken`, ascending: `U`, in (topic, index) order."""
        free = np.ones(self.partitions, dtype=bool)
        free[taken] = False
        return np.flatnonzero(free)

    def assignment(self, owners: np.ndarray, ids: np.ndarray) -> Assignment:
        """Build the `Assignment` from parallel arrays (member position, global id)."""
        topic = np.searchsorted(self.offsets, ids, side="right") - 1
        return Assignment.from_rows(self.member_ids, owners, self.table, topic, ids - self.offsets[topic])


def quotas(layout: ConstrainedLayout) -> tuple[int, int, int]:
    """(f, c, r): floor and ceiling of P / C, and how many members get the ceiling."""
    count = len(layout.member_ids)
    f, r = divmod(layout.partitions, count)
    return f, f + (r > 0), r


def deal(need: np.ndarray) -> np.ndarray:
    """The receivers of a round-robin deal: lap k visits, in member order, every member with need > k."""
    member = np.repeat(np.arange(len(need), dtype=np.int64), need)
    lap = np.arange(len(member)) - np.repeat(np.cumsum(need) - need, need)
    return np.sort(lap * max(len(need), 1) + member) % max(len(need), 1)  # one int64 key, not a lexsort


def settled(problem: Problem) -> Assignment | None:
    """The valid claims as they are, when they cover every partition and no two members' valid counts differ by
    more than one: both variants then keep every valid claim and deal nothing (the r members at the ceiling keep
    it, the others the floor), so neither needs its layout. Every check's fixpoint round, and Kafka's second round
    after its first, is such a problem; the output is then the claimed sets themselves when every claim is valid
    (`spec.ownership.valid_owned`). `problem` has members and equal subscriptions."""
    wanted = sum(problem.topics.get(t, 0) for t in problem.members[0].subscription)
    if len(valid_claims(problem)) != wanted:  # the layout reads them too; a fresh group stops here
        return None
    sets = valid_owned(problem)
    counts = [s.count for s in sets.values()]
    if max(counts) - min(counts) > 1:
        return None
    return Assignment.of_sets(sets)


def general_sticky(problem: Problem) -> Assignment:
    """Unequal subscriptions are outside the constrained domain, and rack-aware problems (KIP-881) need the
    general algorithm's flow to put the fewest partitions off their racks: use it."""

    return impl.get("sticky").assign(problem)


class ConstrainedAssignor:
    """What both constrained variants share: their domain (equal subscriptions; otherwise the general
    `sticky`), the empty group, and the layout. A variant only says how it places partitions."""

    name = "constrained"
    promises = CONSTRAINED_PROMISES

    def assign(self, problem: AnyProblem) -> Assignment:
        problem = require_problem(problem, self.name)
        if not problem.subscriptions_equal() or rack_aware(problem):
            return general_sticky(problem)  # its flow also puts the fewest partitions off their racks (KIP-881)
        if not problem.members:
            return Assignment({})
        return self.placed(problem)

    def placed(self, problem: Problem) -> Assignment:
        """The placement of a problem with members and equal subscriptions: the claims themselves when they are
        settled (`settled`), else plain Python when it is small (`impl/constrained_small.py`, the same steps), else
        arrays."""
        same = settled(problem)
        if same is not None:
            return same
        if is_small(problem):  # the layout is the problem's, computed once (a check's again-run reuses it)
            return self.place_small(problem.derived("constrained_layout", SmallLayout.of))
        return self.place_large(problem)

    def place_large(self, problem: Problem) -> Assignment:
        """The placement above the small path's size (arrays, or compiled code)."""
        raise NotImplementedError

    def place_small(self, layout: SmallLayout) -> Assignment:
        raise NotImplementedError


class ConstrainedStickyAssignor(ConstrainedAssignor):
    name = "sticky-constrained"

    def place_large(self, problem: Problem) -> Assignment:
        """Both phases in one compiled call (`impl.native.place_two_phase`: the layout's steps, then the same
        quotas and deal as `place_two_phase` on lists)."""
        v = valid_claims(problem)
        table = TopicTable(t for t in problem.members[0].subscription if t in problem.topics)
        offsets = [0]
        for name in table.names:
            offsets.append(offsets[-1] + problem.topics[name])
        base = [offsets[table.code[n]] if n in table.code else -1 for n in v.table.names]
        ids, member, topic, index = place_two_phase_compiled(problem.members, Member, v.member, v.topic,
                                                             v.index, base, offsets)
        return Assignment.from_grouped_rows(ids, table, np.frombuffer(member, np.int64),
                                            np.frombuffer(topic, np.int64), np.frombuffer(index, np.int32))

    def place_small(self, layout: SmallLayout) -> Assignment:
        return place_two_phase(layout)


__all__ = [
    "CONSTRAINED_PROMISES", "ConstrainedAssignor", "ConstrainedLayout", "ConstrainedStickyAssignor", "deal",
    "general_sticky", "quotas", "settled"
]
