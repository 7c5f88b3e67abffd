"""The checker: judge one output (`check_assignment`) or one assignor on one problem (`check_assignor`).

A `Report` carries every violation (hard invariants always; the promises the caller declares) and a
quality table of every measure, whether promised or not (docs/SPEC.md §8.1: undeclared promises are measured
and reported, not enforced).

Oracle figures (optimal Σ count², max retained) come from a min-cost flow whose size grows with the
(topic, subscriber) pairs; they are computed when the problem has at most `ORACLE_MAX_PAIRS` such pairs
and `ORACLE_MAX_MEMBERS` members, or whenever the caller passes `oracle=True` (`oracle=False` never).
Above that, promises that need them (balance "optimal", stickiness "max_retained") are not enforced
and their figures are None.
"""

from __future__ import annotations

import os
import queue
import random
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from . import balance as bal
from . import racks
from . import small_checks as sc
from . import stickiness as st
from .errors import InputError, TargetFailure, TargetUnavailable
from .groups import coordinator_form, share_h4
from .invariants import CAP, and_more, check_hard, cooperative_withhold
from .model import Assignment, Client, Member, PartitionSet, Problem, StreamsProblem, partitions_equal
from .oracle_cache import max_retained as oracle_max_retained
from .oracle_cache import optimal_sum_squares
from .promises import Assignor, Promises
from .rounds import next_round, run_rounds
from .small_views import is_small, output_is_small
from .violations import Violation

ORACLE_MAX_PAIRS = 300_000  # measured: both figures together take about 3 s there
ORACLE_MAX_MEMBERS = 5_000

Quality = dict[str, int | float | None]


@dataclass(frozen=True)
class Report:
    violations: tuple[Violation, ...] = ()
    quality: Quality = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.violations

    def merge(self, *others: Report) -> Report:
        """Violations concatenated in order; quality figures of later reports win on equal names."""
        quality = dict(self.quality)
        for other in others:
            quality.update(other.quality)
        return Report(self.violations + tuple(v for o in others for v in o.violations), quality)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "violations": [v.to_json() for v in self.violations], "quality": dict(self.quality)}


def oracle_affordable(problem: Problem) -> bool:
    pairs = sum(len(m.subscription & problem.topics.keys()) for m in problem.members)
    return pairs <= ORACLE_MAX_PAIRS and len(problem.members) <= ORACLE_MAX_MEMBERS


def oracle_balance(problem: Problem, promises: Promises) -> str | None:
    """The balance the oracle's max_retained is taken under, or None when the oracle does not model it."""
    if promises.balance == "perfect":
        return "perfect" if problem.subscriptions_equal() else "none"
    if promises.balance == "uniform":  # local balance elsewhere: no oracle models it
        return "perfect" if problem.subscriptions_equal() else None
    if problem.group_type == "share":  # several owners per partition: no oracle models them
        return None
    return promises.balance if promises.balance in ("none", "optimal") else None


def in_domain(problem: Problem, promises: Promises) -> bool:
    return not (promises.equal_subscriptions_only and not problem.subscriptions_equal())


class _Checks(NamedTuple):
    """One implementation of every check `check_assignment` runs: vectorized (`spec.invariants`, `balance`,
    `stickiness`, `racks`) or plain Python for small problems (`spec.small_checks`, held equal by tests)."""

    check_hard: Callable[[Problem, Assignment], list[Violation]]
    balance: dict[str, Callable[[Problem, Assignment], list[Violation]]]
    max_retained: Callable[..., list[Violation]]
    rack_violations: Callable[[Problem, Assignment, str], list[Violation]]
    per_topic_spread_violations: Callable[[Problem, Assignment], list[Violation]]
    spread: Callable[[Problem, Assignment], int]
    sum_squares: Callable[[Problem, Assignment], int]
    retained: Callable[[Problem, Assignment], int]
    moves: Callable[[Problem, Assignment], int]
    withheld: Callable[[Problem, Assignment], int]
    per_topic_spread: Callable[[Problem, Assignment], int]
    mismatches: Callable[[Problem, Assignment], int]
    cooperative_withhold: Callable[[Problem, Assignment, Assignment], list[Violation]]
    certify_max_retained: Callable[[Problem, Assignment, str, bool], None]  # settles the oracle's figure, if it can


