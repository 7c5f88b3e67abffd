"""The counting half of the general sticky assignor: how many partitions of each topic each member
keeps and how many it receives, from one min-cost flow over (topic, member) pairs.

Partitions of one topic are interchangeable up to who owned them, so the network needs no node per
partition:

- one node per subscribed topic `t` (supply `n_t`), one per member, one sink (demand `P`);
- per pair (t, m) with m subscribed to t: a *retained* arc, capacity `|V_m ∩ t|` (m's valid claims
  on t), cost 0, and a *new* arc, capacity `min(n_t, B)`, cost 1 per partition;
- per member: unit arcs to the sink for its k-th partition, k = 1..min(K_m, B), cost `W·(2k-1)`,
  so a member holding k partitions pays `W·k²` (convex: the solver fills them in order).

`W = Σ|V_m| + 1` exceeds every possible difference in retention cost, and two count vectors with
the same total differ by an even Σcount², so any better balance beats any better retention: the
optimum is the most retaining assignment among those with minimum Σcount² (SPEC.md §8).

`B` is the smallest feasible maximum member count (max flows: galloping up from a lower bound, then
bisecting the last gap; usually one or two solves). A minimiser of Σcount² also minimises the largest
count (it is decreasingly minimal, Frank & Murota), so capping every member at `B` removes no optimum
and keeps the network at about Σ_m min(K_m, B) arcs instead of Σ_m K_m.

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


def solve_counts(sizes: np.ndarray, pair_topic: np.ndarray, pair_member: np.ndarray,
                 pair_owned: np.ndarray, n_members: int) -> PairFlows:
    """Optimal keep/new counts per pair. Pairs must be sorted by (topic, member); every topic must
    have at least one pair. `pair_owned[i]` = valid claims of that member on that topic."""
    sizes = sizes.astype(np.int64)
    n_topics = len(sizes)
    n_pairs = len(pair_topic)
    if n_pairs == 0 or int(sizes.sum()) == 0:
        zero = np.zeros(n_pairs, dtype=np.int64)
        return PairFlows(zero, zero.copy())
    reach = np.bincount(pair_member, weights=sizes[pair_topic], minlength=n_members).astype(np.int64)
    bound = _min_max_count(sizes, pair_topic, pair_member, reach)
    weight = int(pair_owned.sum()) + 1

    sink = n_topics + n_members
    net = min_cost_flow.SimpleMinCostFlow()
    heads = n_topics + pair_member
    keep_arcs = net.add_arcs_with_capacity_and_unit_cost(pair_topic, heads, pair_owned.astype(np.int64),
                                                         np.zeros(n_pairs, dtype=np.int64))
    new_arcs = net.add_arcs_with_capacity_and_unit_cost(pair_topic, heads, np.minimum(sizes[pair_topic], bound),
                                                        np.ones(n_pairs, dtype=np.int64))
    # Unit arcs member -> sink for its 1st, 2nd, ... partition, member by member.
    slots = np.minimum(reach, bound)
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
        raise RuntimeError(f"min-cost flow failed with status {status}")
    return PairFlows(net.flows(keep_arcs), net.flows(new_arcs))
