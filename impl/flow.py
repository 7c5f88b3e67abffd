"""The counting half of the general sticky assignor: how many partitions of each topic each member
keeps and how many it receives, from a min-cost flow over (topic, member) pairs.

Partitions of one topic are interchangeable up to who owned them, so the network needs no node per
partition: one node per subscribed topic `t` (supply `n_t`), one per member, one sink; per pair (t, m)
with m subscribed to t a *retained* arc, capacity `|V_m ∩ t|` (m's valid claims on t; left out when
0), cost 0, and a *new* arc, cost 1 per partition.

`B` is the smallest feasible maximum member count (max flows: galloping up from a lower bound, then
bisecting the last gap; usually one or two solves). A minimiser of Σcount² also minimises the largest
count (it is decreasingly minimal, Frank & Murota), so no optimum gives anyone more than `B`.

**Banded network (tried first).** Let `K_m` be the partitions m could take. If some complete assignment
gives every member a count in `[min(K_m, B-1), min(K_m, B)]`, then the optimally balanced assignments
are exactly the complete assignments within those bands: (a) every optimum is in them - it has maximum
`B`, and a member below its band could take one partition along an exchange chain from a member at `B`
(the bands are feasible, and base polyhedra exchange), which lowers Σcount²; (b) within the bands the
members with `K_m < B` are pinned at `K_m` and the others hold `B-1` or `B` with a fixed total, so Σcount²
is the same for all. So the most retaining assignment in the bands is the answer: member m's count is a
demand of its lower band plus one arc to the sink of capacity `hi - lo`, costs are 0/1, and the network
has no per-count arcs. When the bands are infeasible (counts of the optimum spread over more than two
values among the members that could take more), the convex network below decides.

**Convex network (fallback).** Per member, unit arcs to the sink for its k-th partition,
k = 1..min(K_m, B), cost `W·(2k-1)`, so a member holding k partitions pays `W·k²` (convex: the solver
fills them in order). `W = Σ|V_m| + 1` exceeds every possible difference in retention cost, and two count
vectors with the same total differ by an even Σcount², so any better balance beats any better retention:
the optimum is the most retaining assignment among those with minimum Σcount² (SPEC.md §8).

The optimum is not unique (which member takes the extra partition, which topic a member gives up).
The network is built from sorted data only (topics by name, members by id, arcs in that order) and
OR-Tools' solver is deterministic, so equal problems, in any listing order and any process, give
equal flows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from ortools.graph.python import max_flow, min_cost_flow


@dataclass(frozen=True)
class PairFlows:
    """Per (topic, member) pair, in the order given: partitions kept and partitions received."""

    keep: np.ndarray
    new: np.ndarray


def _min_max_count(sizes: np.ndarray, pair_topic: np.ndarray, pair_member: np.ndarray,
                   reach: np.ndarray) -> int:
    """The smallest B such that every partition can be placed with no member above B."""
    n_topics, n_members = len(sizes), len(reach)
    total = int(sizes.sum())
    active = int((reach > 0).sum())
    per_topic = np.bincount(pair_topic, minlength=n_topics)
    lo = max(-(-total // active), int((-(-sizes // np.maximum(per_topic, 1))).max()))
    hi = int(reach.max())
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


def _pair_arcs(net: min_cost_flow.SimpleMinCostFlow, sizes: np.ndarray, pair_topic: np.ndarray,
               pair_member: np.ndarray, pair_owned: np.ndarray, cap: np.ndarray, rack_cost: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """Retained arcs (only where m owns something of t) and new arcs (capacity min(n_t, cap_m)); a pair whose
    member mismatches the node's racks pays `rack_cost` per partition on both."""
    n_topics = len(sizes)
    owns = np.flatnonzero(pair_owned > 0)
    keep_arcs = net.add_arcs_with_capacity_and_unit_cost(pair_topic[owns], n_topics + pair_member[owns],
                                                         pair_owned[owns], rack_cost[owns])
    new_arcs = net.add_arcs_with_capacity_and_unit_cost(pair_topic, n_topics + pair_member,
                                                        np.minimum(sizes[pair_topic], cap[pair_member]),
                                                        rack_cost + 1)
    return owns, np.concatenate((keep_arcs, new_arcs))