VECTORIZED = _Checks(check_hard, bal.BALANCE_CHECKS, st.max_retained, racks.rack_violations,
                     st.per_topic_spread_violations, bal.spread, bal.sum_squares, st.retained, st.moves, st.withheld,
                     st.per_topic_spread, racks.mismatches, cooperative_withhold,
                     lambda *_: None)
SMALL = _Checks(sc.check_hard, sc.BALANCE_CHECKS, sc.max_retained, sc.rack_violations, sc.per_topic_spread_violations,
                sc.spread, sc.sum_squares, sc.retained, sc.moves, sc.withheld, sc.per_topic_spread, sc.mismatches,
                sc.cooperative_withhold, sc.certify_max_retained)


def checks_for(problem: Problem, assignment: Assignment) -> _Checks:
    """The plain-Python checks for a small problem and output, the vectorized ones otherwise."""
    return SMALL if is_small(problem) and output_is_small(assignment) else VECTORIZED


def check_assignment(
    problem: Problem | StreamsProblem, assignment: Assignment, promises: Promises | None = None,
    *, oracle: bool | None = None, measure: bool = True, checks: _Checks | None = None,
) -> Report:
    """H1-H6 always; the promised balance, stickiness and per-topic spread when nothing is withheld and
    the problem is in the assignor's domain (docs/SPEC.md §6.2, §8.1); every measure in `quality` (unless not
    `measure`: a caller that wants only the verdict, such as the fuzzer, skips the measures' cost).
    `checks` forces one implementation (`VECTORIZED` or `SMALL`); by default the problem's size picks."""
    if isinstance(problem, StreamsProblem):
        from .streams_checks import check_streams

        return check_streams(problem, assignment, measure)
    c = checks or checks_for(problem, assignment)
    promises = promises or Promises()
    use_oracle = oracle_affordable(problem) if oracle is None else oracle
    ob = oracle_balance(problem, promises)
    held = c.withheld(problem, assignment)
    violations = c.check_hard(problem, assignment)
    if problem.group_type == "share":
        violations = [v for v in violations if v.invariant != "H4"] + share_h4(problem, assignment)
    enforce = held == 0 and in_domain(problem, promises)
    if use_oracle and ob is not None and held == 0 and not violations:
        c.certify_max_retained(problem, assignment, ob, promises.racks)
    if enforce:
        if promises.balance != "none" and (promises.balance != "optimal" or use_oracle):
            violations += c.balance[promises.balance](problem, assignment)
        if promises.stickiness == "max_retained" and use_oracle and ob is not None:
            violations += c.max_retained(problem, assignment, ob, promises.racks)
        if promises.racks and use_oracle and ob is not None:
            violations += c.rack_violations(problem, assignment, ob)
        if promises.per_topic_spread:
            violations += c.per_topic_spread_violations(problem, assignment)
    if not measure:
        return Report(tuple(violations), {"withheld": held, "promises_enforced": int(enforce)})
    quality: Quality = {
        "members": len(problem.members),
        "partitions": problem.partition_count,
        "spread": c.spread(problem, assignment),
        "sum_squares": c.sum_squares(problem, assignment),
        "optimal_sum_squares": optimal_sum_squares(problem) if use_oracle else None,
        "retained": c.retained(problem, assignment),
        "max_retained": oracle_max_retained(problem, ob, promises.racks) if use_oracle and ob is not None else None,
        "moves": c.moves(problem, assignment),
        "withheld": held,
        "per_topic_spread": c.per_topic_spread(problem, assignment),
        "rack_mismatches": c.mismatches(problem, assignment),
        "promises_enforced": int(enforce),
    }
    return Report(tuple(violations), quality)


