"""Gate stage `scale`: CPU time per call on a seeded ladder of production-size problems (`generate.ladder`).

The other stages send small problems, where an assignor quadratic in members x partitions is instant. This one
climbs the ladder in ascending size, every shape and state in turn, up to 2,100 members x 2,100 partitions on
one topic and 1,000 x 10,000 over 100 topics in the quick profile (two more doublings in `full`), timing each
rung as `run.scale` does (CPU time, the minimum of a few calls) and checking each output with the spec's
checker (H1-H6, the promised balance, stickiness, spread and racks; H8 across the rung's calls).

Verdicts (`run.scale`): H7 when every call at a rung passes the per-call CPU budget (reference seconds scaled by
the run's CPU factor, `run.calibration`, as the stage's own time budget is); `scale.time` and `scale.growth`
for the `max_time` and `max_growth` promises (absolute seconds: a user's service level). Without a promise the
growth of each series is measured and reported. The ladder stops at its first timing finding: its rung is the
smallest offending size on the ladder, and its problem, written whole (not minimized), the reproducer. A crash, a
hang or a wrong output at scale is a finding like any stage's (minimized, confirmed), and ends its series.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from assigncheck.ci.context import Context
from assigncheck.ci.results import StageResult, Work
from assigncheck.ci.stages import each_target
from assigncheck.findings.confirm import Collector, reproducers, settle
from assigncheck.findings.finding import Finding
from assigncheck.generate import ladder
from assigncheck.run import breaker
from assigncheck.run import scale as sc
from assigncheck.run.interrupt import stop_if_interrupted
from assigncheck.spec.promises import Assignor, problem_kind
from assigncheck.spec.violations import Violation

# The ladder per profile: members on one topic (M x M), members over MANY_TOPICS topics (M x RATIO*M).
LADDER = {"quick": ((263, 525, 1050, 2100), (125, 250, 500, 1000)),
          "full": ((263, 525, 1050, 2100, 4200, 8400), (125, 250, 500, 1000, 2000, 4000))}
MANY_TOPICS, RATIO = 100, 10
NOT_AT_SCALE = ("fixpoint", "exact", "cooperative.rounds", "cooperative.withhold")  # the small problems' work


def plan(ctx: Context, target: Assignor) -> list[ladder.Rung]:
    one, many = LADDER.get(ctx.profile.name, LADDER["quick"])
    return ladder.rungs(one, many, MANY_TOPICS, RATIO, target.promises.max_time)


def checked_ids(target: Assignor) -> tuple[str, ...]:
    from assigncheck.ci.stages.properties import promised_ids

    p = target.promises
    ids = [i for i in promised_ids(target) if i not in NOT_AT_SCALE]
    return (*ids, *(["scale.time"] if p.max_time else []), *(["scale.growth"] if p.max_growth else []))


class _Ladder:
    """One target's climb: the timed rungs per series, the findings, and why it stopped."""

    def __init__(self, target: Assignor, ctx: Context) -> None:
        self.target, self.ctx = target, ctx
        self.kind = problem_kind(target)
        self.form = ladder.Form.of(target.promises, self.kind)
        self.floor = sc.floor_s(target)
        self.budget = ctx.profile.budget_s
        self.points: dict[str, list[tuple[ladder.Rung, sc.Timing]]] = {}
        self.done: set[str] = set()  # series that stopped at a failure (a crash, a hang)
        self.findings: list[Finding] = []
        self.collector = Collector(ctx.profile.max_candidates)
        self.stopped = ""
        self.hangs = breaker.Breaker()

    def climb(self, rungs: Sequence[ladder.Rung], deadline: float) -> int:
        from assigncheck.run.gc import freeze_loaded

        for rung in rungs:  # made once per process; then frozen: the calls' collections walk none of them
            ladder.problem(rung, self.ctx.seed, self.form)
        freeze_loaded()
        timed = 0
        for rung in rungs:
            stop_if_interrupted()
            series = rung.series(self.kind)
            if series in self.done:
                continue
            if time.monotonic() > deadline:
                self.stopped = (f"the stage's {self.ctx.profile.scale_s:.3g} s budget ended before {rung.text} "
                                f"({series})")
                break
            timed += 1
            if not self._rung(rung, series):
                break
        return timed

    def _rung(self, rung: ladder.Rung, series: str) -> bool:
        """Time and check one rung; False when the ladder stops here."""
        problem = ladder.problem(rung, self.ctx.seed, self.form)
        named = self.target.promises.max_time
        limit = named.seconds if named and (named.members, named.partitions, named.topics) == (
            rung.members, rung.partitions, rung.topics) else None
        growth = self.target.promises.max_growth is not None
        timing = sc.time_calls(self.target, problem, self.budget, floor=min(self.floor, limit or self.floor),
                               verdict_s=0.0 if growth else min(self.budget, limit or self.budget))
        how = f" (scale ladder {rung.text}, {series}, seed {self.ctx.seed})"
        if timing.failure is not None:
            self.collector.offer(problem, [timing.failure], self.ctx.seed, how)
            self.done.add(series)
            if self.hangs.count(breaker.hung([timing.failure])):
                self.stopped = breaker.NOTE
                return False
            return True
        self.hangs.count(False)
        self.points.setdefault(series, []).append((rung, replace(timing, outputs=())))
        if timing.over_budget:
            message = (f"{self.target.name} took {self.budget:.3g} s of CPU or more in each of {len(timing.cpu)} "
                       f"calls at {rung.text} ({series}), over its {self.ctx.budget_text()} CPU budget per call; "
                       f"{self._growth_said(series, rung)}")
            self._timing_finding(Violation("H7", message, cause="scale.timeout"), problem, rung, series, "budget",
                                 timing)
            self.stopped = f"over the CPU budget at {rung.text} ({series}): larger rungs not timed"
            return False
        self.collector.offer(problem, self._output_violations(problem, timing), self.ctx.seed, how)
        if limit is not None and timing.best > limit:
            assert named is not None
            message = (f"{self.target.name} took {timing.text()} of CPU per call at {rung.text} ({series}); "
                       f"promised at most {sc.seconds_text(limit)} (max_time={named})")
            self._timing_finding(Violation("scale.time", message), problem, rung, series, "time", timing)
            self.stopped = f"max_time broken at {rung.text} ({series}): larger rungs not timed"
            return False
        if self._growth_broken(series):
            self.stopped = f"max_growth broken at {rung.text} ({series}): larger rungs not timed"
            return False
        return True

    def _output_violations(self, problem: Any, timing: sc.Timing) -> list[Violation]:
        """The spec's checks of the rung's output, and H8 between its first two calls."""
        from assigncheck.spec.assignment_check import check_assignment, differing_members
        from assigncheck.spec.groups import protocol_form
        from assigncheck.spec.invariants import CAP, and_more

        problem = protocol_form(problem, self.target.promises)
        first, *others = timing.outputs
        found = list(check_assignment(problem, first, self.target.promises, measure=False).violations)
        differ = differing_members(first, others[0]) if others else []
        if differ:
            names = ", ".join(differ[:CAP]) + and_more(len(differ), CAP)
            found.append(Violation("H8", f"two runs of {self.target.name} on the same problem differ; members "
                                         f"whose partitions differ: {names}", tuple(differ[:CAP])))
        return found

    def _growth_broken(self, series: str) -> bool:
        """Against a `max_growth` promise: the newest rung of the series against its first rung above the floor,
        once it is GROWTH_SPAN times larger. A rung that seems to break it is timed again with its base, and the
        verdict taken on the minimum of all their calls."""
        exponent = self.target.promises.max_growth
        counted = [(r, t) for r, t in self.points[series] if t.best >= self.floor]
        if exponent is None or len(counted) < 2 or counted[-1][1] is not self.points[series][-1][1]:
            return False
        (base, base_t), (rung, top) = counted[0], counted[-1]
        if rung.size < sc.GROWTH_SPAN * base.size or not sc.growth_exceeds(base.size, base_t.best, rung.size,
                                                                            top.best, exponent):
            return False
        problem, base_problem = (ladder.problem(r, self.ctx.seed, self.form) for r in (rung, base))
        base_t, top = (t.joined(sc.time_calls(self.target, p, self.budget))
                       for t, p in ((base_t, base_problem), (top, problem)))
        if base_t.failure or top.failure or not sc.growth_exceeds(base.size, base_t.best, rung.size, top.best,
                                                                  exponent):
            return False
        violation = sc.growth_violation(self.target.name, f"{base.text} ({series})", base.size, base_t.best,
                                        f"{rung.text} ({series})", rung.size, top, exponent)
        self._timing_finding(violation, problem, rung, series, "growth", top,
                             base=(f"{base.text} ({series})", base.size, base_t.best, base_problem))
        return True

    def _timing_finding(self, violation: Violation, problem: Any, rung: ladder.Rung, series: str, verdict: str,
                        timing: sc.Timing, base: tuple[str, int, float, Any] | None = None) -> None:
        """A timing finding: its rung's problem, whole, as the reproducer; `run.scale.retime` replays it."""
        from assigncheck.findings.signature import signature
        from assigncheck.formats.documents import problem_to_json
        from assigncheck.spec.groups import protocol_form

        sent = protocol_form(problem, self.target.promises)
        info: dict[str, Any] = {"verdict": verdict, "rung": f"{rung.text} ({series})", "size": rung.size,
                                "cpu_s": [round(s, 4) for s in timing.cpu], "cause": violation.cause}
        if base is not None:
            text, size, seconds, base_problem = base
            info["base"] = {"rung": text, "size": size, "cpu_s": round(seconds, 4),
                            "problem": problem_to_json(protocol_form(base_problem, self.target.promises))}
        sig = signature(violation, sent)
        path = reproducers(self.ctx.filing, "scale", self.target).write(
            sent, violation, seed=self.ctx.seed, signature=sig,
            how=f"scale ladder rung {rung.text}, {series}, seed {self.ctx.seed}", extra={"scale": info})
        self.findings.append(Finding.of("scale", self.target.name, violation, reproducer=str(path), seed=self.ctx.seed,
                                        signature=sig))

    # ---- what it measured ---------------------------------------------------------------------------------

    def _growth(self, series: str) -> float | None:
        """The series' growth exponent over its rungs above the floor, when they span GROWTH_SPAN in size (closer
        together, or near the floor, fixed costs and noise would make the figure up)."""
        points = [(r.size, t.best) for r, t in self.points.get(series, []) if t.best >= self.floor
                  and not t.over_budget]
        if not points or max(s for s, _ in points) < sc.GROWTH_SPAN * min(s for s, _ in points):
            return None
        return sc.fitted_growth(points)

    def _growth_said(self, series: str, rung: ladder.Rung) -> str:
        """How fast the time grew up to a rung over the budget (whose time is a lower bound)."""
        below = [(r, t) for r, t in self.points[series] if t.best >= self.floor and not t.over_budget
                 and r.size * sc.GROWTH_SPAN <= rung.size]
        if not below:
            return "its growth below that rung not measured"
        base, timing = below[0]
        grew = math.log(self.budget / timing.best) / math.log(rung.size / base.size)
        return f"CPU time grew as size^{grew:.2f} or more from {base.text} ({sc.seconds_text(timing.best)})"

    def stats(self) -> dict[str, Any]:
        largest: dict[str, list[str]] = {}
        growth, unmeasured = [], []
        for series, points in self.points.items():
            rung, timing = points[-1]
            largest.setdefault(rung.text, []).append(f"{rung.state} {timing.text()}")
            grew = self._growth(series)
            if grew is None:
                unmeasured.append(series)
            else:
                growth.append(f"{series} {grew:.2f}")
        if unmeasured:  # too fast to tell growth from fixed costs
            growth.append(f"n/a (no two rungs of {sc.seconds_text(self.floor)} or more {sc.GROWTH_SPAN:g}x apart): "
                          + ", ".join(unmeasured))
        stats: dict[str, Any] = {
            "largest": "; ".join(f"{size}: {', '.join(said)}" for size, said in largest.items()),
            "growth": "; ".join(growth),
            "ladder": [{"series": series, "rung": r.text, "members": r.members, "partitions": r.partitions,
                        "topics": r.topics, "size": r.size, "cpu_ms": round(t.best * 1000, 3), "calls": len(t.cpu),
                        "over_budget": t.over_budget} for series, points in self.points.items() for r, t in points],
        }
        if self.stopped:
            stats["stopped"] = self.stopped
        return stats


def check_target(target: Assignor, ctx: Context) -> StageResult:
    from assigncheck.run.gc import loaded_frozen

    started = time.monotonic()
    kind = problem_kind(target)
    if kind not in ladder.KINDS:
        return StageResult("scale", target.name, stats={"skipped": f"no scale ladder for {kind} problems"})
    # what this stage enforces: the exact reference and the fixpoint are the small problems' work (max_rounds
    # stays: it says which protocol the ladder's groups run)
    enforced = replace(target.promises, exact=None, fixpoint=False).to_text()
    result = StageResult("scale", target.name, checked=checked_ids(target), promises=enforced)
    rungs = plan(ctx, target)
    climb = _Ladder(target, ctx)
    with loaded_frozen():  # the target is loaded: collections walk only what the calls make
        timed = climb.climb(rungs, started + ctx.profile.scale_s)
    result.findings = climb.findings + settle("scale", target, climb.collector.candidates(), ctx.filing)
    result.work = Work(timed, len(rungs), "rungs")
    result.stats = climb.stats()
    if climb.stopped.startswith(("the stage's", "circuit breaker")):
        result.notes.append(climb.stopped)
    result.seconds = time.monotonic() - started
    return result


run = each_target("scale", check_target)
