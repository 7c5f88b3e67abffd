"""The properties stage's H8 across processes (`findings.processes`): a seeded sample of the problems it
checked (reservoir sampling), compared in two processes of the target at the stage's end, within a time
budget of its own."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from assigncheck.ci.context import Context
from assigncheck.ci.results import StageResult, Work
from assigncheck.findings.confirm import Collector, loadable, settle
from assigncheck.findings.processes import NotCompared, Pair, Processes
from assigncheck.run import breaker
from assigncheck.run.interrupt import stop_if_interrupted
from assigncheck.spec.model import AnyProblem
from assigncheck.spec.promises import Assignor

SAMPLE = {"quick": (200, 5.0), "full": (1000, 30.0)}  # problems compared per target, at most this many seconds
CHUNK = 25  # problems asked of each process in one batch request


@dataclass
class Sample:
    """A seeded sample of a stage's problems (reservoir sampling), compared across two processes at its end."""

    target: Assignor
    ctx: Context
    seen: int = 0
    problems: list[AnyProblem] = field(default_factory=list)
    pair: Pair | None = None
    why_not: str = ""

    def __post_init__(self) -> None:
        from assigncheck.targets.registry import ref_of

        self.size, self.seconds = SAMPLE.get(self.ctx.profile.name, SAMPLE["quick"])
        self.rng = random.Random(self.ctx.seed)
        self.processes = Processes.of(self.ctx.h8_env, self.ctx.seed)
        if not loadable(self.target):
            self.why_not = "no other process can load this target"
            return
        self.pair = Pair(ref_of(self.target), self.processes, self.target.name)
        self.pair.start()

    def offer(self, problem: AnyProblem) -> None:
        from assigncheck.spec.groups import protocol_form

        problem = protocol_form(problem, self.target.promises)
        self.seen += 1
        if len(self.problems) < self.size:
            self.problems.append(problem)
        else:
            k = self.rng.randrange(self.seen)
            if k < self.size:
                self.problems[k] = problem

    def close(self) -> None:
        if self.pair is not None:
            self.pair.close()

    def settle(self, stage: str, result: StageResult) -> None:
        """Compare the sample in the two processes and add the findings, the work done and any note to
        `result`."""
        label = f"H8 across processes ({self.processes})"
        if self.pair is None:
            result.notes.append(f"{label}: not checked: {self.why_not}")
            return
        budget = self.ctx.profile.budget_s
        collector = Collector(self.ctx.profile.max_candidates)
        deadline, compared = time.monotonic() + self.seconds, 0
        try:
            for at, problem in enumerate(self.problems):
                stop_if_interrupted()
                if time.monotonic() > deadline or self.pair.hangs.open:
                    break
                if at % CHUNK == 0:
                    self.pair.prefetch(self.problems[at:at + CHUNK], budget)
                collector.offer(problem, self.pair.compare(problem, budget), self.ctx.seed, f"{stage} sample, {label}")
                compared += 1
        except NotCompared as e:
            result.notes.append(f"{label}: not checked: {e}")
            return
        pair, stopped = self.pair, self.pair.hangs.open  # before minimizing calls it again
        result.findings += settle(stage, self.target, collector.candidates(), self.ctx.filing,
                                  judge=lambda p: pair.compare(p, budget),
                                  extra={"processes": self.processes.to_json()})
        if stopped:
            result.notes.append(f"{label}: {breaker.NOTE}")
        work = Work(compared, min(self.size, self.seen), "problems")
        result.stats["h8_processes"] = f"{work} ({self.processes})"
        if work.short:
            result.notes.append(f"{label}: compared {work}: under half of the sample")
