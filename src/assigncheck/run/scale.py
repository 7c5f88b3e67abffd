"""Scale: the CPU time an assignor takes per call on a problem of production size, and the verdicts on it.

A time is CPU time, as H7's budget is (the calling thread's, or a `cmd:`/`java:` target's process tree's), and
the minimum of a few calls, each on a fresh copy of the problem (no derived data cached on it): on a busy
machine a call waits for a core without being charged for it, and a call that shares a core's caches with
other work costs a little more, never less, so the minimum is the figure closest to the assignor's own cost.

Verdicts, each made only on the minimum of `CALLS` calls (a rung far from any verdict gets one call, or two):
- H7 (always): every call over the per-call CPU budget.
- `scale.time` (the `max_time` promise): over the promised CPU seconds at the promised size.
- `scale.growth` (the `max_growth` promise): from a base rung to one of the same series at least GROWTH_SPAN
  times larger, CPU time grew by more than GROWTH_SLACK x (size ratio)^exponent, the slack covering what a busy
  machine adds to one of two times; the scale stage times both rungs again before it believes it. Without a
  promise the growth is only measured: the least-squares exponent of the series' times.

A timing finding replays (`retime`) by timing the same problem again, the same way, and comparing with the
promise or budget the replaying process holds the target to: its file carries the problem (and for growth
the base rung's problem too).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assigncheck.run.calls import run_timed
from assigncheck.run.gc import loaded_frozen
from assigncheck.spec.errors import AssignorFailed
from assigncheck.spec.groups import protocol_form
from assigncheck.spec.model import AnyProblem, Assignment, Problem
from assigncheck.spec.promises import Assignor
from assigncheck.spec.violations import Violation

CALLS = 3  # a rung's time is the minimum of this many calls, when the first one counts at all
GROWTH_SLACK = 2.0  # one of two CPU times may be inflated this much by a busy machine (shared caches, SMT)
GROWTH_SPAN = 3.5  # growth is judged between sizes two doublings apart (give or take rounding): over one, a
#                    quadratic's 4x is no more than a linear promise's 2x with the slack
FLOOR_S = 0.005  # below this a time is too small to tell growth from fixed costs and noise: one call is enough
METERED_FLOOR_S = 0.1  # ... for a cmd:/java: process, whose CPU time /proc counts in 10 ms ticks
TIMEOUT_CAUSES = ("timeout", "cmd.timeout")  # a call stopped at (or finishing past) the CPU budget


def floor_s(target: Assignor) -> float:
    """The smallest time worth repeating calls for, and fitting growth on."""
    return METERED_FLOOR_S if hasattr(target, "assign_metered") else FLOOR_S


@dataclass(frozen=True)
class Timing:
    """The calls made on one problem: each one's CPU seconds (a call stopped at the budget counts as the
    budget, a lower bound) and output; or the failure (a crash, a hang, not an Assignment) that ended them."""

    cpu: tuple[float, ...] = ()
    over: int = 0  # calls over the CPU budget
    outputs: tuple[Assignment, ...] = ()
    failure: Violation | None = None

    @property
    def best(self) -> float:
        return min(self.cpu) if self.cpu else math.inf

    @property
    def over_budget(self) -> bool:
        """Every call went over the budget."""
        return self.failure is None and bool(self.cpu) and self.over == len(self.cpu)

    def joined(self, other: Timing) -> Timing:
        """Both timings' calls as one (the outputs, only needed for the checks, are dropped)."""
        return Timing(self.cpu + other.cpu, self.over + other.over, (), self.failure or other.failure)

    def text(self) -> str:
        calls = f"min of {len(self.cpu)} calls" if len(self.cpu) > 1 else "1 call"
        return f"{seconds_text(self.best)}{' or more' if self.over_budget else ''} ({calls})"


def seconds_text(s: float) -> str:
    return f"{s * 1000:.1f} ms" if s < 1 else f"{s:.2f} s"


def fresh(problem: AnyProblem) -> AnyProblem:
    """A copy with nothing derived cached on it, as a real first call meets it."""
    return problem.replace() if isinstance(problem, Problem) else problem


def time_calls(target: Assignor, problem: AnyProblem, budget_s: float, hang_s: float | None = None, *,
               floor: float = 0.0, verdict_s: float = 0.0) -> Timing:
    """Up to CALLS calls of `target` on fresh copies of `problem` (in its protocol form), under H7's budget.
    Stops at a failure; after a call under `floor` (too fast to tell more); and after two calls once one was
    under `verdict_s`, the least time a verdict needs (the budget, a promised time): the minimum can no longer
    reach it, and two calls still give H8 two outputs to compare. In process, call it with what is alive frozen
    (`run.gc`): a full collection during a call then walks only what the call made."""
    problem = protocol_form(problem, target.promises)
    cpu: list[float] = []
    outputs: list[Assignment] = []
    over = 0
    while len(cpu) < CALLS and not (len(cpu) >= 2 and min(cpu) < verdict_s):
        copy = fresh(problem)
        try:
            out, seconds = run_timed(target, copy, budget_s, hang_s)
        except AssignorFailed as failed:
            if failed.violation.cause not in TIMEOUT_CAUSES:
                return Timing(tuple(cpu), over, tuple(outputs), failed.violation)
            cpu.append(budget_s)
            over += 1
            continue
        cpu.append(seconds)
        outputs.append(out)
        if seconds < floor:
            break
    return Timing(tuple(cpu), over, tuple(outputs))


