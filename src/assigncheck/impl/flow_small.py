"""`impl/flow.py` for small networks, from plain lists: `B` by Gale's condition instead of max flows, then the same
networks, built and solved by the same compiled code (`flow.banded`, else `flow.convex`), so the same optimum is
picked; answers are remembered.
`tests/impl/test_flow_small.py` holds every answer equal to `flow.solve_counts`.

`B`, the smallest feasible maximum count: member m never takes more than it could (`K_m`), so a cap `b` is feasible
iff every set S of topics fits into its subscribers, n(S) <= b·|N(S)| (Gale, Hall). Splitting a topic into rack
nodes changes neither side for whole topics and a part of a topic only lowers n(S), so the topics' subsets suffice:
B = max over S of ceil(n(S) / |N(S)|), 2^T sets, used up to `GALE_TOPICS` topics.
"""

from __future__ import annotations

import numpy as np

from assigncheck.impl import flow
from assigncheck.impl.min_cost_flow import rack_costs

GALE_TOPICS = 6


def min_max_count(sizes: list[int], pair_topic: list[int], pair_member: list[int], topic_of_node: list[int],
                  members: int) -> int:
    """The smallest B such that every partition can be placed with no member above B (`flow.min_max_count`)."""
    topics = max(topic_of_node, default=-1) + 1
    if topics > GALE_TOPICS:
        reach = [0] * members
        for t, m in zip(pair_topic, pair_member):
            reach[m] += sizes[t]
        return flow.min_max_count(np.array(sizes, dtype=np.int64), np.array(pair_topic, dtype=np.int64),
                                   np.array(pair_member, dtype=np.int64), np.array(reach, dtype=np.int64))
    size, mask = [0] * topics, [0] * topics
    for node, n in enumerate(sizes):
        size[topic_of_node[node]] += n
    for t, m in zip(pair_topic, pair_member):
        mask[topic_of_node[t]] |= 1 << m
    fits, n_of, best = [0] * (1 << topics), [0] * (1 << topics), 0
    for s in range(1, 1 << topics):
        low = s & -s
        k = low.bit_length() - 1
        fits[s], n_of[s] = fits[s ^ low] | mask[k], n_of[s ^ low] + size[k]
        if n_of[s]:
            best = max(best, -(-n_of[s] // fits[s].bit_count()))
    return best


# A check runs an assignor 3-7 times on one group (again, listed in another order, each cooperative round's eager
# form), and each run builds the same network: answers are remembered by the network's content (a pure function of
# it; the solvers are deterministic), for the last `MEMO` networks.
MEMO = 16
_memo: dict[tuple[tuple[int, ...], ...], tuple[list[int], list[int]]] = {}


def solve_counts(sizes: list[int], pair_topic: list[int], pair_member: list[int], pair_owned: list[int],
                 members: int, pair_mismatch: list[bool], topic_of_node: list[int]) -> tuple[list[int], list[int]]:
    """(keep, new) per pair, as `flow.solve_counts` answers for the same network (`topic_of_node`: each node's
    topic, nodes of one topic adjacent). Do not mutate the answer."""
    key = (tuple(sizes), tuple(pair_topic), tuple(pair_member), tuple(pair_owned), (members,), tuple(pair_mismatch),
           tuple(topic_of_node))
    answer = _memo.get(key)
    if answer is None:
        answer = _solve_counts(sizes, pair_topic, pair_member, pair_owned, members, pair_mismatch, topic_of_node)
        if len(_memo) >= MEMO:
            _memo.pop(next(iter(_memo)))
        _memo[key] = answer
    return answer


def _solve_counts(sizes: list[int], pair_topic: list[int], pair_member: list[int], pair_owned: list[int],
                  members: int, pair_mismatch: list[bool], topic_of_node: list[int]) -> tuple[list[int], list[int]]:
    n_pairs, total = len(pair_topic), sum(sizes)
    if n_pairs == 0 or total == 0:
        return [0] * n_pairs, [0] * n_pairs
    bound = min_max_count(sizes, pair_topic, pair_member, topic_of_node, members)
    size, node, member, owned = (np.array(x, dtype=np.int64) for x in (sizes, pair_topic, pair_member, pair_owned))
    mismatch = np.array(pair_mismatch, dtype=bool)
    flows = flow.banded(size, node, member, owned, mismatch, members, bound)
    if flows is None:
        reach = np.bincount(member, weights=size[node], minlength=members).astype(np.int64)
        flows = flow.convex(size, node, member, owned, reach, bound, rack_costs(size, mismatch))
    return flows.keep.tolist(), flows.new.tolist()


__all__ = ["GALE_TOPICS", "MEMO", "min_max_count", "solve_counts"]
