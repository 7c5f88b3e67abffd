"""Constrained sticky assignment in KIP-615's four phases (KAFKA-9987; ALGORITHMS.md).

Same layout, keep order and `U` order as the two-phase variant (`impl/constrained.py`); only the way
the ceiling quota is handed out differs: every owner above the floor keeps the ceiling first, and the
surplus is taken back (phase 3) or the shortfall handed out (phase 4) afterwards.
"""

from __future__ import annotations

import numpy as np

from assigncheck.impl.constrained import ConstrainedAssignor, ConstrainedLayout, deal, quotas
from assigncheck.impl.constrained_small import SmallLayout, place_four_phase
from assigncheck.spec.model import Assignment, Problem


class FourPhaseConstrainedAssignor(ConstrainedAssignor):
    name = "sticky-constrained-4phase"

    def place_large(self, problem: Problem) -> Assignment:
        return self.place(ConstrainedLayout.of(problem))

    def place(self, layout: ConstrainedLayout) -> Assignment:
        f, c, _ = quotas(layout)
        v = layout.valid
        members = np.arange(len(v))
        # Phase 1: below f keep all ("unfilled"), at f keep all, above f keep c ("max_capacity", in M order).
        at_max = v > f
        kept = np.where(at_max, c, v)
        in_keep = layout.prefixes(kept)
        owners = [np.repeat(members, kept)]
        ids = [layout.claims[in_keep]]
        unassigned = layout.unassigned(ids[0])
        # Phase 2: deal U over the unfilled members still below f (U may run out before they are full).
        receivers = deal(np.maximum(f - v, 0))[: len(unassigned)]
        owners.append(receivers)
        ids.append(unassigned[: len(receivers)])
        deficit = np.maximum(f - v, 0) - np.bincount(receivers, minlength=len(v))
        if deficit.any():
            # Phase 3: each member still short, in M order, takes the last kept partition of the next
            # member at the head of max_capacity (which leaves the queue).
            takers = np.repeat(members, deficit)
            donors = np.flatnonzero(at_max)[: len(takers)]
            last = layout.starts[donors] + kept[donors] - 1
            in_keep[last] = False
            ids[0] = layout.claims[in_keep]
            owners[0] = np.repeat(members, kept - np.isin(members, donors))
            owners.append(takers)
            ids.append(layout.claims[last])
        rest = unassigned[len(receivers):]
        if len(rest):
            # Phase 4: the rest of U, one each, to the next members of M not at max_capacity.
            owners.append(np.flatnonzero(~at_max)[: len(rest)])
            ids.append(rest)
        return layout.assignment(np.concatenate(owners), np.concatenate(ids))

    def place_small(self, layout: SmallLayout) -> Assignment:
        return place_four_phase(layout)


__all__ = ["FourPhaseConstrainedAssignor"]