def growth_exceeds(base_size: int, base_s: float, size: int, seconds: float, exponent: float) -> bool:
    """Whether going from `base_size` to `size` took more than GROWTH_SLACK x the promised growth allows."""
    return seconds > GROWTH_SLACK * base_s * (size / base_size) ** exponent


def fitted_growth(points: Sequence[tuple[int, float]]) -> float | None:
    """The least-squares exponent e of time ~ size^e over (size, seconds) points; None under two sizes."""
    if len({size for size, _ in points}) < 2:
        return None
    xs = [math.log(size) for size, _ in points]
    ys = [math.log(seconds) for _, seconds in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


# ---- replaying a timing finding ---------------------------------------------------------------------------


def retime(target: Assignor, problem: AnyProblem, scale: Mapping[str, Any], budget_s: float,
           hang_s: float | None = None) -> tuple[list[Violation], str]:
    """Time a timing finding's problem again (`scale`: its reproducer's `finding.scale`), the way the scale
    stage did, and judge it under the budget and the promises `target` holds now: (the violations that
    reproduce, what was measured)."""
    with loaded_frozen():
        return _retime(target, problem, scale, budget_s, hang_s)


def _retime(target: Assignor, problem: AnyProblem, scale: Mapping[str, Any], budget_s: float,
            hang_s: float | None) -> tuple[list[Violation], str]:
    from assigncheck.formats.documents import problem_from_json

    verdict, rung, name = scale.get("verdict"), str(scale.get("rung", "this problem")), target.name
    promises = target.promises
    if verdict == "budget":
        timing = time_calls(target, problem, budget_s, hang_s, floor=budget_s, verdict_s=budget_s)
        said = f"{rung}: {timing.text()}, budget {budget_s:.3g} s"
        if timing.failure is not None:
            return [], f"{said}; a call failed otherwise: {timing.failure.message}"
        if not timing.over_budget:
            return [], said
        return [Violation("H7", f"{name} took {budget_s:.3g} s of CPU or more in each of {len(timing.cpu)} calls "
                                f"at {rung}, over its {budget_s:.3g} s CPU budget",
                          cause=str(scale.get("cause", "")))], said
    if verdict == "time":
        if promises.max_time is None:
            return [], f"{name} promises no max_time"
        limit = promises.max_time.seconds
        timing = time_calls(target, problem, budget_s, hang_s, floor=limit, verdict_s=limit)
        said = f"{rung}: {timing.text()}, promised at most {seconds_text(limit)}"
        if timing.failure is not None or timing.best <= limit:
            return [], said
        return [Violation("scale.time", f"{name} took {timing.text()} of CPU per call at {rung}; promised at most "
                                        f"{seconds_text(limit)} (max_time={promises.max_time})")], said
    if verdict == "growth":
        if promises.max_growth is None:
            return [], f"{name} promises no max_growth"
        base_doc = scale.get("base") or {}
        base = time_calls(target, problem_from_json(base_doc.get("problem")), budget_s, hang_s)
        top = time_calls(target, problem, budget_s, hang_s)
        base_rung = str(base_doc.get("rung", "the base"))
        said = f"{base_rung}: {base.text()}; {rung}: {top.text()}"
        sizes = int(base_doc.get("size", 0)), int(scale.get("size", 0))
        if base.failure or top.failure or not all(sizes) or not base.cpu or not top.cpu or base.over_budget:
            return [], said
        if not growth_exceeds(sizes[0], base.best, sizes[1], top.best, promises.max_growth):
            return [], said
        return [growth_violation(name, base_rung, sizes[0], base.best, rung, sizes[1], top, promises.max_growth)], said
    raise ValueError(f"unknown scale verdict {verdict!r}")


def growth_violation(name: str, base_rung: str, base_size: int, base_s: float, rung: str, size: int,
                     top: Timing, exponent: float) -> Violation:
    grew = math.log(top.best / base_s) / math.log(size / base_size)
    return Violation("scale.growth", f"{name}'s CPU time per call grew as size^{grew:.2f} from {base_rung} "
                                     f"({seconds_text(base_s)}) to {rung} ({top.text()}); promised at most "
                                     f"size^{exponent:g} (max_growth={exponent:g}; size = members + partitions, "
                                     f"allowing {GROWTH_SLACK:g}x for a busy machine)")

__all__ = [
    "CALLS", "GROWTH_SPAN", "Timing", "fitted_growth", "floor_s", "growth_exceeds", "growth_violation", "retime",
    "seconds_text", "time_calls"
]