def _solved(net: min_cost_flow.SimpleMinCostFlow, owns: np.ndarray, arcs: np.ndarray, n_pairs: int) -> PairFlows | None:
    status = net.solve()
    if status == net.INFEASIBLE:
        return None
    if status != net.OPTIMAL:
        raise RuntimeError(f"min-cost flow failed with status {status}")
    flows = net.flows(arcs)
    keep = np.zeros(n_pairs, dtype=np.int64)
    keep[owns] = flows[:len(owns)]
    return PairFlows(keep, flows[len(owns):])


def _banded(sizes: np.ndarray, pair_topic: np.ndarray, pair_member: np.ndarray, pair_owned: np.ndarray,
            reach: np.ndarray, bound: int, rack_cost: np.ndarray) -> PairFlows | None:
    """The most retaining complete assignment with every count in its band (module docstring), or None."""
    n_topics, n_members = len(sizes), len(reach)
    lo, hi = np.minimum(reach, bound - 1), np.minimum(reach, bound)
    sink = n_topics + n_members
    net = min_cost_flow.SimpleMinCostFlow()
    owns, arcs = _pair_arcs(net, sizes, pair_topic, pair_member, pair_owned, hi, rack_cost)
    net.add_arcs_with_capacity_and_unit_cost(n_topics + np.arange(n_members), np.full(n_members, sink), hi - lo,
                                             np.zeros(n_members, dtype=np.int64))
    supplies = np.zeros(sink + 1, dtype=np.int64)
    supplies[:n_topics] = sizes
    supplies[n_topics:sink] = -lo
    supplies[sink] = -(int(sizes.sum()) - int(lo.sum()))
    net.set_nodes_supplies(np.arange(sink + 1), supplies)
    return _solved(net, owns, arcs, len(pair_topic))


def _convex(sizes: np.ndarray, pair_topic: np.ndarray, pair_member: np.ndarray, pair_owned: np.ndarray,
            reach: np.ndarray, bound: int, rack_cost: np.ndarray) -> PairFlows:
    n_topics, n_members = len(sizes), len(reach)
    weight = int(rack_cost.max(initial=0)) * int(sizes.sum()) + int(pair_owned.sum()) + 1
    sink = n_topics + n_members
    net = min_cost_flow.SimpleMinCostFlow()
    slots = np.minimum(reach, bound)
    owns, arcs = _pair_arcs(net, sizes, pair_topic, pair_member, pair_owned, slots, rack_cost)
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
    result = _solved(net, owns, arcs, len(pair_topic))
    if result is None:
        raise RuntimeError("min-cost flow infeasible: every subscribed partition has a subscriber")
    return result


def solve_counts(sizes: np.ndarray, pair_topic: np.ndarray, pair_member: np.ndarray,
                 pair_owned: np.ndarray, n_members: int, pair_mismatch: np.ndarray | None = None) -> PairFlows:
    """Optimal keep/new counts per pair. Pairs must be sorted by (node, member); every node must
    have at least one pair. `pair_owned[i]` = valid claims of that member on that node; `pair_mismatch[i]`:
    the member's rack is on none of the node's replicas (KIP-881: each such partition costs more than any
    retention difference, so the fewest mismatches come before stickiness, after balance)."""
    sizes = sizes.astype(np.int64)
    n_pairs = len(pair_topic)
    if n_pairs == 0 or int(sizes.sum()) == 0:
        zero = np.zeros(n_pairs, dtype=np.int64)
        return PairFlows(zero, zero.copy())
    reach = np.bincount(pair_member, weights=sizes[pair_topic], minlength=n_members).astype(np.int64)
    bound = _min_max_count(sizes, pair_topic, pair_member, reach)
    pair_owned = pair_owned.astype(np.int64)
    rack_cost = np.zeros(n_pairs, dtype=np.int64)
    if pair_mismatch is not None and pair_mismatch.any():
        rack_cost[pair_mismatch] = int(sizes.sum()) + 1  # above any retention difference (new arcs cost 1 each)
    banded = _banded(sizes, pair_topic, pair_member, pair_owned, reach, bound, rack_cost)
    if banded is not None:
        return banded
    return _convex(sizes, pair_topic, pair_member, pair_owned, reach, bound, rack_cost)
