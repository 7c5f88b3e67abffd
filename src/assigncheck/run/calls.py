"""Calling an assignor under H7: a CPU budget (timers in the main thread, a worker thread elsewhere), a wall-clock
hang limit, and every way a call can fail turned into an `AssignorFailed` carrying its H7 violation."""

from __future__ import annotations

import os
import queue
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from assigncheck.spec.errors import AssignorFailed, TargetFailure, TargetUnavailable
from assigncheck.spec.model import Assignment, Problem, StreamsProblem
from assigncheck.spec.promises import Assignor
from assigncheck.spec.violations import Violation

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
    """(output, CPU seconds) of one call; raises AssignorFailed for a crash, a hang or CPU past the budget."""
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
            raise AssignorFailed(Violation("H7", f"{name}: {e}", cause=e.cause)) from None
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
            with _timers(budget_s, hang_s) as armed:  # type: ignore[arg-type]  # hang_s is set when budget_s is
                if armed:
                    started = time.thread_time()
                    try:
                        box["out"] = assignor.assign(problem)
                    except (_OverBudget, KeyboardInterrupt, TargetUnavailable):
                        raise
                    except BaseException as e:  # noqa: BLE001 - an assignor's crash is a finding
                        box["error"] = e
                    box["cpu"] = time.thread_time() - started
                elif not _in_thread(assignor, problem, hang_s, box):  # type: ignore[arg-type]  # as above
                    raise _OverBudget(hang=True)
        except _OverBudget as over:  # also when a timer fires between the call's return and the disarm
            if over.hang:
                raise AssignorFailed(Violation("H7", f"{name} did not finish within the {hang_s:g} s "
                                              "hang limit (wall clock)", cause="hang")) from None
            raise AssignorFailed(Violation("H7", f"{name} did not finish within its {budget_s:g} s CPU budget",
                                    cause="timeout")) from None
    if "error" in box:
        error = box["error"]
        if isinstance(error, TargetUnavailable):
            raise error
        raise AssignorFailed(Violation("H7", f"{name} raised {type(error).__name__}: {error}",
                                       cause=crash_cause(error)))
    return box.get("out"), box["cpu"]


def run_assignor(assignor: Assignor, problem: Problem | StreamsProblem, budget_s: float | None,
                 hang_s: float | None = None) -> Assignment:
    """One `assign` call under H7: any exception, a result that is not an Assignment, or more than `budget_s`
    of CPU time raises `AssignorFailed` (a runaway call is interrupted in the main thread, abandoned elsewhere, and
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
        raise AssignorFailed(Violation("H7", f"{name} took {cpu:.2f} s of CPU, over its {budget_s:g} s CPU budget",
                                cause="timeout"))
    if not isinstance(out, Assignment):
        raise AssignorFailed(Violation("H7", f"{name} returned {type(out).__name__}, not an Assignment",
                                cause=f"returned {type(out).__name__}"))
    return out, cpu

__all__ = ["HANG_MIN_S", "crash_cause", "hang_limit", "run_assignor", "run_timed", "timer_handlers"]