# ---- running an assignor --------------------------------------------------------------------------


class _Failed(Exception):
    """An assignor run that broke H7; carries the violation out of `run_rounds`."""

    def __init__(self, violation: Violation) -> None:
        super().__init__(violation.message)
        self.violation = violation


# H7's budget is CPU time: a correct assignor waiting for a core on a busy machine is not slow. A call is
# also stopped after a generous wall-clock hang limit (a target blocked on I/O, or asleep).
HANG_FACTOR = 10.0
HANG_MIN_S = 30.0


def hang_limit(budget_s: float) -> float:
    """The wall-clock limit of one call whose CPU budget is `budget_s`."""
    return max(HANG_MIN_S, HANG_FACTOR * budget_s)


class _OverBudget(BaseException):
    """Raised inside a runaway `assign` call by a timer (a BaseException, so an assignor's own `except
    Exception` cannot swallow it); `hang` tells the wall-clock limit from the CPU budget."""

    def __init__(self, hang: bool) -> None:
        self.hang = hang


def _on_cpu(signum: int, frame: Any) -> None:
    raise _OverBudget(hang=False)


def _on_wall(signum: int, frame: Any) -> None:
    raise _OverBudget(hang=True)


_TIMERS = ((signal.ITIMER_PROF, signal.SIGPROF, _on_cpu), (signal.ITIMER_REAL, signal.SIGALRM, _on_wall)) \
    if hasattr(signal, "setitimer") else ()


_installed = False  # the handlers are in place for a sequence of calls (`timer_handlers`, main thread only)


def _timers_free() -> bool:
    return (bool(_TIMERS) and threading.current_thread() is threading.main_thread()
            and all(signal.getitimer(which) == (0.0, 0.0) for which, _, _ in _TIMERS))


@contextmanager
def timer_handlers() -> Iterator[None]:
    """Install the timer handlers once for a sequence of calls (a check runs an assignor 3-7 times; installing
    and restoring two handlers costs ~20 us a call): inside, each call only sets and clears its timers. A no-op
    outside the main thread, when nested or when a timer is already in use."""
    global _installed
    if _installed or not _timers_free():
        yield
        return
    previous = [signal.signal(sig, handler) for _, sig, handler in _TIMERS]
    _installed = True
    try:
        yield
    finally:
        _installed = False
        for (which, sig, _), old in zip(_TIMERS, previous):
            signal.setitimer(which, 0)
            signal.signal(sig, old)


@contextmanager
def _timers(budget_s: float, hang_s: float) -> Iterator[bool]:
    """Interrupt the block once the process has spent clearly more than `budget_s` of CPU (ITIMER_PROF counts
    every thread of the process, hence the margin; the verdict itself uses this thread's CPU time), or after
    the hang limit of wall clock. Only in the main thread with both timers free; yields whether armed."""
    armed = _timers_free()
    if armed and _installed:  # the handlers are in place (`timer_handlers`): only the timers
        signal.setitimer(signal.ITIMER_PROF, budget_s * 1.5 + 0.5)
        signal.setitimer(signal.ITIMER_REAL, hang_s)
        try:
            yield True
        finally:
            for which, _, _ in _TIMERS:
                signal.setitimer(which, 0)
        return
    if not armed:
        yield False
        return
    previous = [signal.signal(sig, handler) for _, sig, handler in _TIMERS]
    signal.setitimer(signal.ITIMER_PROF, budget_s * 1.5 + 0.5)
    signal.setitimer(signal.ITIMER_REAL, hang_s)
    try:
        yield True
    finally:
        for (which, sig, _), old in zip(_TIMERS, previous):
            signal.setitimer(which, 0)
            signal.signal(sig, old)


def crash_cause(e: BaseException) -> str:
    """An exception's identity: its type and the innermost frame that raised it."""
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return type(e).__name__
    code = tb.tb_frame.f_code
    return f"{type(e).__name__}@{os.path.basename(code.co_filename)}:{code.co_name}:{tb.tb_lineno}"


