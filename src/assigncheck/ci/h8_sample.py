"""The properties stage's H8 across processes (`findings.processes`): a seeded sample of the problems it
checked (reservoir sampling), compared in pairs of processes of the target at the stage's end, within a time
budget of its own.

Each problem of the sample is compared with fresh member ids (`fresh_ids`), so that each problem's iteration
order of a set of ids is its own coin flip, not one flip for every problem that lists c0, c1, ...; and every
PER_PAIR problems a new pair of processes takes over, started with new values of the variable
(`Processes.drawn`). The ids and the values all follow from the run's `--seed`; each finding's reproducer
records the values of the pair that found it."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field, replace

from assigncheck.ci.context import Context
from assigncheck.ci.results import StageResult, Work
from assigncheck.findings.confirm import Candidate, Collector, loadable, settle
from assigncheck.findings.processes import NotCompared, Pair, Processes
from assigncheck.findings.reproducers import Judge
from assigncheck.run import breaker
from assigncheck.run.interrupt import stop_if_interrupted
from assigncheck.spec.model import AnyProblem, Problem
from assigncheck.spec.promises import Assignor

SAMPLE = {"quick": (200, 5.0), "full": (1000, 30.0)}  # problems compared per target, at most this many seconds
CHUNK = 25  # problems asked of each process in one batch request
PER_PAIR = 50  # problems each pair of processes compares before a new pair, with new values, takes over


def fresh_ids(problem: AnyProblem, rng: random.Random) -> AnyProblem:
    """`problem` with every member id (and static member's instance id; a Streams client's id) replaced by a new
    random one, in a random order relative to the old ones: the same group under other names."""
    def new() -> str:
        return f"member-{rng.getrandbits(48):012x}"

    if isinstance(problem, Problem):
        return problem.replace(members=tuple(
            replace(m, member_id=new(), instance_id=None if m.instance_id is None else f"instance-{new()[7:]}")
            for m in problem.members))
    return replace(problem, clients=tuple(replace(c, client_id=new()) for c in problem.clients))


@dataclass
class Sample:
    """A seeded sample of a stage's problems (reservoir sampling), compared across pairs of processes at its end."""

    target: Assignor
    ctx: Context
    seen: int = 0
    problems: list[AnyProblem] = field(default_factory=list)
    pairs: list[Pair] = field(default_factory=list)  # started, in the order they compare
    why_not: str = ""

    def __post_init__(self) -> None:
        self.size, self.seconds = SAMPLE.get(self.ctx.profile.name, SAMPLE["quick"])
        self.rng = random.Random(self.ctx.seed)  # the reservoir
        self.drawn = random.Random(f"h8 across processes {self.ctx.seed}")  # the pairs' values and fresh ids
        if not loadable(self.target):
            self.why_not = "no other process can load this target"
            return
        self.pairs.append(self._pair())  # it loads the target while the stage goes on

    def _pair(self) -> Pair:
        from assigncheck.targets.registry import ref_of

        pair = Pair(ref_of(self.target), Processes.drawn(self.ctx.h8_env, self.drawn), self.target.name)
        pair.start()
        return pair

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
        for pair in self.pairs:
            pair.close()

    def _compared(self, collector: Collector, stage: str, deadline: float) -> tuple[int, bool]:
        """Compare the sample, PER_PAIR problems per pair (CHUNK per batch request), the next pair loading while one
        compares: (problems compared, whether the circuit breaker stopped it)."""
        budget = self.ctx.profile.budget_s
        problems = [fresh_ids(p, self.drawn) for p in self.problems]
        compared = 0
        for at, problem in enumerate(problems):
            stop_if_interrupted()
            pair = self.pairs[at // PER_PAIR]
            if time.monotonic() > deadline or pair.hangs.open:
                return compared, pair.hangs.open
            if at % PER_PAIR == 0:
                if at:
                    self.pairs[at // PER_PAIR - 1].close()
                if at + PER_PAIR < len(problems):
                    self.pairs.append(self._pair())  # the next round's, loading while this one compares
            if at % CHUNK == 0:
                pair.prefetch(problems[at:at + min(CHUNK, PER_PAIR - at % PER_PAIR)], budget)
            how = f"{stage} sample, H8 across processes ({pair.varied})"
            collector.offer(problem, pair.compare(problem, budget), self.ctx.seed, how,
                            extra={"processes": pair.processes.to_json()})
            compared += 1
        return compared, False

    def _judge(self, candidate: Candidate) -> Judge:
        """Two processes started as the candidate's were, to minimize it with."""
        from assigncheck.targets.registry import ref_of

        assert candidate.extra is not None
        pair = Pair(ref_of(self.target), Processes.from_json(candidate.extra["processes"]), self.target.name)
        self.pairs.append(pair)  # closed with the others
        budget = self.ctx.profile.budget_s
        return lambda p: pair.compare(p, budget)

    def settle(self, stage: str, result: StageResult) -> None:
        """Compare the sample in pairs of processes and add the findings, the work done and any note to
        `result`."""
        from assigncheck.findings.processes import reads_env

        if not self.pairs:
            result.notes.append(f"H8 across processes: not checked: {self.why_not}")
            return
        collector = Collector(self.ctx.profile.max_candidates)
        try:
            compared, stopped = self._compared(collector, stage, time.monotonic() + self.seconds)
        except NotCompared as e:
            result.notes.append(f"H8 across processes: not checked: {e}")
            return
        result.findings += settle(stage, self.target, collector.candidates(), self.ctx.filing, judge=self._judge)
        if stopped:
            result.notes.append(f"H8 across processes: {breaker.NOTE}")
        work = Work(compared, min(self.size, self.seen), "problems")
        first = self.pairs[0]
        varied = (f"each pair with its own {first.processes.env} values" if reads_env(first.ref, first.processes)
                  else "each a fresh process")
        result.stats["h8_processes"] = f"{work}, {-(-compared // PER_PAIR)} pair(s) of processes ({varied})"
        if work.short:
            result.notes.append(f"H8 across processes: compared {work}: under half of the sample")
