"""The counting half of the general sticky assignor: how many partitions of each topic each member
keeps and how many it receives, from a flow over (topic, member) pairs.

Partitions of one topic are interchangeable up to who owned them, so the network needs no node per
partition: one node per subscribed topic `t` (supply `n_t`), one per member, one sink; per pair (t, m)
with m subscribed to t a *retained* arc, capacity `|V_m ∩ t|` (m's valid claims on t; left out when
0), cost 0, and a *new* arc, cost 1 per partition.

`B` is the smallest feasible maximum member count. The banded networks below are tried first at a lower
bound of B (the average, and each topic's share of its subscribers), which is usually B itself: bands met
there prove it, with no search. Otherwise max flows find B (galloping up from the lower bound, then
bisecting the last gap). A minimiser of Σcount² also minimises the largest
count (it is decreasingly minimal, Frank & Murota), so no optimum gives anyone more than `B`.

**Banded network.** Let `K_m` be the partitions m could take. If some complete assignment
gives every member a count in `[min(K_m, B-1), min(K_m, B)]`, then the optimally balanced assignments
are exactly the complete assignments within those bands: (a) every optimum is in them - it has maximum
`B`, and a member below its band could take one partition along an exchange chain from a member at `B`
(the bands are feasible, and base polyhedra exchange), which lowers Σcount²; (b) within the bands the
members with `K_m < B` are pinned at `K_m` and the others hold `B-1` or `B` with a fixed total, so Σcount²
is the same for all. So the most retaining assignment in the bands is the answer: member m's count is a
demand of its lower band plus one arc to the sink of capacity `hi - lo`, costs are 0/1, and the network
has no per-count arcs. When the bands are infeasible (counts of the optimum spread over more than two values
among the members that could take more), the convex network below decides.

**Solving it.** The banded network has costs 0 (keep) and 1 (new), plus the rack cost on pairs whose member is on
none of the node's racks. `impl/min_cost_flow.py` solves it from the flow that keeps every claim (of cost 0) and
fills each member's band from that: in a rebalance most claims stay, and the solver only moves flow around the
members that joined, left or re-subscribed. On a fresh group nothing is kept and it is a plain max flow in effect.

**Convex network (fallback).** Per member, unit arcs to the sink for its k-th partition,
k = 1..min(K_m, B), cost `W·(2k-1)`, so a member holding k partitions pays `W·k²` (convex: the solver
fills them in order). `W = Σ|V_m| + 1` exceeds every possible difference in retention cost, and two count
vectors with the same total differ by an even Σcount², so any better balance beats any better retention:
the optimum is the most retaining assignment among those with minimum Σcount² (docs/SPEC.md §8.2).

The optimum is not unique (which member takes the extra partition, which topic a member gives up).
The network is built from sorted data only (topics by name, members by id, arcs in that order) and
both solvers (ours for the banded network, OR-Tools' for the convex one) are deterministic, so equal problems, in
any listing order and any process, give equal flows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from ortools.graph.python import max_flow, min_cost_flow

from assigncheck.impl.min_cost_flow import banded_flow, count_floor, rack_costs, solved


@dataclass(frozen=True)
class PairFlows:
    """Per (topic, member) pair, in the order given: partitions kept and partitions received."""

    keep: np.ndarray
    new: np.ndarray


def min_max_count(sizes: np.ndarray, pair_topic: np.ndarray, pair_member: np.ndarray,
                   reach: np.ndarray) -> int:
    """The smallest B such that every partition can be placed with no member above B."""
    n_topics, n_members = len(sizes), len(reach)
    total = int(sizes.sum())
    lo, hi = count_floor(sizes, pair_topic, reach), int(reach.max())
    if lo >= hi:
        return hi
    source, sink = n_topics + n_members, n_topics + n_members + 1
    flow = max_flow.SimpleMaxFlow()
    flow.add_arcs_with_capacity(np.full(n_topics, source), np.arange(n_topics), sizes)
    flow.add_arcs_with_capacity(pair_topic, n_topics + pair_member, sizes[pair_topic])
    member_arcs = flow.add_arcs_with_capacity(n_topics + np.arange(n_members), np.full(n_members, sink),
                                              np.zeros(n_members, dtype=np.int64))

    def feasible(bound: int) -> bool:
        flow.set_arcs_capacity(member_arcs, np.minimum(reach, bound))
        if flow.solve(source, sink) != flow.OPTIMAL:
            raise RuntimeError("max flow failed")
        return flow.optimal_flow() == total

    # The answer is in [lo, hi] (hi is always feasible) and usually at lo or just above: gallop up from
    # lo, then bisect the last gap.
    step = 1
    while lo < hi:
        probe = min(lo + step - 1, hi)
        if feasible(probe):
            hi = probe
            break
        lo, step = probe + 1, step * 2
    while lo < hi:
        mid = (lo + hi) // 2
        if feasible(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def banded(sizes: np.ndarray, pair_topic: np.ndarray, pair_member: np.ndarray, pair_owned: np.ndarray,
            pair_mismatch: np.ndarray, n_members: int, bound: int = 0) -> PairFlows | None:
    """The most retaining complete assignment with every count in its band for B = max(`bound`, `count_floor`),
    with the fewest rack mismatches first (module docstring), or None."""
    keep, new = np.empty(len(pair_topic), dtype=np.int64), np.empty(len(pair_topic), dtype=np.int64)
    arrays = (np.ascontiguousarray(x, dtype=np.int64) for x in (sizes, pair_topic, pair_member, pair_owned))
    status = banded_flow(*arrays, np.ascontiguousarray(pair_mismatch, dtype=bool), n_members, bound, keep, new)
    return PairFlows(keep, new) if solved(status) else None


def convex(sizes: np.ndarray, pair_topic: np.ndarray, pair_member: np.ndarray, pair_owned: np.ndarray,
            reach: np.ndarray, bound: int, rack_cost: np.ndarray) -> PairFlows:
    """The convex network's optimum (module docstring), by OR-Tools (its costs reach W·(2B-1))."""
    n_topics, n_members = len(sizes), len(reach)
    weight = int(rack_cost.max(initial=0)) * int(sizes.sum()) + int(pair_owned.sum()) + 1
    sink = n_topics + n_members
    net = min_cost_flow.SimpleMinCostFlow()
    slots = np.minimum(reach, bound)
    owns = np.flatnonzero(pair_owned > 0)
    keep_arcs = net.add_arcs_with_capacity_and_unit_cost(pair_topic[owns], n_topics + pair_member[owns],
                                                         pair_owned[owns], rack_cost[owns])
    new_arcs = net.add_arcs_with_capacity_and_unit_cost(pair_topic, n_topics + pair_member,
                                                        np.minimum(sizes[pair_topic], slots[pair_member]),
                                                        rack_cost + 1)
    # Unit arcs member -> sink for its 1st, 2nd, ... partition, member by member.
    tails = np.repeat(n_topics + np.arange(n_members), slots)
    starts = np.cumsum(slots) - slots
    kth = np.arange(int(slots.sum())) - np.repeat(starts, slots) + 1
    net.add_arcs_with_capacity_and_unit_cost(tails, np.full(len(tails), sink), np.ones(len(tails), dtype=np.int64),
                                             weight * (2 * kth - 1))
    supplies = np.zeros(sink + 1, dtype=np.int64)
    supplies[:n_topics] = sizes
    supplies[sink] = -int(sizes.sum())
    net.set_nodes_supplies(np.arange(sink + 1), supplies)
    status = net.solve()
    if status != net.OPTIMAL:
        raise RuntimeError(f"OR-Tools gave status {status} on the convex network, which every node's subscribers make "
                           "feasible")
    keep = np.zeros(len(pair_topic), dtype=np.int64)
    keep[owns] = net.flows(keep_arcs)
    return PairFlows(keep, net.flows(new_arcs))


