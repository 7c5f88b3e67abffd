"""`impl/flow.py` for small networks, from plain lists: the same OR-Tools networks, arc for arc in the same order
(so the same optimum is picked), built without a numpy call per step; and `B` by Gale's condition instead of max
flows. `tests/test_impl_small_paths.py` holds every answer equal to `flow.solve_counts`.

`B`, the smallest feasible maximum count: member m never takes more than it could (`K_m`), so a cap `b` is feasible
iff every set S of topics fits into its subscribers, n(S) <= b·|N(S)| (Gale, Hall). Splitting a topic into rack
nodes changes neither side for whole topics and a part of a topic only lowers n(S), so the topics' subsets suffice:
B = max over S of ceil(n(S) / |N(S)|), 2^T sets, used up to `GALE_TOPICS` topics.
"""

from __future__ import annotations

import numpy as np
from ortools.graph.python import min_cost_flow

from .flow import _min_max_count, banded_max_flow

GALE_TOPICS = 6


def min_max_count(sizes: list[int], pair_topic: list[int], pair_member: list[int], topic_of_node: list[int],
                  members: int) -> int:
    """The smallest B such that every partition can be placed with no member above B (`flow._min_max_count`)."""
    topics = max(topic_of_node, default=-1) + 1
    if topics > GALE_TOPICS:
        reach = [0] * members
        for t, m in zip(pair_topic, pair_member):
            reach[m] += sizes[t]
        return _min_max_count(np.array(sizes, dtype=np.int64), np.array(pair_topic, dtype=np.int64),
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


def _pair_arcs(sizes: list[int], pair_topic: list[int], pair_member: list[int], pair_owned: list[int],
               cap: list[int], rack_cost: list[int]) -> tuple[list[int], list[list[int]]]:
    """`flow._pair_arcs`' arcs, as (pairs with a retained arc, [tails, heads, capacities, costs])."""
    n_topics = len(sizes)
    owns = [i for i, o in enumerate(pair_owned) if o > 0]
    keep = [[pair_topic[i] for i in owns], [n_topics + pair_member[i] for i in owns], [pair_owned[i] for i in owns],
            [rack_cost[i] for i in owns]]
    new = [pair_topic, [n_topics + m for m in pair_member], [min(sizes[t], cap[m]) for t, m in zip(pair_topic,
                                                                                                    pair_member)],
           [c + 1 for c in rack_cost]]
    return owns, [a + b for a, b in zip(keep, new)]


def _keep_all(sizes: list[int], pair_topic: list[int], pair_member: list[int], pair_owned: list[int], lo: list[int],
              hi: list[int]) -> tuple[list[int], list[int]] | None:
    """`flow._banded_keep_all` on the same network, arc for arc."""
    n_topics, n_members, n_pairs = len(sizes), len(lo), len(pair_topic)
    owned = [0] * n_members
    for m, o in zip(pair_member, pair_owned):
        owned[m] += o
    keep = [min(o, h) for o, h in zip(owned, hi)]
    need = [max(x - k, 0) for x, k in zip(lo, keep)]
    spill, source, target = n_topics + 2 * n_members, n_topics + 2 * n_members + 1, n_topics + 2 * n_members + 2
    members, keepers = list(range(n_topics, n_topics + n_members)), list(range(n_topics + n_members, spill))
    total = sum(sizes)
    spare = total - sum(keep) - sum(need)
    if spare < 0:
        return None
    owns = [i for i, o in enumerate(pair_owned) if o > 0]
    tails = [source] * n_topics + [pair_topic[i] for i in owns] + pair_topic + keepers + members + members + [spill]
    heads = list(range(n_topics)) + [keepers[pair_member[i]] for i in owns] + [n_topics + m for m in pair_member] \
        + [target] * (2 * n_members) + [spill] * n_members + [target]
    caps = sizes + [pair_owned[i] for i in owns] \
        + [min(sizes[t], hi[m] - keep[m]) for t, m in zip(pair_topic, pair_member)] + keep + need \
        + [h - k - x for h, k, x in zip(hi, keep, need)] + [spare]
    flows = banded_max_flow(tails, heads, caps, source, target, total, n_topics, len(owns), n_pairs)
    if flows is None:
        return None
    kept = [0] * n_pairs
    for i, f in zip(owns, flows[0].tolist()):
        kept[i] = f
    return kept, flows[1].tolist()


def _solved(net: min_cost_flow.SimpleMinCostFlow, owns: list[int], arcs: np.ndarray, n_pairs: int
            ) -> tuple[list[int], list[int]] | None:
    status = net.solve()
    if status == net.INFEASIBLE:
        return None
    if status != net.OPTIMAL:
        raise RuntimeError(f"min-cost flow failed with status {status}")
    flows = net.flows(arcs).tolist()
    keep = [0] * n_pairs
    for i, f in zip(owns, flows):
        keep[i] = f
    return keep, flows[len(owns):]


# A check runs an assignor 3-7 times on one group (again, listed in another order, each cooperative round's eager
# form), and each run builds the same network: answers are remembered by the network's content (a pure function of
# it; OR-Tools is deterministic), for the last `MEMO` networks.
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
    reach = [0] * members
    for t, m in zip(pair_topic, pair_member):
        reach[m] += sizes[t]
    bound = min_max_count(sizes, pair_topic, pair_member, topic_of_node, members)
    rack_cost = [total + 1 if x else 0 for x in pair_mismatch] if any(pair_mismatch) else [0] * n_pairs
    n_topics = len(sizes)
    sink = n_topics + members
    lo, hi = [min(r, bound - 1) for r in reach], [min(r, bound) for r in reach]
    banded = None if any(rack_cost) else _keep_all(sizes, pair_topic, pair_member, pair_owned, lo, hi)
    if banded is None:
        net = min_cost_flow.SimpleMinCostFlow()
        owns, (tails, heads, caps, costs) = _pair_arcs(sizes, pair_topic, pair_member, pair_owned, hi, rack_cost)
        arcs = net.add_arcs_with_capacity_and_unit_cost(tails, heads, caps, costs)
        net.add_arcs_with_capacity_and_unit_cost(list(range(n_topics, sink)), [sink] * members,
                                                 [h - x for h, x in zip(hi, lo)], [0] * members)
        net.set_nodes_supplies(list(range(sink + 1)), sizes + [-x for x in lo] + [sum(lo) - total])
        banded = _solved(net, owns, arcs, n_pairs)
    if banded is not None:
        return banded
    weight = max(rack_cost) * total + sum(pair_owned) + 1
    net = min_cost_flow.SimpleMinCostFlow()
    slots = [min(r, bound) for r in reach]
    owns, (tails, heads, caps, costs) = _pair_arcs(sizes, pair_topic, pair_member, pair_owned, slots, rack_cost)
    arcs = net.add_arcs_with_capacity_and_unit_cost(tails, heads, caps, costs)
    unit_tails = [n_topics + m for m in range(members) for _ in range(slots[m])]
    net.add_arcs_with_capacity_and_unit_cost(unit_tails, [sink] * len(unit_tails), [1] * len(unit_tails),
                                             [weight * (2 * k - 1) for m in range(members)
                                              for k in range(1, slots[m] + 1)])
    net.set_nodes_supplies(list(range(sink + 1)), sizes + [0] * members + [-total])
    convex = _solved(net, owns, arcs, n_pairs)
    if convex is None:
        raise RuntimeError("min-cost flow infeasible: every subscribed partition has a subscriber")
    return convex
