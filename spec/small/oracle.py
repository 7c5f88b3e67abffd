"""The oracle's optima for small problems (`spec.small.views.is_small`): the network of `spec.oracle` built from
plain lists in one pass, solved by the same OR-Tools min-cost flow, and read from its optimal cost alone; and the
minimum Σ count² without a flow (`balanced_counts`).

Only the optimal *values* are wanted (Σ count², fewest mismatches, most retained), never a flow, so the network's
node order is free and the three figures decode from the cost: with `rack` above any retention difference and
`weight` above any rack-and-retention difference (as in `spec.oracle._solve`), cost = weight·Σc² + rack·mismatched
- retained. `tests/test_oracle.py` holds both paths equal on hypothesis' problems.
"""

from __future__ import annotations

import heapq

import numpy as np
from ortools.graph.python import min_cost_flow

from assigncheck.spec.model import Problem
from assigncheck.spec.racks import member_rack
from assigncheck.spec.small.views import problem_view


def balanced_counts(problem: Problem, start: list[dict[str, int]] | None = None) -> tuple[int, ...]:
    """Member counts (problem order) of a complete assignment with the minimum Σ count², computed once per problem.

    The count vectors of complete assignments form an M-convex set, where a vector minimises a separable convex
    function iff no single exchange improves it (Murota): here, iff no member `a` can pass a partition along a chain
    (each step: the giver holds a partition of a topic the receiver subscribes to) to a member `b` with
    c_b <= c_a - 2 (Frank & Murota's criterion, as `impl/already_settled.py` uses it). So: deal each topic to its least
    loaded subscribers, then move single partitions along such chains until none is left (each move lowers Σ count²
    by at least 2). Its largest count is also the smallest feasible maximum (a dec-min vector: every minimiser has
    the same counts up to order). `start`, per member the partitions of each topic it holds in a complete assignment
    (one being checked), replaces the dealing: any complete start leads to a minimiser."""
    return problem.derived("balanced_counts", lambda p: _balanced_counts(p, start))


def _balanced_counts(problem: Problem, start: list[dict[str, int]] | None) -> tuple[int, ...]:
    pv = problem_view(problem)
    members = len(pv.ids)
    if members and problem.subscriptions_equal():  # everyone can take anything: perfect balance
        q, r = divmod(sum(pv.size[t] for t in pv.subscribed), members)
        return tuple([q + 1] * r + [q] * (members - r))
    subscribers = {t: [m for m in range(members) if t in pv.subs[m]] for t in pv.subscribed if pv.size[t]}
    if start is not None:
        held = [dict(h) for h in start]
        counts = [sum(h.values()) for h in held]
    else:
        counts = [0] * members
        held = [{} for _ in range(members)]  # member -> topic -> partitions of it
        for t, subs in subscribers.items():
            heap = [(counts[m], m) for m in subs]
            heapq.heapify(heap)
            for _ in range(pv.size[t]):
                c, m = heapq.heappop(heap)
                counts[m] = c + 1
                held[m][t] = held[m].get(t, 0) + 1
                heapq.heappush(heap, (c + 1, m))
    while max(counts, default=0) - min(counts, default=0) > 1:  # else no exchange can lower Σ count²
        # The lowest count reachable from each member along chains (a fixed point, as `impl/already_settled.py`).
        reach = list(counts)
        changed = True
        while changed:
            best = {t: min(reach[m] for m in subs) for t, subs in subscribers.items()}
            changed = False
            for m in range(members):
                low = min((best[t] for t, k in held[m].items() if k), default=reach[m])
                if low < reach[m]:
                    reach[m], changed = low, True
        a = max(range(members), key=lambda m: counts[m] - reach[m])
        if counts[a] - reach[a] <= 1:
            break
        parent: dict[int, tuple[int, str] | None] = {a: None}  # a chain from a to a member 2+ below it
        queue, found = [a], -1
        for u in queue:
            for t, k in held[u].items():
                for w in subscribers[t] if k else ():
                    if w not in parent:
                        parent[w] = (u, t)
                        if counts[w] <= counts[a] - 2:
                            found = w
                            break
                        queue.append(w)
                if found >= 0:
                    break
            if found >= 0:
                break
        w = found
        while (step := parent[w]) is not None:
            u, t = step
            held[u][t] -= 1
            held[w][t] = held[w].get(t, 0) + 1
            w = u
        counts[a] -= 1
        counts[found] += 1
    return tuple(counts)