class _Worker:
    """A daemon thread that runs `_in_thread`'s calls one at a time for one calling thread. Handing a call to it
    costs about 14 us; starting a thread per call cost about 90 us, and a fuzz job, whose libFuzzer holds the
    wall-clock timer, makes every call this way. A call that does not come back in time (a hang, or Ctrl-C
    while waiting) leaves its worker behind, still running it; the next call gets a new worker."""

    def __init__(self) -> None:
        self.calls: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self.done: queue.SimpleQueue[None] = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="assign worker", daemon=True).start()

    def _serve(self) -> None:
        while True:
            self.calls.get()()
            self.done.put(None)

    def run(self, call: Callable[[], None], timeout_s: float) -> bool:
        self.calls.put(call)
        try:
            self.done.get(timeout=timeout_s)
        except queue.Empty:
            return False
        return True


_workers = threading.local()


def _in_thread(assignor: Assignor, problem: Problem | StreamsProblem, hang_s: float, box: dict[str, Any]) -> bool:
    """Where the timers cannot be armed: run in this thread's worker; past the hang limit the call is abandoned
    (Python cannot stop a thread). Returns whether the call finished."""

    def call() -> None:
        started = time.thread_time()
        try:
            box["out"] = assignor.assign(problem)
        except BaseException as e:  # an assignor's crash is a finding, whatever it raises
            box["error"] = e
        box["cpu"] = time.thread_time() - started

    worker = getattr(_workers, "worker", None) or _Worker()
    _workers.worker = None  # taken: given back only if the call comes back
    finished = worker.run(call, hang_s)
    if finished:
        _workers.worker = worker
    return finished


def _call(assignor: Assignor, problem: Problem | StreamsProblem, budget_s: float | None, hang_s: float | None
          ) -> tuple[Any, float]:
    """(output, CPU seconds) of one call; raises _Failed for a crash, a hang or CPU past the budget."""
    name = getattr(assignor, "name", type(assignor).__name__)
    hang_s = hang_s if hang_s is not None or budget_s is None else hang_limit(budget_s)
    metered = getattr(assignor, "assign_metered", None)
    if metered is not None:  # an outside process: it measures and limits its own CPU time
        try:
            if budget_s is None:
                return metered(problem)
            return metered(problem, cpu_budget_s=budget_s, hang_s=hang_s)
        except TargetUnavailable:
            raise
        except TargetFailure as e:
            raise _Failed(Violation("H7", f"{name}: {e}", cause=e.cause)) from None
    box: dict[str, Any] = {}
    if budget_s is None:  # no budget: no CPU clock either (reading it costs more than a small assignor's run)
        try:
            box["out"] = assignor.assign(problem)
        except KeyboardInterrupt:
            raise
        except BaseException as e:  # noqa: BLE001 - an assignor's crash is a finding, whatever it raises
            box["error"] = e
        box["cpu"] = 0.0
    else:
        try:
            with _timers(budget_s, hang_s) as armed:  # type: ignore[arg-type]
                if armed:
                    started = time.thread_time()
                    try:
                        box["out"] = assignor.assign(problem)
                    except (_OverBudget, KeyboardInterrupt, TargetUnavailable):
                        raise
                    except BaseException as e:  # noqa: BLE001 - an assignor's crash is a finding
                        box["error"] = e
                    box["cpu"] = time.thread_time() - started
                elif not _in_thread(assignor, problem, hang_s, box):  # type: ignore[arg-type]
                    raise _OverBudget(hang=True)
        except _OverBudget as over:  # also when a timer fires between the call's return and the disarm
            if over.hang:
                raise _Failed(Violation("H7", f"{name} did not finish within the {hang_s:g} s "
                                              "hang limit (wall clock)", cause="hang")) from None
            raise _Failed(Violation("H7", f"{name} did not finish within its {budget_s:g} s CPU budget",
                                    cause="timeout")) from None
    if "error" in box:
        e = box["error"]
        if isinstance(e, TargetUnavailable):
            raise e
        raise _Failed(Violation("H7", f"{name} raised {type(e).__name__}: {e}", cause=crash_cause(e)))
    return box.get("out"), box["cpu"]


