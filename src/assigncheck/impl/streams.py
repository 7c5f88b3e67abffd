"""`streams-sticky`: the capacity-weighted Streams sticky task assignor of KAFKA-7203 (docs/SPEC.md §7.4), fast.

It must reproduce `spec/reference/streams.py` exactly (`promises.exact = "streams"`); the rules and
every tie-break are that module's docstring, restated briefly (it reads capacities and previous tasks
alone: no client's lags, rack or tags, no acceptable recovery lag or rack-aware assignment tags):

1. quota of client c: `floor(T·cap_c/K)`, plus one for the `T - Σ floors` clients of smallest
   `(floor_c + 1)/cap_c`, ties by client id;
2. valid previous actives: known tasks claimed active by exactly one client;
3. keep `min(|valid|, quota)` of them, sub-topology by sub-topology greedily by largest deficit
   `k·n_s - kept_s·T` (ties by name), lowest indices first;
4. the pool: every task not kept, in (sub-topology, index) order;
5. laps over clients in id order; each client below quota takes one task: the sub-topology of largest
   deficit `quota·n_s - have_s·T`, then one holding a previous standby of this client, then by name;
   within it the lowest-index standby of this client, else the lowest index.

What makes it fast (the reference rescans every sub-topology and the pool on every pick):
- step 3 keeps a heap of (deficit key, name) per client; a key changes only for the sub-topology just
  taken from;
- step 5 keeps, per receiving client, a heap of (deficit key, name) over sub-topologies with lazy
  deletion (pools only shrink, so an empty pool is dropped for good; a stale key is re-pushed), and
  checks the standby rule only among the client's own standby sub-topologies tied at the best key;
- pools are boolean lists with a cursor at the lowest remaining index, and each client's standbys a
  sorted list per sub-topology with a cursor past the ones already taken.
"""

from __future__ import annotations

import heapq
from fractions import Fraction

from assigncheck.impl.problem_kind import require_streams_problem
from assigncheck.spec.errors import InputError
from assigncheck.spec.model import AnyProblem, Assignment, Client, StreamsProblem
from assigncheck.spec.promises import Promises


