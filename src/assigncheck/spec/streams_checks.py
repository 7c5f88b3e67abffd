"""Checks of a Streams task assignment (docs/SPEC.md §7.4).

Invariants, on every Streams target (each names the clients and tasks involved, at most `CAP` of each):
- `streams.clients`: the output names a client that is not in the problem, or leaves one out.
- `streams.active_once`: every task active exactly once: no unknown task (sub-topology or index),
  none listed twice, none missing.
- `streams.standby_replicas`: every standby is of a known task, and no task has more than
  `num_standby_replicas` standbys (KIP-1071's test helper: "at most numStandbyReplicas").
- `streams.standby_apart`: no client holds two copies of a task: a standby on the client running it as active,
  or one standby listed twice (KIP-924's "invalid standby", KIP-1071's "no process holding two copies").
- `streams.standby_stateful`: no standby of a stateless task (a sub-topology without a state store has
  nothing to replicate).

Promises, checked only when the target makes them (`Promises.task_balance`, `active_stickiness`, `subtopology_mix`):
- `streams.balance`: "capacity": max - min of tasks / capacity <= 1 (Kafka's `assertBalancedActiveAssignment`);
  "ceiling": no client above capacity * ceil(T / K) tasks (T tasks, K = Σ capacity: KIP-1071's per-member quota).
- `streams.sticky`: a valid previous active (known task, claimed active by that client alone) is kept
  while its client is within quota: each client keeps min(|valid previous actives|, its task count).
- `streams.mix`: the valid previous actives a client keeps (k of them) are as close to the global mix as any k of
  its valid previous actives could be: Σ_s (kept_s - k * n_s / T)² is the least over kept'_s <= previous_s with
  Σ_s kept'_s = k (KAFKA-7203's step 4: give up tasks "so that the remaining distribution is closer" to the
  sub-topologies' sizes; `spec.reference.streams.kept_mix` reaches that least, `spec.oracle.least_mix_cost` checks it).

Quality (reported, never enforced): `load_spread` (max - min tasks/capacity), `kept_actives`,
`valid_previous_actives`, and the sub-topology mix deviation. A client with `n_c` tasks "should" hold
`n_c * n_s / T` of sub-topology s (T tasks in all); its deviation is half the L1 distance,
`½ Σ_s |held_s - n_c * n_s / T|`: the share of its tasks that would have to change sub-topology to
follow the global mix exactly. `mix_deviation_max` is the largest over clients, `mix_deviation_total`
the sum. The whole mix is not promised: which tasks are left to hand out depends on what every client kept.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from assigncheck.spec.assignment_check import Quality, Report
from assigncheck.spec.invariants import CAP, and_more
from assigncheck.spec.model import Assignment, StreamsProblem, iter_pairs
from assigncheck.spec.promises import Promises
from assigncheck.spec.reference.streams import kept_mix, valid_previous_actives
from assigncheck.spec.violations import Violation

Task = tuple[str, int]


def _violation(invariant: str, what: str, clients: list[str], tasks: list[Task]) -> Violation:
    more = and_more(max(len(clients), len(tasks)), CAP)
    return Violation(invariant, what + more, tuple(clients[:CAP]), tuple(tasks[:CAP]))


def _client_checks(problem: StreamsProblem, assignment: Assignment) -> list[Violation]:
    known = set(problem.client_ids)
    unknown = sorted((set(assignment.by_member) | set(assignment.standby)) - known)
    missing = sorted(known - set(assignment.by_member))
    out = []
    if unknown:
        out.append(_violation("streams.clients", f"the output names unknown clients {unknown[:CAP]}", unknown, []))
    if missing:
        out.append(_violation("streams.clients", f"the output leaves out clients {missing[:CAP]}", missing, []))
    return out


def _active_once(problem: StreamsProblem, assignment: Assignment) -> list[Violation]:
    holders: dict[Task, list[str]] = {}
    unknown: list[tuple[str, Task]] = []
    for client in sorted(assignment.by_member):
        for s, i in iter_pairs(assignment.get(client)):
            if s in problem.subtopologies and 0 <= i < problem.subtopologies[s]:
                holders.setdefault((s, i), []).append(client)
            else:
                unknown.append((client, (s, i)))
    out = []
    if unknown:
        out.append(_violation(
            "streams.active_once", f"unknown tasks assigned: {unknown[:CAP]}",
            sorted({c for c, _ in unknown}), [t for _, t in unknown],
        ))
    twice = sorted(t for t, cs in holders.items() if len(cs) > 1)
    if twice:
        who = sorted({c for t in twice for c in holders[t]})
        out.append(_violation(
            "streams.active_once", f"tasks active more than once: {[(t, holders[t]) for t in twice[:CAP]]}",
            who, twice,
        ))
    missing = [(s, i) for s, n in sorted(problem.subtopologies.items()) for i in range(n) if (s, i) not in holders]
    if missing:
        out.append(_violation("streams.active_once", f"tasks with no active client: {missing[:CAP]}", [], missing))
    return out


def _loads(problem: StreamsProblem, assignment: Assignment) -> dict[str, Fraction]:
    return {c.client_id: Fraction(assignment.count(c.client_id), c.capacity) for c in problem.clients}


def _ceiling(problem: StreamsProblem, assignment: Assignment) -> list[Violation]:
    if not problem.clients:
        return []
    share = -(-problem.task_count // problem.total_capacity)  # ceil(T / K): one stream thread's even share
    over = sorted(c.client_id for c in problem.clients if assignment.count(c.client_id) > c.capacity * share)
    if not over:
        return []
    c = next(c for c in problem.clients if c.client_id == over[0])
    return [_violation(
        "streams.balance",
        f"{c.client_id} holds {assignment.count(c.client_id)} tasks with capacity {c.capacity}, above "
        f"capacity * ceil({problem.task_count} / {problem.total_capacity}) = {c.capacity * share}",
        over, [],
    )]


def _balance(problem: StreamsProblem, assignment: Assignment) -> list[Violation]:
    loads = _loads(problem, assignment)
    if not loads:
        return []
    hi, lo = max(loads.values()), min(loads.values())
    if hi - lo <= 1:
        return []
    heavy = sorted(c for c, x in loads.items() if x == hi)
    light = sorted(c for c, x in loads.items() if x == lo)
    return [_violation(
        "streams.balance",
        f"tasks/capacity ranges from {float(lo):.3g} ({light[0]}) to {float(hi):.3g} ({heavy[0]}), more than 1 apart",
        heavy + light, [],
    )]


def _sticky(problem: StreamsProblem, assignment: Assignment) -> tuple[list[Violation], int, int]:
    valid = valid_previous_actives(problem)
    out, kept_total, valid_total = [], 0, 0
    for c in problem.clients:
        previous = valid[c.client_id]
        given = set(iter_pairs(assignment.get(c.client_id)))
        kept = previous & given
        kept_total += len(kept)
        valid_total += len(previous)
        required = min(len(previous), len(given))
        if len(kept) < required:
            lost = sorted(previous - given)
            out.append(_violation(
                "streams.sticky",
                f"{c.client_id} keeps {len(kept)} of its {len(previous)} previous actives with {len(given)} tasks, "
                f"so it should keep {required}; it lost {lost[:CAP]}",
                [c.client_id], lost,
            ))
    return out, kept_total, valid_total


def mix_cost(kept: dict[str, int], keep: int, sizes: dict[str, int]) -> int:
    """T² Σ_s (kept_s - keep * n_s / T)²: how far `keep` kept tasks, `kept` of each sub-topology, are from the mix."""
    total = sum(sizes.values())
    return sum((kept.get(s, 0) * total - keep * n) ** 2 for s, n in sizes.items())


def _mix(problem: StreamsProblem, assignment: Assignment) -> list[Violation]:
    sizes = dict(problem.subtopologies)
    out = []
    for c, previous in valid_previous_actives(problem).items():
        kept_tasks = previous & set(iter_pairs(assignment.get(c)))
        counts = Counter(s for s, _ in previous)
        kept = {s: 0 for s in counts} | Counter(s for s, _ in kept_tasks)
        keep = len(kept_tasks)
        best = kept_mix(counts, keep, sizes)
        if mix_cost(kept, keep, sizes) > mix_cost(best, keep, sizes):
            out.append(_violation(
                "streams.mix",
                f"{c} keeps {dict(sorted((s, n) for s, n in kept.items() if n))} of its previous actives "
                f"{dict(sorted(counts.items()))}; {dict(sorted((s, n) for s, n in best.items() if n))} would be "
                f"closer to the sub-topology sizes {dict(sorted(sizes.items()))}",
                [c], sorted(kept_tasks),
            ))
    return out


def _promised(problem: StreamsProblem, assignment: Assignment, promises: Promises,
              sticky: list[Violation]) -> list[Violation]:
    out = []
    if promises.task_balance == "capacity":
        out += _balance(problem, assignment)
    elif promises.task_balance == "ceiling":
        out += _ceiling(problem, assignment)
    if promises.active_stickiness:
        out += sticky
    if promises.subtopology_mix:
        out += _mix(problem, assignment)
    return out


def _standby_holders(problem: StreamsProblem, assignment: Assignment
                     ) -> tuple[dict[Task, list[str]], list[tuple[str, Task]], list[tuple[str, Task]]]:
    """(known task -> the clients holding a standby of it, standbys of unknown tasks, second copies on a client)."""
    holders: dict[Task, list[str]] = {}
    unknown: list[tuple[str, Task]] = []
    twice: list[tuple[str, Task]] = []
    for client in sorted(assignment.standby):
        held = set(iter_pairs(assignment.get(client)))  # its actives, then its standbys as they come
        for task in iter_pairs(assignment.standby_of(client)):
            s, i = task
            if not (s in problem.subtopologies and 0 <= i < problem.subtopologies[s]):
                unknown.append((client, task))
            elif task in held:
                twice.append((client, task))
            else:
                holders.setdefault(task, []).append(client)
            held.add(task)
    return holders, unknown, twice


def _standbys(problem: StreamsProblem, assignment: Assignment) -> list[Violation]:
    if not assignment.standby:
        return []
    holders, unknown, twice = _standby_holders(problem, assignment)
    out = []
    over = sorted(t for t, cs in holders.items() if len(cs) > problem.num_standby_replicas)
    if unknown:
        out.append(_violation("streams.standby_replicas", f"standbys of unknown tasks: {unknown[:CAP]}",
                              sorted({c for c, _ in unknown}), [t for _, t in unknown]))
    if over:
        out.append(_violation("streams.standby_replicas", f"tasks with more than {problem.num_standby_replicas} "
                                                          f"standbys: {[(t, holders[t]) for t in over[:CAP]]}",
                              sorted({c for t in over for c in holders[t]}), over))
    if twice:
        out.append(_violation("streams.standby_apart", f"clients holding two copies of a task (active and standby, "
                                                       f"or a standby twice): {twice[:CAP]}",
                              sorted({c for c, _ in twice}), [t for _, t in twice]))
    stateless = sorted(t for t in holders if not problem.stateful(t[0]))
    if stateless:
        out.append(_violation("streams.standby_stateful", f"standbys of stateless tasks: "
                                                          f"{[(t, holders[t]) for t in stateless[:CAP]]}",
                              sorted({c for t in stateless for c in holders[t]}), stateless))
    return out


def mix_deviations(problem: StreamsProblem, assignment: Assignment) -> dict[str, Fraction]:
    """Client id -> ½ Σ_s |held_s - n_c * n_s / T| over the client's known tasks (see the module docstring)."""
    total = problem.task_count
    out = {}
    for c in problem.clients:
        held = dict.fromkeys(problem.subtopologies, 0)
        for s, i in set(iter_pairs(assignment.get(c.client_id))):
            if s in held and 0 <= i < problem.subtopologies[s]:
                held[s] += 1
        n_c = sum(held.values())
        out[c.client_id] = (
            sum((abs(held[s] - Fraction(n_c * n, total)) for s, n in problem.subtopologies.items()), Fraction(0)) / 2
            if total else Fraction(0)
        )
    return out


def check_streams(problem: StreamsProblem, assignment: Assignment, promises: Promises | None = None,
                  measure: bool = True) -> Report:
    """Every Streams invariant of docs/SPEC.md §7.4 on one output, the Streams promises `promises` makes, and the
    quality figures (unless not `measure`: the mix deviations cost more than the checks)."""
    sticky, kept, valid = _sticky(problem, assignment)
    violations = _client_checks(problem, assignment) + _active_once(problem, assignment)
    violations += _promised(problem, assignment, promises or Promises(), sticky) + _standbys(problem, assignment)
    if not measure:
        return Report(tuple(violations), {})
    loads = _loads(problem, assignment)
    deviations = mix_deviations(problem, assignment)
    quality: Quality = {
        "load_spread": float(max(loads.values()) - min(loads.values())) if loads else 0.0,
        "kept_actives": kept,
        "valid_previous_actives": valid,
        "mix_deviation_max": float(max(deviations.values())) if deviations else 0.0,
        "mix_deviation_total": float(sum(deviations.values())),
    }
    return Report(tuple(violations), quality)

__all__ = ["check_streams", "mix_cost", "mix_deviations"]