def run_assignor(assignor: Assignor, problem: Problem | StreamsProblem, budget_s: float | None,
                 hang_s: float | None = None) -> Assignment:
    """One `assign` call under H7: any exception, a result that is not an Assignment, or more than `budget_s`
    of CPU time raises `_Failed` (a runaway call is interrupted in the main thread, abandoned elsewhere, and
    stopped after `hang_s` of wall clock, by default `hang_limit(budget_s)`). A target that cannot run at all
    raises TargetUnavailable."""
    return run_timed(assignor, problem, budget_s, hang_s)[0]


def run_timed(assignor: Assignor, problem: Problem | StreamsProblem, budget_s: float | None,
              hang_s: float | None = None) -> tuple[Assignment, float]:
    """`run_assignor`, and the CPU seconds the call took: the calling thread's (0 without a budget), or a
    `cmd:`/`java:` target's process tree's."""
    name = getattr(assignor, "name", type(assignor).__name__)
    out, cpu = _call(assignor, problem, budget_s, hang_s)
    if budget_s is not None and cpu > budget_s:
        raise _Failed(Violation("H7", f"{name} took {cpu:.2f} s of CPU, over its {budget_s:g} s CPU budget",
                                cause="timeout"))
    if not isinstance(out, Assignment):
        raise _Failed(Violation("H7", f"{name} returned {type(out).__name__}, not an Assignment",
                                cause=f"returned {type(out).__name__}"))
    return out, cpu


def differing_members(a: Assignment, b: Assignment) -> list[str]:
    """Member ids whose partitions differ between two outputs (or that only one output names)."""
    x, y = a.by_member, b.by_member
    ids = sorted(set(x) | set(y))
    return [m for m in ids if m not in x or m not in y or (x[m] is not y[m] and not partitions_equal(x[m], y[m]))]


def _differs(invariant: str, what: str, a: Assignment, b: Assignment) -> list[Violation]:
    diff = differing_members(a, b)
    if not diff:
        return []
    names = ", ".join(diff[:CAP]) + and_more(len(diff), CAP)
    return [Violation(invariant, f"{what}; members whose partitions differ: {names}", tuple(diff[:CAP]))]


def _shuffled_parts(parts: Any, rng: np.random.Generator) -> dict[str, np.ndarray]:
    topics = list(parts)
    return {topics[i]: rng.permutation(parts[topics[i]]) for i in rng.permutation(len(topics)).tolist()}


def shuffled_problem(problem: Problem | StreamsProblem, seed: int) -> Problem | StreamsProblem:
    """The same problem with members, topics, subscriptions and claims listed in another (seeded) order; the
    members' order always differs when there are two or more (a random one could be the identity)."""
    if isinstance(problem, Problem) and is_small(problem):
        return _shuffled_small(problem, seed)
    rng = np.random.default_rng(seed)
    if isinstance(problem, StreamsProblem):
        clients = [
            Client(c.client_id, c.capacity, _shuffled_parts(c.active, rng), _shuffled_parts(c.standby, rng))
            for c in problem.clients
        ]
        return StreamsProblem(problem.subtopologies, tuple(clients[i] for i in _moved(rng.permutation(len(clients)))))
    members = [
        Member(m.member_id, frozenset(rng.permutation(sorted(m.subscription)).tolist()),
               _shuffled_parts(m.owned, rng), m.generation, m.instance_id, m.rack)
        for m in problem.members
    ]
    names = list(problem.topics)
    topics = {names[i]: problem.topics[names[i]] for i in rng.permutation(len(names)).tolist()}
    order = _moved(rng.permutation(len(members)))
    return problem.replace(members=tuple(members[i] for i in order), topics=topics)


