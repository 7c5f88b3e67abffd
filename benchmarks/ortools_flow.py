"""The banded network of `impl/flow.py` solved by OR-Tools' min-cost flow (cost scaling, from nothing): the peer of
`impl/min_cost_flow.py` in `benchmarks.profile_stages`, and the reference its tests hold it to."""

from __future__ import annotations

import numpy as np
from ortools.graph.python import min_cost_flow


def ortools_banded(sizes: np.ndarray, pair_topic: np.ndarray, pair_member: np.ndarray, pair_owned: np.ndarray,
                   reach: np.ndarray, bound: int, rack_cost: np.ndarray) -> int | None:
    """The least cost of a complete flow with every member's count in `[min(reach, bound-1), min(reach, bound)]`
    (keep arcs cost the rack cost, new arcs one more), or None when there is no such flow."""
    t, m = len(sizes), len(reach)
    lo, hi = np.minimum(reach, bound - 1), np.minimum(reach, bound)
    net = min_cost_flow.SimpleMinCostFlow()
    owns = np.flatnonzero(pair_owned > 0)
    net.add_arcs_with_capacity_and_unit_cost(pair_topic[owns], t + pair_member[owns], pair_owned[owns],
                                             rack_cost[owns])
    net.add_arcs_with_capacity_and_unit_cost(pair_topic, t + pair_member, np.minimum(sizes[pair_topic],
                                                                                    hi[pair_member]), rack_cost + 1)
    net.add_arcs_with_capacity_and_unit_cost(t + np.arange(m), np.full(m, t + m), hi - lo, np.zeros(m, dtype=np.int64))
    net.set_nodes_supplies(np.arange(t + m + 1), np.concatenate((sizes, -lo, [lo.sum() - sizes.sum()])))
    status = net.solve()
    if status == net.INFEASIBLE:
        return None
    if status != net.OPTIMAL:
        raise RuntimeError(f"OR-Tools min-cost flow failed with status {status}")
    return net.optimal_cost()
