"""When the previous assignment already is the answer: every partition validly owned and the counts
optimally balanced. Then keeping everything is the only optimum (any move loses retention without
improving balance), so the general sticky assignor returns the claims without solving a flow. This is
every second round (the fixpoint) and every rebalance in which nobody joined, left or re-subscribed.

Optimal balance is decided by Frank and Murota's exchange criterion for integral base polyhedra: counts
`c` minimise Σc² iff no member `a` can pass one partition along a chain a -> m1 -> ... -> b (each step:
the giver holds a partition of a topic the receiver subscribes to) to a member with c_b <= c_a - 2.
"""

from __future__ import annotations

import numpy as np

from assigncheck.impl.min_cost_flow import compiled


@compiled("boolean(int64[::1], int64[::1], int64[::1], int64[::1], int64)")
def optimally_balanced(counts: np.ndarray, pair_topic: np.ndarray, pair_member: np.ndarray, pair_owned: np.ndarray,
                       topics: int) -> bool:
    """Do these counts (of a complete assignment) minimise Σ count² under the subscriptions? Pairs are sorted by
    topic (or node); `pair_owned[i] > 0`: pair i's member holds a partition of its topic. Per member `a`, the lowest
    count a partition of `a` can be passed to along a chain (`a` itself included) is the fixed point of
    r(a) = min(c_a, min over topics t that a holds of min over subscribers b of t of r(b)); each round extends the
    chains by one step, and chains are short in practice. The counts are optimal iff c_a - r(a) <= 1 for all a."""
    reach = counts.copy()
    best = np.empty(topics, dtype=np.int64)
    changed = True
    while changed:
        changed = False
        best[:] = np.iinfo(np.int64).max
        for i in range(len(pair_topic)):
            best[pair_topic[i]] = min(best[pair_topic[i]], reach[pair_member[i]])
        for i in range(len(pair_topic)):
            m = pair_member[i]
            if pair_owned[i] > 0 and best[pair_topic[i]] < reach[m]:
                reach[m] = best[pair_topic[i]]
                changed = True
    for m in range(len(counts)):
        if counts[m] - reach[m] > 1:
            return False
    return True


__all__ = ["optimally_balanced"]