def _moved(order: Any) -> list[int]:
    """A permutation that is not the identity (reversed if it was), when it has two or more entries."""
    order = list(order)
    return order[::-1] if len(order) > 1 and order == sorted(order) else order


def _shuffled_small(problem: Problem, seed: int) -> Problem:
    """`shuffled_problem` with Python's seeded generator: a few list sorts by random keys instead of a numpy call
    per array (and cheaper than `random.shuffle`'s bounded draws). A `PartitionSet` keeps its topics in name
    order; only the order inside each topic can change."""
    draw = random.Random(seed).random

    def mixed(values: Iterable[Any]) -> list[Any]:
        return sorted(values, key=lambda _: draw())

    members = []
    for m in problem.members:
        owned = m.owned
        if owned.count:
            codes, bounds, indices = owned.lists()
            flat = tuple(i for k in range(len(codes)) for i in mixed(indices[bounds[k]:bounds[k + 1]]))
            owned = PartitionSet.of_lists(owned.table, codes, bounds, flat, False)
        members.append(Member(m.member_id, frozenset(mixed(sorted(m.subscription))), owned, m.generation,
                              m.instance_id, m.rack))
    names = mixed(problem.topics)
    return problem.replace(members=tuple(members[i] for i in _moved(mixed(range(len(members))))),
                           topics={t: problem.topics[t] for t in names})


def _with_round(report: Report, k: int) -> list[Violation]:
    return [Violation(v.invariant, f"round {k}: {v.message}", v.members, v.partitions) for v in report.violations]


def protocol_form(problem: Problem | StreamsProblem, promises: Promises) -> Problem | StreamsProblem:
    """The problem as the assignor would meet it in Kafka: a group runs a protocol its leader's assignor
    supports, so an eager-only assignor sees eager groups and a cooperative-only one cooperative groups; a
    broker-side assignor sees the group as its coordinator holds it (`spec.groups.coordinator_form`)."""
    if isinstance(problem, Problem):
        if promises.group_type != "classic":
            return coordinator_form(problem, promises.group_type)
        if problem.protocol == "cooperative" and promises.max_rounds is None:
            return problem.with_protocol("eager")
        if problem.protocol == "eager" and not promises.eager and promises.max_rounds is not None:
            return problem.with_protocol("cooperative")
    return problem


def check_assignor(
    assignor: Assignor, problem: Problem | StreamsProblem, *, promises: Promises | None = None,
    budget_s: float | None = 10.0, seed: int = 0, oracle: bool | None = None, measure: bool = True,
    hang_s: float | None = None,
) -> tuple[Assignment | None, Report]:
    """Run `assignor` on `problem` and check everything it must and promises to do (docs/SPEC.md §3-§8):
    H7 (no crash, within `budget_s` per call), the output (`check_assignment`), H8 determinism and
    order independence (when promised), `fixpoint`, `exact` and cooperative rounds (when promised).
    Never raises for an assignor's failure; an unknown `exact` reference name is an `InputError`.
    `measure=False` leaves the quality table out (see `check_assignment`)."""
    with timer_handlers() if budget_s is not None else nullcontext():
        return _check_assignor(assignor, problem, promises, budget_s, seed, oracle, measure, hang_s)


