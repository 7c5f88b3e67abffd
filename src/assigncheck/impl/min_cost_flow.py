"""A min-cost flow started from a given flow, for networks with non-negative integer arc costs, compiled with numba:
the banded network of `impl/flow.py`, from the flow that keeps every claim (`banded_flow` builds that network and
solves it in one call). Compiled kernels live in this module and in `impl/sticky_kernel.py`, the two the fuzzer imports
before atheris instruments `assigncheck.impl` (numba compiles a function's bytecode, which must not be instrumented).

Primal-dual (successive shortest paths, in batches): the starting flow may only use arcs of cost 0, so no residual
arc has a negative reduced cost under zero potentials. Each phase runs Dijkstra from every node with excess at once,
up to `D`, the distance of the nearest deficit; raises every potential by its distance (at most `D`); then sends a
blocking flow (Dinic) from the excesses to the deficits along arcs of reduced cost 0 until none is left (the
phase's first round only as far as the nearest deficits). The flow stays of least cost for what it has moved, and
each phase lengthens the shortest path. A rebalance in which most of the flow is in place from the start costs a
few phases over the arcs near the change; OR-Tools' cost scaling starts from nothing and refines the whole network
(1000 x 10,000 after churn: 1.2 ms here, 5 ms there). Dijkstra's queue is a bucket per distance below the node
count (Dial's: reduced costs stay small, so a step costs O(1)) and a heap above it (rack costs); every node nearer
than `D` is settled at its distance whichever way the queue breaks ties, so the potentials are the same either way.

The answer is a pure function of the arcs in the order given (each node's arcs in that order, sources by number),
so equal networks give equal flows in any process. `_solve` is compiled when this module is imported; numba keeps
the machine code in `__pycache__`, so a later process loads it in about 0.2 s instead of compiling for 2-3 s.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from numba import njit

from assigncheck.impl.kernel_cache import healing

_INF = np.int64(1 << 62)
SOLVED, INFEASIBLE, STUCK = 0, 1, 2


NOTICE_AFTER_S = 1.0  # a load from numba's cache takes milliseconds (seconds on a busy machine); compiling, 10-20 s
_noticed = threading.Event()


@contextmanager
def _said_when_compiling(dispatcher: Any) -> Iterator[None]:
    """One line on stderr, once per process, when compiling keeps the user waiting: the first run after an install,
    before numba's cache holds the machine code. Said only for a real compile (numba counts a cache miss before it
    compiles), never for a load from the cache that a busy machine makes slow: then an error stays one line."""
    def say() -> None:
        if sum(dispatcher.stats.cache_misses.values()) and not _noticed.is_set():
            _noticed.set()
            print("assigncheck: compiling its numba kernels, once per installation (10-20 s; cached after)",
                  file=sys.stderr, flush=True)

    timer = threading.Timer(NOTICE_AFTER_S, say)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def compiled(signature: Any = None) -> Callable[[Callable[..., Any]], Any]:
    """numba's `njit` (`signature`: a string, or built of `numba.types`; none: compiled on first call), its machine
    code cached on disk; compiled in memory only where no cache directory is writable (a read-only install and no
    writable home), where numba would raise instead. As `njit(signature, cache=True)` does, in steps, so that the
    notice can tell a compile from a load."""
    from numba.core import typeinfer

    def compile_(fn: Callable[..., Any]) -> Any:
        try:
            dispatcher = healing(njit(cache=True)(fn))  # an unreadable cache entry is discarded and compiled again
        except RuntimeError as e:
            if "cannot cache" not in str(e):
                raise
            dispatcher = njit()(fn)
        if signature is not None:
            with _said_when_compiling(dispatcher), typeinfer.register_dispatcher(dispatcher):
                dispatcher.compile(signature)
                dispatcher.disable_compile()
        return dispatcher
    return compile_


@compiled()
def _push(keys: np.ndarray, items: np.ndarray, size: int, key: int, item: int) -> int:
    """Add (key, item) to the binary heap in keys[:size], items[:size], ordered by (key, item); the new size."""
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        if keys[parent] < key or (keys[parent] == key and items[parent] <= item):
            break
        keys[i], items[i] = keys[parent], items[parent]
        i = parent
    keys[i], items[i] = key, item
    return size + 1


@compiled()
def _pop(keys: np.ndarray, items: np.ndarray, size: int) -> int:
    """Drop the heap's least (key, item), at index 0; the new size."""
    size -= 1
    key, item = keys[size], items[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and (keys[child + 1] < keys[child]
                                 or (keys[child + 1] == keys[child] and items[child + 1] < items[child])):
            child += 1
        if keys[child] > key or (keys[child] == key and items[child] >= item):
            break
        keys[i], items[i] = keys[child], items[child]
        i = child
    keys[i], items[i] = key, item
    return size


# complexity: a numba kernel, kept whole: every phase works on one residual graph (CSR arrays, potentials, heap)
# held in locals, and helpers would pass a dozen arrays in and out inside the solver's inner loops.
@compiled("int64(int64, int64[::1], int64[::1], int64[::1], int64[::1], int64[::1], int64[::1])")
def _solve(nodes: int, tail: np.ndarray, head: np.ndarray, cap: np.ndarray, cost: np.ndarray, flow: np.ndarray,
           supply: np.ndarray) -> int:
    """Complete `flow` (per arc, updated in place) to a min-cost flow that meets every node's `supply`: SOLVED, or
    INFEASIBLE when the supplies cannot all be met (STUCK: a phase moved nothing, which would be a bug here)."""
    arcs = len(tail)
    excess = supply.copy()  # what each node still has to send (negative: to receive)
    for i in range(arcs):
        excess[tail[i]] -= flow[i]
        excess[head[i]] += flow[i]
    # Residual graph: arc i is edge fwd[i] (tail -> head) and its mate (head -> tail), grouped by node (CSR).
    first = np.zeros(nodes + 1, dtype=np.int64)
    for i in range(arcs):
        first[tail[i] + 1] += 1
        first[head[i] + 1] += 1
    for v in range(nodes):
        first[v + 1] += first[v]
    fill = first[:nodes].copy()
    to = np.empty(2 * arcs, dtype=np.int64)
    unit = np.empty(2 * arcs, dtype=np.int64)
    room = np.empty(2 * arcs, dtype=np.int64)
    mate = np.empty(2 * arcs, dtype=np.int64)
    fwd = np.empty(arcs, dtype=np.int64)
    for i in range(arcs):
        a, b = fill[tail[i]], fill[head[i]]
        fill[tail[i]] += 1
        fill[head[i]] += 1
        to[a], to[b] = head[i], tail[i]
        unit[a], unit[b] = cost[i], -cost[i]
        room[a], room[b] = cap[i] - flow[i], flow[i]
        mate[a], mate[b] = b, a
        fwd[i] = a
    potential = np.zeros(nodes, dtype=np.int64)
    dist = np.empty(nodes, dtype=np.int64)
    done = np.zeros(nodes, dtype=np.bool_)
    heap_keys = np.empty(2 * arcs + nodes, dtype=np.int64)
    heap_items = np.empty(2 * arcs + nodes, dtype=np.int64)
    # Distances below `buckets` are kept in a bucket per distance (Dial): reduced costs are small integers in a
    # rebalance, so most of a phase's queue costs O(1) per arc; larger distances (rack costs) go to the heap.
    buckets = nodes + 2
    bucket = np.full(buckets, -1, dtype=np.int64)
    entry_node = np.empty(2 * arcs + nodes, dtype=np.int64)
    entry_next = np.empty(2 * arcs + nodes, dtype=np.int64)
    level = np.empty(nodes, dtype=np.int64)
    queue = np.empty(nodes, dtype=np.int64)
    current = np.empty(nodes, dtype=np.int64)
    path = np.empty(nodes, dtype=np.int64)
    left = 0
    for v in range(nodes):
        if excess[v] > 0:
            left += excess[v]
    while left > 0:
        # Dijkstra from every excess node, on reduced costs (non-negative), up to the nearest deficit.
        size, entries, top = 0, 0, -1
        for v in range(nodes):
            done[v] = False
            dist[v] = _INF
            if excess[v] > 0:
                dist[v] = 0
                entry_node[entries], entry_next[entries] = v, bucket[0]
                bucket[0] = entries
                entries += 1
                top = 0
        reach = int(_INF)
        at = 0
        while True:
            while at <= top and bucket[at] < 0:
                at += 1
            if at <= top:
                d, k = at, bucket[at]
                bucket[at] = entry_next[k]
                u = entry_node[k]
            elif size > 0:
                d, u = heap_keys[0], heap_items[0]
                size = _pop(heap_keys, heap_items, size)
            else:
                break
            if done[u] or d > dist[u]:
                continue
            if d > reach:
                break
            done[u] = True
            if excess[u] < 0 and reach == _INF:
                reach = d
            for e in range(first[u], first[u + 1]):
                if room[e] > 0:
                    w = to[e]
                    nd = d + unit[e] + potential[u] - potential[w]
                    if nd < dist[w]:
                        dist[w] = nd
                        if nd < buckets:
                            entry_node[entries], entry_next[entries] = w, bucket[nd]
                            bucket[nd] = entries
                            entries += 1
                            top = max(top, nd)
                        else:
                            size = _push(heap_keys, heap_items, size, nd, w)
        for b in range(top + 1):
            bucket[b] = -1
        if reach == _INF:
            return INFEASIBLE  # some excess can reach no deficit
        for v in range(nodes):
            potential[v] += dist[v] if done[v] and dist[v] < reach else reach
        # Dinic on the admissible arcs (reduced cost 0), from the excesses to the deficits.
        before, first_round = left, True
        while left > 0:
            tail_q, head_q = 0, 0
            for v in range(nodes):
                level[v] = -1
                if excess[v] > 0:
                    level[v] = 0
                    queue[tail_q] = v
                    tail_q += 1
            found, nearest = False, nodes
            while head_q < tail_q:
                u = queue[head_q]
                head_q += 1
                if excess[u] < 0:
                    found, nearest = True, min(nearest, level[u])
                    continue  # a deficit ends its paths
                if first_round and level[u] >= nearest:
                    # The phase's first round stops at the nearest deficit: most excess goes there directly, and the
                    # rest of the graph is not scanned. Later rounds keep every level, so that one round can also
                    # send along the longer paths that are left (stopping there too took more rounds in all).
                    level[u] = -2
                    continue
                for e in range(first[u], first[u + 1]):
                    w = to[e]
                    if room[e] > 0 and level[w] < 0 and unit[e] + potential[u] - potential[w] == 0:
                        level[w] = level[u] + 1
                        queue[tail_q] = w
                        tail_q += 1
            if not found:
                break
            first_round = False
            for v in range(nodes):
                current[v] = first[v]
            for s in range(nodes):
                while excess[s] > 0:
                    depth, u = 0, s
                    while excess[u] >= 0:  # walk on until a deficit (s itself has excess)
                        e = current[u]
                        while e < first[u + 1]:
                            w = to[e]
                            if room[e] > 0 and level[w] == level[u] + 1 \
                                    and unit[e] + potential[u] - potential[w] == 0:
                                break
                            e += 1
                        current[u] = e
                        if e < first[u + 1]:
                            path[depth] = e
                            depth += 1
                            u = to[e]
                        else:  # a dead end: never visit it again this round
                            level[u] = -2
                            if depth == 0:
                                break
                            depth -= 1
                            u = to[mate[path[depth]]]
                            current[u] += 1
                    if depth == 0:
                        break  # s reaches no deficit in this level graph
                    amount = min(excess[s], -excess[u])
                    for k in range(depth):
                        amount = min(amount, room[path[k]])
                    for k in range(depth):
                        room[path[k]] -= amount
                        room[mate[path[k]]] += amount
                    excess[s] -= amount
                    excess[u] += amount
                    left -= amount
        if left == before:
            return STUCK  # the potentials promised a path of reduced cost 0: never loop on without one
    for i in range(arcs):
        flow[i] = cap[i] - room[fwd[i]]
    return SOLVED


@compiled("int64(int64[::1], int64[::1], int64[::1])")
def count_floor(sizes: np.ndarray, pair_topic: np.ndarray, reach: np.ndarray) -> int:
    """A lower bound of `impl/flow.py`'s B: the average over the members that can take anything (`reach`, per member:
    the partitions it could take), and each node's share over its subscribers. Usually B itself."""
    subscribers = np.zeros(len(sizes), dtype=np.int64)
    for i in range(len(pair_topic)):
        subscribers[pair_topic[i]] += 1
    total, takers = 0, 0
    for t in range(len(sizes)):
        total += sizes[t]
    for m in range(len(reach)):
        takers += reach[m] > 0
    b = -(-total // max(takers, 1))
    for t in range(len(sizes)):
        b = max(b, -(-sizes[t] // max(subscribers[t], 1)))
    return b


@compiled("int64[::1](int64[::1], boolean[::1])")
def rack_costs(sizes: np.ndarray, pair_mismatch: np.ndarray) -> np.ndarray:
    """Per pair, the cost of each of its partitions beyond retention: on a pair whose member is on none of the
    node's replicas' racks, more than any retention difference (new arcs cost 1 each), so the fewest mismatches
    come after balance and before stickiness (KIP-881)."""
    cost = np.zeros(len(pair_mismatch), dtype=np.int64)
    total = 0
    for t in range(len(sizes)):
        total += sizes[t]
    for i in range(len(pair_mismatch)):
        if pair_mismatch[i]:
            cost[i] = total + 1
    return cost


@compiled("int64(int64[::1], int64[::1], int64[::1], int64[::1], boolean[::1], int64, int64, int64[::1], int64[::1])")
def banded_flow(sizes: np.ndarray, pair_topic: np.ndarray, pair_member: np.ndarray, pair_owned: np.ndarray,
                pair_mismatch: np.ndarray, n_members: int, bound: int, keep: np.ndarray, new: np.ndarray) -> int:
    """Builds `impl/flow.py`'s banded network for B = max(`bound`, `count_floor`) and solves it (`_solve`'s status),
    filling `keep` and `new` per pair, with `rack_costs` on mismatched pairs. Arcs: a retained arc per pair
    with claims, a new arc per pair, an arc per member to the sink, in that order. The start keeps every claim that
    costs nothing to keep, each member passing what it keeps beyond its lower band on to the sink. One compiled
    pass: a few dozen array calls cost more than the solve on groups of hundreds of members."""
    n_topics, n_pairs = len(sizes), len(pair_topic)
    reach = np.zeros(n_members, dtype=np.int64)
    for i in range(n_pairs):
        reach[pair_member[i]] += sizes[pair_topic[i]]
    b = max(bound, count_floor(sizes, pair_topic, reach))
    lo, hi = np.minimum(reach, b - 1), np.minimum(reach, b)
    rack_cost = rack_costs(sizes, pair_mismatch)
    sink = n_topics + n_members
    owns = 0
    for i in range(n_pairs):
        owns += pair_owned[i] > 0
    arcs = owns + n_pairs + n_members
    tail, head = np.empty(arcs, dtype=np.int64), np.empty(arcs, dtype=np.int64)
    cap, cost = np.empty(arcs, dtype=np.int64), np.empty(arcs, dtype=np.int64)
    flow = np.zeros(arcs, dtype=np.int64)
    kept = np.zeros(n_members, dtype=np.int64)
    a = 0
    for i in range(n_pairs):
        if pair_owned[i] > 0:
            tail[a], head[a], cap[a], cost[a] = pair_topic[i], n_topics + pair_member[i], pair_owned[i], rack_cost[i]
            if rack_cost[i] == 0:
                flow[a] = pair_owned[i]
                kept[pair_member[i]] += pair_owned[i]
            a += 1
    for i in range(n_pairs):
        m = pair_member[i]
        tail[a], head[a] = pair_topic[i], n_topics + m
        cap[a], cost[a] = min(sizes[pair_topic[i]], hi[m]), rack_cost[i] + 1
        a += 1
    supply = np.empty(sink + 1, dtype=np.int64)
    supply[sink] = 0
    for t in range(n_topics):
        supply[t] = sizes[t]
        supply[sink] -= sizes[t]
    for m in range(n_members):
        tail[a], head[a], cap[a], cost[a] = n_topics + m, sink, hi[m] - lo[m], 0
        flow[a] = min(max(kept[m] - lo[m], 0), hi[m] - lo[m])
        supply[n_topics + m] = -lo[m]
        supply[sink] += lo[m]
        a += 1
    status = _solve(sink + 1, tail, head, cap, cost, flow, supply)
    if status == SOLVED:
        a = 0
        for i in range(n_pairs):
            keep[i] = 0
            if pair_owned[i] > 0:
                keep[i] = flow[a]
                a += 1
        for i in range(n_pairs):
            new[i] = flow[owns + i]
    return status


def min_cost_flow_from(nodes: int, tail: np.ndarray, head: np.ndarray, cap: np.ndarray, cost: np.ndarray,
                       flow: np.ndarray, supply: np.ndarray) -> np.ndarray | None:
    """A min-cost flow per arc meeting every node's `supply` (negative: a demand), started from `flow` (which only
    arcs of cost 0 may carry; costs are non-negative); None when the supplies cannot be met."""
    tail, head, cap, cost, supply = (np.ascontiguousarray(x, dtype=np.int64) for x in (tail, head, cap, cost, supply))
    flow = np.array(flow, dtype=np.int64)
    return flow if solved(_solve(nodes, tail, head, cap, cost, flow, supply)) else None


def solved(status: int) -> bool:
    """A kernel's status read: SOLVED or INFEASIBLE; STUCK (a phase that moved nothing) is a bug, and raises."""
    if status == STUCK:
        raise RuntimeError("min-cost flow made no progress in a phase")
    return status == SOLVED


__all__ = ["INFEASIBLE", "NOTICE_AFTER_S", "SOLVED", "STUCK", "banded_flow", "compiled", "count_floor",
           "min_cost_flow_from", "rack_costs", "solved"]
