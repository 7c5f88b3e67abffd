"""Both constrained variants in plain Python for small problems (`spec.small.views.is_small`): the same layout, keep
order, quotas and deals as `impl/constrained.py` and `impl/constrained_kip615.py`, step for step, on lists instead of
arrays (a numpy call costs more than a small group's whole placement). `tests/impl/test_constrained_small.py` holds
every output equal to the vectorized one; the Z3 conformance tests replay the models on this path.
"""

from __future__ import annotations

from dataclasses import dataclass

from assigncheck.spec.model import Assignment, Problem, TopicTable
from assigncheck.spec.ownership import valid_claims


@dataclass(frozen=True)
class SmallLayout:
    """`ConstrainedLayout` as lists: members by id, topics by name, every member's valid claims in keep order."""

    member_ids: list[str]
    table: TopicTable
    offsets: list[int]  # len(T) + 1
    claims: list[list[int]]  # per member (M order): global ids in keep order

    @property
    def partitions(self) -> int:
        return self.offsets[-1]

    @classmethod
    def of(cls, problem: Problem) -> SmallLayout:
        ids = [m.member_id for m in problem.members]
        order = sorted(range(len(ids)), key=ids.__getitem__)
        subscription = problem.members[order[0]].subscription if order else frozenset()
        table = TopicTable(t for t in subscription if t in problem.topics)
        offsets = [0]
        for name in table.names:
            offsets.append(offsets[-1] + problem.topics[name])
        position = [0] * len(order)
        for k, i in enumerate(order):
            position[i] = k
        v = valid_claims(problem)  # rows by (problem position, topic, index): each topic's run ascends
        names, code = v.table.names, table.code
        keyed: list[list[tuple[int, int]]] = [[] for _ in order]  # per member: (rank within its topic, gid)
        last, rank = (-1, -1), 0
        for m, t, i in v.rows():
            rank = rank + 1 if (m, t) == last else 0
            last = (m, t)
            keyed[position[m]].append((rank, offsets[code[names[t]]] + i))
        return cls([problem.members[i].member_id for i in order], table, offsets,
                   [[g for _, g in sorted(k)] for k in keyed])

    def unassigned(self, taken: set[int]) -> list[int]:
        return [g for g in range(self.partitions) if g not in taken]

    def assignment(self, owners: list[int], ids: list[int]) -> Assignment:
        return Assignment.from_gids(self.member_ids, owners, ids, self.table, self.offsets)


def quotas(layout: SmallLayout) -> tuple[int, int, int]:
    f, r = divmod(layout.partitions, len(layout.member_ids))
    return f, f + (r > 0), r


def deal(need: list[int]) -> list[int]:
    """Lap k visits, in member order, every member with need > k."""
    return [m for lap in range(max(need, default=0)) for m, n in enumerate(need) if n > lap]


def place_two_phase(layout: SmallLayout) -> Assignment:
    f, c, r = quotas(layout)
    v = [len(x) for x in layout.claims]
    keeps_max, n_max = [], 0
    for x in v:  # phase 1: the first r members holding at least c keep c
        takes = x >= c > f and n_max < r
        n_max += takes
        keeps_max.append(takes)
    kept = [c if km else min(x, f) for km, x in zip(keeps_max, v)]
    owners = [m for m, k in enumerate(kept) for _ in range(k)]
    ids = [g for claims, k in zip(layout.claims, kept) for g in claims[:k]]
    need, extra = [], 0
    for km, k in zip(keeps_max, kept):  # phase 2: the first r - n_max others aim for c
        aims = not km and extra < r - n_max
        extra += aims
        need.append((c if km or aims else f) - k)
    owners += deal(need)
    ids += layout.unassigned(set(ids))
    return layout.assignment(owners, ids)


def place_four_phase(layout: SmallLayout) -> Assignment:
    f, c, _ = quotas(layout)
    v = [len(x) for x in layout.claims]
    at_max = [x > f for x in v]
    kept = [c if a else x for a, x in zip(at_max, v)]
    keep = [claims[:k] for claims, k in zip(layout.claims, kept)]  # phase 1
    unassigned = layout.unassigned({g for k in keep for g in k})
    short = [max(f - x, 0) for x in v]
    receivers = deal(short)[:len(unassigned)]  # phase 2
    owners, ids = list(receivers), unassigned[:len(receivers)]
    _take_from_donors(short, receivers, at_max, keep, owners, ids)  # phase 3
    rest = unassigned[len(receivers):]
    owners += [m for m, a in enumerate(at_max) if not a][:len(rest)]  # phase 4
    ids += rest
    owners += [m for m, k in enumerate(keep) for _ in k]
    ids += [g for k in keep for g in k]
    return layout.assignment(owners, ids)


def _take_from_donors(short: list[int], receivers: list[int], at_max: list[bool], keep: list[list[int]],
                      owners: list[int], ids: list[int]) -> None:
    """Members still short of the floor after phase 2 (takers) each take the last kept partition of the next member
    that kept more than the floor (donors); appended to `owners` and `ids`."""
    got = [0] * len(short)
    for m in receivers:
        got[m] += 1
    takers = [m for m, (s, g) in enumerate(zip(short, got)) for _ in range(s - g)]
    donors = [m for m, a in enumerate(at_max) if a][:len(takers)]
    for taker, donor in zip(takers, donors):
        owners.append(taker)
        ids.append(keep[donor].pop())


__all__ = ["SmallLayout", "deal", "place_four_phase", "place_two_phase", "quotas"]
