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

**Keep-all network (tried before the min-cost one).** No assignment in the bands keeps more than
`Σ min(O_m, hi_m)` (`O_m` = m's valid claims): a member keeps only its claims, and at most its count. When
that much can be kept, a max flow finds such an assignment, and it is the answer (no rack costs): member m's
retained arcs (capacity `|V_m ∩ t|`) feed a node that must pass exactly `min(O_m, hi_m)`, its new arcs at most
`hi_m` minus that, and the bands' lower ends are demands, the rest going to the target through one spill
node; the assignment is complete iff the flow is. On a fresh group nothing is kept and any complete flow in
the bands is optimal. Two counts rule the solve out first (the keeps and the lower bands exceed the
partitions; a member needs more than its topics have beyond what members within their bands keep). When less
can be kept, or a pair pays a rack cost, the banded min-cost network decides.

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


def _count_floor(sizes: np.ndarray, pair_topic: np.ndarray, reach: np.ndarray) -> int:
    """A lower bound of B: the average over the members that can take anything, and each node's share over its
    subscribers. Usually B itself."""
    per_topic = np.bincount(pair_topic, minlength=len(sizes))
    return max(-(-int(sizes.sum()) // int((reach > 0).sum())), int((-(-sizes // np.maximum(per_topic, 1))).max()))


def _min_max_count(sizes: np.ndarray, pair_topic: np.ndarray, pair_member: np.ndarray,
                   reach: np.ndarray) -> int:
    """The smallest B such that every partition can be placed with no member above B."""
    n_topics, n_members = len(sizes), len(reach)
    total = int(sizes.sum())
    lo, hi = _count_floor(sizes, pair_topic, reach), int(reach.max())
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


def banded_max_flow(tails: list[int] | np.ndarray, heads: list[int] | np.ndarray, caps: list[int] | np.ndarray,
                    source: int, target: int, total: int, n_topics: int, n_owns: int, n_pairs: int
                    ) -> tuple[np.ndarray, np.ndarray] | None:
    """A complete max flow of the keep-all banded network (`_banded_keep_all`), as the flows on its retained arcs
    and on its new arcs, or None when it falls short of `total`."""
    net = max_flow.SimpleMaxFlow()
    arcs = net.add_arcs_with_capacity(tails, heads, caps)
    if net.solve(source, target) != net.OPTIMAL:
        raise RuntimeError("max flow failed")
    if net.optimal_flow() != total:
        return None
    flows = net.flows(arcs[n_topics:n_topics + n_owns + n_pairs])
    return flows[:n_owns], flows[n_owns:]


def _banded_keep_all(sizes: np.ndarray, pair_topic: np.ndarray, pair_member: np.ndarray, pair_owned: np.ndarray,
                     reach: np.ndarray, bound: int) -> PairFlows | None:
    """`_banded` by a max flow, when no pair pays a rack cost and the most any assignment in the bands could keep
    can be kept (module docstring); else None."""
    n_topics, n_members, n_pairs = len(sizes), len(reach), len(pair_topic)
    lo, hi = np.minimum(reach, bound - 1), np.minimum(reach, bound)
    claims = np.bincount(pair_member, weights=pair_owned, minlength=n_members).astype(np.int64)
    keep = np.minimum(claims, hi)
    need = np.maximum(lo - keep, 0)
    total = int(sizes.sum())
    spare = total - int(keep.sum()) - int(need.sum())
    if spare < 0:  # the lower bands alone ask for more than there is
        return None
    # A member that needs more than the partitions nobody is bound to keep on its topics (members within their
    # band keep every claim) cannot get it: skip the solve (a member that re-subscribed, say).
    bound_to = np.bincount(pair_topic, weights=np.where((claims <= hi)[pair_member], pair_owned, 0),
                           minlength=n_topics)
    if (need > np.bincount(pair_member, weights=(sizes - bound_to)[pair_topic], minlength=n_members)).any():
        return None
    members, keepers = n_topics + np.arange(n_members), n_topics + n_members + np.arange(n_members)
    spill, source, target = n_topics + 2 * n_members, n_topics + 2 * n_members + 1, n_topics + 2 * n_members + 2
    owns = np.flatnonzero(pair_owned > 0)
    tails = np.concatenate((np.full(n_topics, source), pair_topic[owns], pair_topic, keepers, members, members,
                            [spill]))
    heads = np.concatenate((np.arange(n_topics), keepers[pair_member[owns]], members[pair_member],
                            np.full(2 * n_members, target), np.full(n_members, spill), [target]))
    caps = np.concatenate((sizes, pair_owned[owns], np.minimum(sizes[pair_topic], (hi - keep)[pair_member]), keep,
                           need, hi - keep - need, [spare]))
    flows = banded_max_flow(tails, heads, caps, source, target, total, n_topics, len(owns), n_pairs)
    if flows is None:
        return None
    kept = np.zeros(n_pairs, dtype=np.int64)
    kept[owns] = flows[0]
    return PairFlows(kept, flows[1])


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
    pair_owned = pair_owned.astype(np.int64)
    rack_cost = np.zeros(n_pairs, dtype=np.int64)
    if pair_mismatch is not None and pair_mismatch.any():
        rack_cost[pair_mismatch] = int(sizes.sum()) + 1  # above any retention difference (new arcs cost 1 each)

    def banded(bound: int) -> PairFlows | None:
        if not rack_cost.any():
            flows = _banded_keep_all(sizes, pair_topic, pair_member, pair_owned, reach, bound)
            if flows is not None:
                return flows
        return _banded(sizes, pair_topic, pair_member, pair_owned, reach, bound, rack_cost)

    # Bands met at the lower bound of B prove it is B (no count above it): one solve, no search for B.
    floor = _count_floor(sizes, pair_topic, reach)
    flows = banded(floor)
    if flows is not None:
        return flows
    bound = _min_max_count(sizes, pair_topic, pair_member, reach)
    flows = banded(bound) if bound != floor else None
    if flows is not None:
        return flows
    return _convex(sizes, pair_topic, pair_member, pair_owned, reach, bound, rack_cost)