def _check_assignor(
    assignor: Assignor, problem: Problem | StreamsProblem, promises: Promises | None, budget_s: float | None,
    seed: int, oracle: bool | None, measure: bool, hang_s: float | None,
) -> tuple[Assignment | None, Report]:
    promises = promises or assignor.promises
    name = getattr(assignor, "name", type(assignor).__name__)
    problem = protocol_form(problem, promises)
    listed = shuffled_problem(problem, seed) if promises.order_independent else None
    prefetch = getattr(assignor, "prefetch", None) if hasattr(assignor, "assign_metered") else None
    if prefetch is not None:  # an outside process: the runs known in advance in one round trip, if it can
        prefetch([problem, problem, *([listed] if listed is not None else [])], cpu_budget_s=budget_s,
                 hang_s=hang_s if hang_s is not None or budget_s is None else hang_limit(budget_s))
    try:
        out = run_assignor(assignor, problem, budget_s, hang_s)
    except _Failed as f:
        return None, Report((f.violation,), {})
    report = check_assignment(problem, out, promises, oracle=oracle, measure=measure)
    extra: list[Violation] = []
    quality: Quality = {}
    try:
        again = run_assignor(assignor, problem, budget_s, hang_s)
        extra += _differs("H8", f"two runs of {name} on the same problem differ", out, again)
        if listed is not None:
            shuffled = run_assignor(assignor, listed, budget_s, hang_s)
            extra += _differs("H8", f"{name} depends on the order members, topics or claims are listed in",
                              out, shuffled)
        domain = isinstance(problem, StreamsProblem) or in_domain(problem, promises)
        if promises.exact is not None and domain:
            extra += _exact(promises.exact, problem, out)
        final_problem, final_out = problem, out
        if isinstance(problem, Problem) and problem.protocol == "cooperative" and promises.max_rounds and domain:
            final_problem, final_out, rounds_violations, n_rounds = _cooperative_rounds(
                assignor, problem, out, promises, budget_s, oracle, hang_s)
            extra += rounds_violations
            quality["rounds"] = n_rounds
        if (promises.fixpoint and domain and isinstance(final_problem, Problem)
                and checks_for(final_problem, final_out).withheld(final_problem, final_out) == 0):
            again = run_assignor(assignor, next_round(final_problem, final_out), budget_s, hang_s)
            extra += _differs("fixpoint", f"feeding {name}'s output back as the owned partitions changes it",
                              final_out, again)
    except _Failed as f:
        extra.append(f.violation)
    return out, report.merge(Report(tuple(extra), quality))


def _exact(reference_name: str, problem: Problem | StreamsProblem, out: Assignment) -> list[Violation]:
    from .reference import REFERENCES

    if reference_name not in REFERENCES:
        raise InputError("promises.exact", f"unknown reference {reference_name!r}; known: {', '.join(REFERENCES)}")
    expected = REFERENCES[reference_name].assign(problem)
    return _differs("exact", f"differs from the {reference_name} reference", expected, out)


def _cooperative_rounds(
    assignor: Assignor, problem: Problem, first: Assignment, promises: Promises, budget_s: float | None,
    oracle: bool | None, hang_s: float | None,
) -> tuple[Problem, Assignment, list[Violation], int]:
    """Rebalance until nothing is withheld (docs/SPEC.md §6.2): every round meets H1-H6, the rounds converge
    within `max_rounds`, and the promises hold on the final round. Round 1 (`first`, the output already
    run and checked, H8 included) is not run again."""
    assert promises.max_rounds is not None

    def assign(p: Problem) -> Assignment:
        return first if p is problem else run_assignor(assignor, p, budget_s, hang_s)

    rounds = run_rounds(assign, problem, promises.max_rounds)
    violations: list[Violation] = []
    for k, (p, out) in enumerate(rounds[1:], start=2):
        violations += _with_round(check_assignment(p, out, promises, oracle=oracle, measure=False), k)
    if promises.eager:  # it speaks both protocols: each round is its eager assignment minus the transfers
        for k, (p, out) in enumerate(rounds, start=1):
            eager = run_assignor(assignor, p.with_protocol("eager"), budget_s, hang_s)
            c = checks_for(p, out) if checks_for(p, eager) is SMALL else VECTORIZED
            violations += _with_round(Report(tuple(c.cooperative_withhold(p, out, eager))), k)
    last_problem, last_out = rounds[-1]
    still = checks_for(last_problem, last_out).withheld(last_problem, last_out)
    if still:
        violations.append(Violation(
            "cooperative.rounds",
            f"still withholding {still} partition(s) after {len(rounds)} round(s); "
            f"promised at most {promises.max_rounds}",
        ))
    return last_problem, last_out, violations, len(rounds)