def solve_counts(sizes: np.ndarray, pair_topic: np.ndarray, pair_member: np.ndarray,
                 pair_owned: np.ndarray, n_members: int, pair_mismatch: np.ndarray | None = None) -> PairFlows:
    """Optimal keep/new counts per pair. Pairs must be sorted by (node, member); every node must
    have at least one pair. `pair_owned[i]` = valid claims of that member on that node; `pair_mismatch[i]`:
    the member's rack is on none of the node's replicas (see `rack_costs`)."""
    sizes = sizes.astype(np.int64)
    n_pairs = len(pair_topic)
    if n_pairs == 0 or not sizes.any():
        zero = np.zeros(n_pairs, dtype=np.int64)
        return PairFlows(zero, zero.copy())
    mismatch = pair_mismatch if pair_mismatch is not None else np.zeros(n_pairs, dtype=bool)
    # Bands met at the lower bound of B prove it is B (no count above it): one solve, no search for B.
    flows = banded(sizes, pair_topic, pair_member, pair_owned, mismatch, n_members)
    if flows is not None:
        return flows
    reach = np.bincount(pair_member, weights=sizes[pair_topic], minlength=n_members).astype(np.int64)
    bound = min_max_count(sizes, pair_topic, pair_member, reach)
    flows = banded(sizes, pair_topic, pair_member, pair_owned, mismatch, n_members, bound) \
        if bound != count_floor(sizes, pair_topic, reach) else None
    return flows if flows is not None else convex(sizes, pair_topic, pair_member, pair_owned.astype(np.int64), reach,
                                                   bound, rack_costs(sizes, np.ascontiguousarray(mismatch, dtype=bool)))


__all__ = ["PairFlows", "banded", "convex", "min_max_count", "solve_counts"]
