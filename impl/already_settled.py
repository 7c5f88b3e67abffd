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


def min_reachable(counts: np.ndarray, pair_topic: np.ndarray, pair_member: np.ndarray, holds: np.ndarray,
                  topics: int) -> np.ndarray:
    """Per member `a`: the lowest count among the members a partition of `a` can be passed to along a chain
    (`a` itself included). Pairs are sorted by topic; `holds[i]`: pair i's member holds a partition of its
    topic. A fixed point of r(a) = min(c_a, min over topics t that a holds of min over subscribers b of t
    of r(b)); each round extends the chains by one step, and chains are short in practice."""
    reach = counts.astype(np.int64).copy()
    if not len(pair_topic):
        return reach
    starts = np.flatnonzero(np.r_[True, pair_topic[1:] != pair_topic[:-1]])
    present = pair_topic[starts]
    held_topic, held_member = pair_topic[holds], pair_member[holds]
    best = np.zeros(topics, dtype=np.int64)
    while True:
        best[present] = np.minimum.reduceat(reach[pair_member], starts)
        before = reach.copy()
        np.minimum.at(reach, held_member, best[held_topic])
        if np.array_equal(before, reach):
            return reach


def optimally_balanced(counts: np.ndarray, pair_topic: np.ndarray, pair_member: np.ndarray, holds: np.ndarray,
                       topics: int) -> bool:
    """Do these counts (of a complete assignment) minimise Σ count² under the subscriptions?"""
    reach = min_reachable(counts, pair_topic, pair_member, holds, topics)
    return bool((counts - reach <= 1).all())
