"""Reference Streams sticky task assignor (KAFKA-7203; docs/SPEC.md §7.4).

Tasks are (sub-topology, index); T tasks in all, K = Σ capacity. Every tie-break, in order:

1. Quota. Client c gets `floor(T * cap_c / K)`. The R = T - Σ floors remaining tasks go one each to
   the R clients with the smallest `(floor_c + 1) / cap_c` (the load they would reach), ties by
   client id. (R < number of clients.) Then max - min of quota/capacity <= 1: a client that got an
   extra was, when chosen, at most at any other client's final load plus 1 / cap.
2. Valid previous actives: a claimed task of an unknown sub-topology or out of range, or claimed
   active by two or more clients, is nobody's. A client listing a task twice claims it once.
3. Keep. Client c keeps `k = min(|valid previous actives|, quota_c)` of them. The kept counts per
   sub-topology are built one task at a time: next is the sub-topology s (with a previous active
   left) of largest deficit `k * n_s - kept_s * T` (its share of k in the global mix, minus what is
   kept, times T), ties by sub-topology name; within s the lowest indices are kept. This minimises
   Σ_s (kept_s - k * n_s / T)² under kept_s <= previous_s (greedy on a separable convex cost).
   KAFKA-7203's example (docs/SPEC.md §7.4): previous st0:4, st1:0, st2:2, mix 1:1:2, keep 3 -> keeps st0:1,
   st2:2 (gives up 3 of st0; the JIRA's "2 of st0 and 1 of st1" is impossible: it holds no st1 task).
4. Pool: every task not kept (given up, unclaimed, or disputed), in (sub-topology, index) order.
5. Hand-out: laps over the clients in id order; in each lap every client still below its quota gets
   one task: the sub-topology of largest deficit `quota_c * n_s - have_s * T`, then one that holds a
   previous standby of this client, then by name; within it the lowest-index previous standby of
   this client, else the lowest index.
"""

from __future__ import annotations

from fractions import Fraction

from assigncheck.spec.errors import InputError
from assigncheck.spec.model import Assignment, StreamsProblem, iter_pairs
from assigncheck.spec.promises import Promises

Task = tuple[str, int]


def valid_previous_actives(problem: StreamsProblem) -> dict[str, set[Task]]:
    """Client id -> the previous active tasks that count (known tasks claimed by it alone)."""
    claims = {
        c.client_id: {
            (s, i) for s, i in iter_pairs(c.active) if s in problem.subtopologies and 0 <= i < problem.subtopologies[s]
        }
        for c in problem.clients
    }
    claimants: dict[Task, int] = {}
    for mine in claims.values():
        for task in mine:
            claimants[task] = claimants.get(task, 0) + 1
    return {c: {t for t in mine if claimants[t] == 1} for c, mine in claims.items()}


def quotas(problem: StreamsProblem) -> dict[str, int]:
    """Client id -> number of active tasks it should run (rule 1 of the module docstring)."""
    for i, c in enumerate(problem.clients):
        if c.capacity < 1:
            raise InputError(f"clients[{i}].capacity", f"must be at least 1, got {c.capacity}")
    total, capacity = problem.task_count, problem.total_capacity
    quota = {c.client_id: total * c.capacity // capacity for c in problem.clients}
    extra = total - sum(quota.values())
    order = sorted(problem.clients, key=lambda c: (Fraction(quota[c.client_id] + 1, c.capacity), c.client_id))
    for c in order[:extra]:
        quota[c.client_id] += 1
    return quota


def kept_mix(previous: dict[str, int], keep: int, sizes: dict[str, int]) -> dict[str, int]:
    """How many previous actives of each sub-topology to keep (rule 3 of the module docstring)."""
    total = sum(sizes.values())
    kept = dict.fromkeys(previous, 0)
    for _ in range(keep):
        s = min((s for s in previous if kept[s] < previous[s]), key=lambda s: (kept[s] * total - keep * sizes[s], s))
        kept[s] += 1
    return kept


class StreamsReference:
    name = "streams"
    promises = Promises()  # its own invariants are checked by spec.streams_checks.check_streams

    def assign(self, problem: StreamsProblem) -> Assignment:
        out: dict[str, list[Task]] = {c.client_id: [] for c in problem.clients}
        if not problem.clients:
            return Assignment.of(out)
        sizes = dict(problem.subtopologies)
        quota = quotas(problem)
        self._keep_previous(problem, out, quota, sizes)
        self._deal_rest(problem, out, quota, sizes)
        return Assignment.of(out)

    @staticmethod
    def _keep_previous(problem: StreamsProblem, out: dict[str, list[Task]], quota: dict[str, int],
                       sizes: dict[str, int]) -> None:
        """Each client keeps the mix of its valid previous active tasks that `kept_mix` gives it, up to its quota."""
        valid = valid_previous_actives(problem)
        for c in problem.clients:
            mine = valid[c.client_id]
            previous = {s: sorted(i for t, i in mine if t == s) for s in sorted({s for s, _ in mine})}
            keep = kept_mix({s: len(ix) for s, ix in previous.items()}, min(len(mine), quota[c.client_id]), sizes)
            out[c.client_id] = [(s, i) for s in previous for i in previous[s][: keep[s]]]

    def _deal_rest(self, problem: StreamsProblem, out: dict[str, list[Task]], quota: dict[str, int],
                   sizes: dict[str, int]) -> None:
        """The tasks nobody kept, one per client in client-id order, round after round, to clients under quota."""
        kept = {t for tasks in out.values() for t in tasks}
        pool = {s: [i for i in range(n) if (s, i) not in kept] for s, n in sorted(sizes.items())}
        clients = sorted(problem.clients, key=lambda c: c.client_id)
        left = sum(len(ix) for ix in pool.values())
        while left:
            for c in clients:
                cid = c.client_id
                if left and len(out[cid]) < quota[cid]:
                    out[cid].append(self._pick(out[cid], set(iter_pairs(c.standby)), quota[cid], pool, sizes,
                                               problem.task_count))
                    left -= 1

    @staticmethod
    def _pick(have: list[Task], standby: set[Task], quota: int, pool: dict[str, list[int]],
              sizes: dict[str, int], total: int) -> Task:
        """Take from `pool` the task rule 5 of the module docstring gives this client."""
        held = {s: 0 for s in sizes}
        for s, _ in have:
            held[s] += 1

        def rank(s: str) -> tuple[int, bool, str]:
            has_standby = any((s, i) in standby for i in pool[s])
            return held[s] * total - quota * sizes[s], not has_standby, s

        s = min((s for s in pool if pool[s]), key=rank)
        index = next((i for i in pool[s] if (s, i) in standby), pool[s][0])
        pool[s].remove(index)
        return s, index

__all__ = ["StreamsReference", "kept_mix", "quotas", "valid_previous_actives"]
