"""The oracle's optima for small problems (`spec.small.views.is_small`): the network of `spec.oracle` built from
plain lists in one pass, solved by the same OR-Tools min-cost flow, and read from its optimal cost alone; and the
minimum Σ count² without a flow (`balanced_counts`).

Only the optimal *values* are wanted (Σ count², fewest mismatches, most retained), never a flow, so the network's
node order is free and the three figures decode from the cost: with `rack` above any retention difference and
`weight` above any rack-and-retention difference (as in `spec.oracle._solve`), cost = weight·Σc² + rack·mismatched
- retained. `tests/spec/small/test_oracle.py` holds both paths equal on hypothesis' problems.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from assigncheck.spec.model import Problem
from assigncheck.spec.racks import member_rack
from assigncheck.spec.small.views import ProblemView, problem_view


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
        counts, held = _deal(pv.size, subscribers, members)
    while max(counts, default=0) - min(counts, default=0) > 1:  # else no exchange can lower Σ count²
        reach = _lowest_reachable(counts, held, subscribers)
        a = max(range(members), key=lambda m: counts[m] - reach[m])
        if counts[a] - reach[a] <= 1:
            break
        found, parent = _chain(a, counts, held, subscribers)
        _pass_along(found, parent, held)
        counts[a] -= 1
        counts[found] += 1
    return tuple(counts)


def _deal(size: dict[str, int], subscribers: dict[str, list[int]],
          members: int) -> tuple[list[int], list[dict[str, int]]]:
    """Each topic's partitions one by one to its least loaded subscriber: counts and, per member, topic -> held."""
    counts = [0] * members
    held: list[dict[str, int]] = [{} for _ in range(members)]
    for t, subs in subscribers.items():
        heap = [(counts[m], m) for m in subs]
        heapq.heapify(heap)
        for _ in range(size[t]):
            c, m = heapq.heappop(heap)
            counts[m] = c + 1
            held[m][t] = held[m].get(t, 0) + 1
            heapq.heappush(heap, (c + 1, m))
    return counts, held


def _lowest_reachable(counts: list[int], held: list[dict[str, int]], subscribers: dict[str, list[int]]) -> list[int]:
    """The lowest count reachable from each member along chains (a fixed point, as `impl/already_settled.py`)."""
    reach = list(counts)
    changed = True
    while changed:
        best = {t: min(reach[m] for m in subs) for t, subs in subscribers.items()}
        changed = False
        for m, topics in enumerate(held):
            low = min((best[t] for t, k in topics.items() if k), default=reach[m])
            if low < reach[m]:
                reach[m], changed = low, True
    return reach


def _chain(a: int, counts: list[int], held: list[dict[str, int]],
           subscribers: dict[str, list[int]]) -> tuple[int, dict[int, tuple[int, str] | None]]:
    """A chain (breadth first) from `a` to a member 2+ below it: that member, and each reached member's step back."""
    parent: dict[int, tuple[int, str] | None] = {a: None}
    queue = [a]
    for u in queue:
        for t, k in held[u].items():
            for w in subscribers[t] if k else ():
                if w in parent:
                    continue
                parent[w] = (u, t)
                if counts[w] <= counts[a] - 2:
                    return w, parent
                queue.append(w)
    return -1, parent


def _pass_along(w: int, parent: dict[int, tuple[int, str] | None], held: list[dict[str, int]]) -> None:
    """Each giver on the chain ending at `w` hands one partition of the step's topic to the next member."""
    while (step := parent[w]) is not None:
        u, t = step
        held[u][t] -= 1
        held[w][t] = held[w].get(t, 0) + 1
        w = u