def client_quotas(problem: StreamsProblem) -> list[int]:
    """Tasks per client, in the problem's client order (rule 1)."""
    for i, c in enumerate(problem.clients):
        if c.capacity < 1:
            raise InputError(f"clients[{i}].capacity", f"must be at least 1, got {c.capacity}")
    total, capacity = problem.task_count, problem.total_capacity
    quota = [total * c.capacity // capacity for c in problem.clients]
    extra = total - sum(quota)
    order = sorted(range(len(quota)), key=lambda i: (Fraction(quota[i] + 1, problem.clients[i].capacity),
                                                     problem.clients[i].client_id))
    for i in order[:extra]:
        quota[i] += 1
    return quota


def _valid_actives(problem: StreamsProblem, pos: dict[str, int]) -> list[dict[int, list[int]]]:
    """Per client: sub-topology position -> sorted indices it alone claims active (rule 2). Plain
    Python: a client holds a handful of tasks, far too few to pay numpy's per-call cost."""
    sizes = [problem.subtopologies[s] for s in pos]
    claims: list[dict[int, set[int]]] = []
    claimants: dict[tuple[int, int], int] = {}
    for c in problem.clients:
        mine = {}
        for s, arr in c.active.items():
            k = pos.get(s)
            if k is not None:
                idx = {i for i in arr.tolist() if 0 <= i < sizes[k]}
                if idx:
                    mine[k] = idx
                    for i in idx:
                        claimants[(k, i)] = claimants.get((k, i), 0) + 1
        claims.append(mine)
    out = []
    for mine in claims:
        valid = {k: sorted(i for i in idx if claimants[(k, i)] == 1) for k, idx in mine.items()}
        out.append({k: idx for k, idx in valid.items() if idx})
    return out


def _keep_counts(previous: dict[int, int], keep: int, sizes: list[int], total: int) -> dict[int, int]:
    """How many previous actives of each sub-topology to keep (rule 3): a heap on the deficit key."""
    kept = dict.fromkeys(previous, 0)
    heap = [(-keep * sizes[k], k) for k in sorted(previous)]  # kept * T - keep * n_s, then name (position)
    heapq.heapify(heap)
    for _ in range(keep):
        key, k = heapq.heappop(heap)
        kept[k] += 1
        if kept[k] < previous[k]:
            heapq.heappush(heap, (key + total, k))
    return kept


class _Pool:
    """The tasks not kept, per sub-topology: a membership mask and a cursor at the lowest one left."""

    def __init__(self, free: list[list[bool]]) -> None:
        self.free = free
        self.left = [sum(f) for f in free]
        self.cursor = [0] * len(free)

    def lowest(self, k: int) -> int:
        free, i = self.free[k], self.cursor[k]
        while not free[i]:
            i += 1
        self.cursor[k] = i
        return i

    def take(self, k: int, index: int) -> None:
        self.free[k][index] = False
        self.left[k] -= 1


class _Taker:
    """A client that takes tasks from the pool: its deficit heap and its standbys per sub-topology."""

    def __init__(self, held: list[int], quota: int, sizes: list[int], total: int,
                 standby: dict[int, list[int]]) -> None:
        self.held, self.quota, self.total, self.sizes = held, quota, total, sizes
        self.heap = [(h * total - quota * n, k) for k, (h, n) in enumerate(zip(held, sizes))]
        heapq.heapify(self.heap)
        self.standby = standby  # sub-topology -> sorted valid indices of previous standbys
        self.standby_cursor = dict.fromkeys(standby, 0)
        self.standby_order = sorted(standby)

    def key(self, k: int) -> int:
        return self.held[k] * self.total - self.quota * self.sizes[k]

    def _standby_left(self, k: int, pool: _Pool) -> int | None:
        """This client's lowest previous standby of sub-topology k still in the pool."""
        indices, i = self.standby[k], self.standby_cursor[k]
        free = pool.free[k]
        while i < len(indices) and not free[indices[i]]:
            i += 1
        self.standby_cursor[k] = i
        return indices[i] if i < len(indices) else None

    def pick(self, pool: _Pool) -> tuple[int, int]:
        """Rule 5: minimise (deficit key, no standby of mine left in it, name) over non-empty pools."""
        heap = self.heap
        while True:  # drop empty pools for good, re-push stale keys; then the top is the true minimum
            key, k = heap[0]
            if not pool.left[k]:
                heapq.heappop(heap)
            elif key != self.key(k):
                heapq.heapreplace(heap, (self.key(k), k))
            else:
                break
        best_key, chosen = heap[0]
        index = None
        for k in self.standby_order:  # by name: the first tied sub-topology holding one of my standbys
            if pool.left[k] and self.key(k) == best_key:
                index = self._standby_left(k, pool)
                if index is not None:
                    chosen = k
                    break
        if index is None:
            index = pool.lowest(chosen)
        self.held[chosen] += 1
        return chosen, index


def assign_streams(problem: StreamsProblem) -> Assignment:
    names = sorted(problem.subtopologies)
    pos = {s: k for k, s in enumerate(names)}
    sizes = [problem.subtopologies[s] for s in names]
    total = sum(sizes)
    if not problem.clients:
        return Assignment({})
    quota = client_quotas(problem)
    free = [[True] * n for n in sizes]
    held: list[list[int]] = []
    out: list[dict[int, list[int]]] = []
    for ci, mine in enumerate(_valid_actives(problem, pos)):
        count = sum(len(idx) for idx in mine.values())
        keep = _keep_counts({k: len(idx) for k, idx in mine.items()}, min(count, quota[ci]), sizes, total)
        counts = [0] * len(names)
        parts: dict[int, list[int]] = {}
        for k, idx in mine.items():
            if keep[k]:
                parts[k] = idx[: keep[k]]
                counts[k] = keep[k]
                for i in parts[k]:
                    free[k][i] = False
        held.append(counts)
        out.append(parts)

    pool = _Pool(free)
    ids = [c.client_id for c in problem.clients]
    order = sorted(range(len(ids)), key=ids.__getitem__)
    receiving = [ci for ci in order if sum(held[ci]) < quota[ci]]
    takers = {ci: _Taker(held[ci], quota[ci], sizes, total, _standbys(problem.clients[ci], pos, sizes))
              for ci in receiving}
    while receiving:  # laps over the clients still below quota, in id order
        still = []
        for ci in receiving:
            k, index = takers[ci].pick(pool)
            pool.take(k, index)
            out[ci].setdefault(k, []).append(index)
            if sum(held[ci]) < quota[ci]:
                still.append(ci)
        receiving = still
    return Assignment.of({c.client_id: {names[k]: idx for k, idx in parts.items()}
                          for c, parts in zip(problem.clients, out)})


def _standbys(client: Client, pos: dict[str, int], sizes: list[int]) -> dict[int, list[int]]:
    """Sub-topology position -> sorted valid indices of the client's previous standbys."""
    out = {}
    for s, arr in client.standby.items():
        k = pos.get(s)
        if k is not None:
            idx = sorted({i for i in arr.tolist() if 0 <= i < sizes[k]})
            if idx:
                out[k] = idx
    return out


class StreamsStickyAssignor:
    """KAFKA-7203: capacity-weighted quotas, sticky actives, sub-topology mix (see the module docstring); it
    reads no lags, racks or client tags."""

    name = "streams-sticky"
    problem_kind = "streams"  # it assigns StreamsProblem tasks, not consumer groups
    promises = Promises(exact="streams", task_balance="capacity", active_stickiness=True, subtopology_mix=True)

    def assign(self, problem: AnyProblem) -> Assignment:
        return assign_streams(require_streams_problem(problem, self.name))


__all__ = ["StreamsStickyAssignor", "assign_streams", "client_quotas"]