def figures(problem: Problem, balance: str, racks: bool) -> tuple[int | None, int, int] | None:
    """(Σ count², mismatched, retained) of the optimum under `balance` (with `racks` on a rack-aware problem: the
    fewest mismatches before the most retained); None when infeasible (only "perfect"). Σ count² only under
    "optimal" balance (None otherwise). Needs members."""
    pv = problem_view(problem)
    member_racks = [member_rack(m.rack) for m in problem.members] if racks else []
    known = problem.partition_racks or {}
    # Nodes: one per subscribed topic with partitions, or per (topic, rack set) of its partitions with `racks`.
    node_of: dict[tuple[str, int], int] = {}  # (topic, index) -> node, only when split by racks
    sizes: list[int] = []
    node_topic: list[str] = []
    node_racks: list[frozenset[str]] = []
    for t in pv.subscribed:
        n = pv.size[t]
        if not n:
            continue
        if not racks:
            sizes.append(n)
            node_topic.append(t)
            continue
        given = known.get(t) or ()
        local: dict[frozenset[str], int] = {}
        for i in range(n):
            s = given[i] if i < len(given) else frozenset()
            if s not in local:
                local[s] = len(sizes)
                sizes.append(0)
                node_topic.append(t)
                node_racks.append(s)
            node_of[(t, i)] = local[s]
            sizes[local[s]] += 1
    owned: dict[tuple[int, int], int] = {}  # (node, member) -> valid claims there
    node_index = {t: k for k, t in enumerate(node_topic)} if not racks else {}
    for m, _, t, i in pv.valid:
        key = (node_of[(t, i)] if racks else node_index[t], m)
        owned[key] = owned.get(key, 0) + 1
    total, total_owned = sum(sizes), len(pv.valid)
    members = len(pv.ids)
    pairs = [(k, m, racks and member_racks[m] is not None and member_racks[m] not in node_racks[k])
             for k, t in enumerate(node_topic) for m in range(members) if t in pv.subs[m]]
    rack = total_owned + 1 if any(mis for _, _, mis in pairs) else 0
    t0, m0 = 2, 2 + len(sizes)
    tails, heads, caps = [0] * len(sizes), list(range(t0, m0)), list(sizes)
    costs = [0] * len(sizes)
    degree = [0] * members
    for k, m, mis in pairs:
        degree[m] += sizes[k]
        if owned.get((k, m)):
            tails.append(t0 + k)
            heads.append(m0 + m)
            caps.append(owned[(k, m)])
            costs.append(rack * mis - 1)
        tails.append(t0 + k)
        heads.append(m0 + m)
        caps.append(sizes[k])
        costs.append(rack * mis)
    supplies = [0] * (m0 + members)
    supplies[0], supplies[1] = total, -total
    if balance == "optimal":
        weight = rack * total + total_owned + 1
        bound = max(balanced_counts(problem), default=0)  # no optimum gives anyone more (`spec.oracle` docstring)
        for m in range(members):
            for k in range(1, min(degree[m], bound) + 1):
                tails.append(m0 + m)
                heads.append(1)
                caps.append(1)
                costs.append(weight * (2 * k - 1))
    elif balance == "none":
        weight = 0
        for m in range(members):
            tails.append(m0 + m)
            heads.append(1)
            caps.append(degree[m])
            costs.append(0)
    else:  # "perfect": the floor is a demand at each member, the rest one arc of capacity ceil - floor
        weight = 0
        floor, ceil = total // members, -(-total // members)
        for m in range(members):
            supplies[m0 + m] = -floor
            tails.append(m0 + m)
            heads.append(1)
            caps.append(ceil - floor)
            costs.append(0)
        supplies[1] = -(total - floor * members)
    flow = min_cost_flow.SimpleMinCostFlow()
    flow.add_arcs_with_capacity_and_unit_cost(np.array(tails, dtype=np.int64), np.array(heads, dtype=np.int64),
                                              np.array(caps, dtype=np.int64), np.array(costs, dtype=np.int64))
    flow.set_nodes_supplies(np.arange(len(supplies), dtype=np.int64), np.array(supplies, dtype=np.int64))
    status = flow.solve()
    if status == flow.INFEASIBLE:
        return None
    if status != flow.OPTIMAL:
        raise RuntimeError(f"min cost flow ended with status {status}")
    cost = flow.optimal_cost()
    squares, rest = divmod(cost + total_owned, weight) if weight else (None, cost + total_owned)
    rest -= total_owned  # = rack·mismatched - retained, retained in [0, total_owned] < rack
    mismatched = -((-rest) // rack) if rack else 0
    return squares, mismatched, rack * mismatched - rest

__all__ = ["balanced_counts", "figures"]
