"""`impl.cooperative.withhold` as it was at commit 5cfb106: a Python loop over members. Kept as
the in-run peer of `bench_cooperative`."""

from __future__ import annotations

import numpy as np

from assigncheck.spec.model import Assignment, Partitions, PartitionSet, Problem, partitions_of
from assigncheck.spec.ownership import valid_owned


class _GlobalIds:
    """Global partition ids over the problem's topics (name order); junk (unknown topic, bad index) -> -1."""

    def __init__(self, problem: Problem) -> None:
        self.topics = problem.topics
        names = sorted(problem.topics)
        sizes = [problem.topics[t] for t in names]
        self.offset = dict(zip(names, np.cumsum([0] + sizes[:-1]).tolist()))
        self.total = sum(sizes)
        self._remaps: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def of(self, parts: Partitions) -> np.ndarray:
        ps = partitions_of(parts)
        remap = self._remaps.get(id(ps.table))
        if remap is None:
            names = ps.table.names
            remap = self._remaps[id(ps.table)] = (
                np.array([self.offset.get(t, -1) for t in names], dtype=np.int64),
                np.array([self.topics.get(t, 0) for t in names], dtype=np.int64))
        codes, indices = ps.rows()
        offset, size = remap[0][codes], remap[1][codes]
        return np.where((offset >= 0) & (indices >= 0) & (indices < size), offset + indices, -1)


def withhold(problem: Problem, eager: Assignment) -> Assignment:
    """Drop from each member `b` every partition it does not validly own (docs/SPEC.md §2) while another member
    claims it (raw, any generation): that member is still consuming it until it revokes.

    Valid, not raw, ownership of `b` decides: a stale claim (KAFKA-14639) or a same-generation double claim
    (KAFKA-12984) does not make `b` the current consumer, so the real one must revoke first."""
    ids = _GlobalIds(problem)
    raw = [np.unique(g[g >= 0]) for g in (ids.of(m.owned) for m in problem.members)]
    claimants = np.bincount(np.concatenate(raw + [np.zeros(0, np.int64)]), minlength=ids.total)
    valid = valid_owned(problem)
    out: dict[str, Partitions] = {}
    for m, mine in zip(problem.members, raw):
        given = partitions_of(eager.get(m.member_id))
        g = ids.of(given)
        others = np.where(g >= 0, claimants[np.maximum(g, 0)], 0) - np.isin(g, mine)
        held = (others > 0) & ~np.isin(g, ids.of(valid[m.member_id]))
        out[m.member_id] = PartitionSet.from_rows(given.table, *(a[~held] for a in given.rows())) \
            if held.any() else given
    return Assignment(out)