def figures(problem: Problem, balance: str, racks: bool) -> tuple[int | None, int, int] | None:
    """(Σ count², mismatched, retained) of the optimum under `balance` (with `racks` on a rack-aware problem: the
    fewest mismatches before the most retained); None when infeasible (only "perfect"). Σ count² only under
    "optimal" balance (None otherwise). Needs members."""
    pv = problem_view(problem)
    nodes = _nodes(pv, problem.partition_racks or {}, racks)
    owned = _owned(pv, nodes, racks)
    total, total_owned = sum(nodes.sizes), len(pv.valid)
    member_racks = [member_rack(m.rack) for m in problem.members] if racks else []
    pairs = [(k, m, racks and member_racks[m] is not None and member_racks[m] not in nodes.racks[k])
             for k, t in enumerate(nodes.topic) for m in range(len(pv.ids)) if t in pv.subs[m]]
    rack = total_owned + 1 if any(mis for _, _, mis in pairs) else 0
    net = _Network(len(nodes.sizes), len(pv.ids))
    net.sources(nodes.sizes)
    degree = net.pairs(pairs, nodes.sizes, owned, rack)
    net.supplies[0], net.supplies[1] = total, -total
    weight = 0
    if balance == "optimal":
        weight = rack * total + total_owned + 1
        net.convex_sinks(degree, max(balanced_counts(problem), default=0), weight)  # bound: `spec.oracle` docstring
    elif balance == "none":
        net.open_sinks(degree)
    else:
        net.perfect_sinks(total)
    cost = net.solve()
    if cost is None:
        return None
    squares, rest = divmod(cost + total_owned, weight) if weight else (None, cost + total_owned)
    rest -= total_owned  # = rack·mismatched - retained, retained in [0, total_owned] < rack
    mismatched = -((-rest) // rack) if rack else 0
    return squares, mismatched, rack * mismatched - rest


class _Nodes(NamedTuple):
    """The topic-side nodes: one per subscribed topic with partitions, or per (topic, rack set) of its partitions
    with `racks`."""

    sizes: list[int]
    topic: list[str]
    racks: list[frozenset[str]]
    of: dict[tuple[str, int], int]  # (topic, index) -> node, only when split by racks


def _nodes(pv: ProblemView, known: Mapping[str, Any], racks: bool) -> _Nodes:
    nodes = _Nodes([], [], [], {})
    for t in pv.subscribed:
        n = pv.size[t]
        if not n:
            continue
        if not racks:
            nodes.sizes.append(n)
            nodes.topic.append(t)
            continue
        given = known.get(t) or ()
        local: dict[frozenset[str], int] = {}
        for i in range(n):
            s = given[i] if i < len(given) else frozenset()
            if s not in local:
                local[s] = len(nodes.sizes)
                nodes.sizes.append(0)
                nodes.topic.append(t)
                nodes.racks.append(s)
            nodes.of[(t, i)] = local[s]
            nodes.sizes[local[s]] += 1
    return nodes


def _owned(pv: ProblemView, nodes: _Nodes, racks: bool) -> dict[tuple[int, int], int]:
    """(node, member) -> valid claims there."""
    owned: dict[tuple[int, int], int] = {}
    node_index = {t: k for k, t in enumerate(nodes.topic)} if not racks else {}
    for m, _, t, i in pv.valid:
        key = (nodes.of[(t, i)] if racks else node_index[t], m)
        owned[key] = owned.get(key, 0) + 1
    return owned


class _Network:
    """The flow network's arcs as lists: source 0, sink 1, then the topic nodes, then the members."""

    def __init__(self, nodes: int, members: int) -> None:
        self.t0, self.m0, self.members = 2, 2 + nodes, members
        self.tails: list[int] = []
        self.heads: list[int] = []
        self.caps: list[int] = []
        self.costs: list[int] = []
        self.supplies = [0] * (self.m0 + members)

    def arc(self, tail: int, head: int, cap: int, cost: int) -> None:
        self.tails.append(tail)
        self.heads.append(head)
        self.caps.append(cap)
        self.costs.append(cost)

    def sources(self, sizes: list[int]) -> None:
        for k, n in enumerate(sizes):
            self.arc(0, self.t0 + k, n, 0)

    def pairs(self, pairs: list[tuple[int, int, bool]], sizes: list[int], owned: dict[tuple[int, int], int],
              rack: int) -> list[int]:
        """Topic node -> member arcs (the owned part one cheaper, so kept first); each member's degree."""
        degree = [0] * self.members
        for k, m, mis in pairs:
            degree[m] += sizes[k]
            if owned.get((k, m)):
                self.arc(self.t0 + k, self.m0 + m, owned[(k, m)], rack * mis - 1)
            self.arc(self.t0 + k, self.m0 + m, sizes[k], rack * mis)
        return degree

    def convex_sinks(self, degree: list[int], bound: int, weight: int) -> None:
        """"optimal": a member's k-th partition costs weight·(2k - 1), so the flow minimises Σ count² first."""
        for m in range(self.members):
            for k in range(1, min(degree[m], bound) + 1):
                self.arc(self.m0 + m, 1, 1, weight * (2 * k - 1))

    def open_sinks(self, degree: list[int]) -> None:
        for m in range(self.members):
            self.arc(self.m0 + m, 1, degree[m], 0)

    def perfect_sinks(self, total: int) -> None:
        """"perfect": the floor is a demand at each member, the rest one arc of capacity ceil - floor."""
        floor, ceil = total // self.members, -(-total // self.members)
        for m in range(self.members):
            self.supplies[self.m0 + m] = -floor
            self.arc(self.m0 + m, 1, ceil - floor, 0)
        self.supplies[1] = -(total - floor * self.members)

    def solve(self) -> int | None:
        """The optimal cost, or None when infeasible."""
        from ortools.graph.python import min_cost_flow  # here: only a check that needs an optimum pays for OR-Tools

        flow = min_cost_flow.SimpleMinCostFlow()
        flow.add_arcs_with_capacity_and_unit_cost(*(np.array(a, dtype=np.int64)
                                                    for a in (self.tails, self.heads, self.caps, self.costs)))
        flow.set_nodes_supplies(np.arange(len(self.supplies), dtype=np.int64), np.array(self.supplies, dtype=np.int64))
        status = flow.solve()
        if status == flow.INFEASIBLE:
            return None
        if status != flow.OPTIMAL:
            raise RuntimeError(f"min cost flow ended with status {status}")
        return flow.optimal_cost()

__all__ = ["balanced_counts", "figures"]
