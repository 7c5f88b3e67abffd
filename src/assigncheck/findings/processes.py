"""H8 across processes: a target's output for one problem must not depend on the process that computes it.

Within one process an assignor may iterate a set of member ids in one stable order, so two runs agree (H8's own
check, `spec.assignment_check`), while another process, with another string hash seed, iterates it in another:
two leaders, or one leader after a restart, then assign one group differently and partitions move for nothing.
The properties stage therefore replays a seeded sample of its problems (`ci.h8_sample`) in pairs of processes of
the target (`Pair`, over `targets.worker`: any kind of target; a `cmd:` or `java:` program runs under it), the
two started with two different values of one environment variable: `PYTHONHASHSEED`, or the variable `--h8-env`
names for a runtime with another knob; a new pair, with new seeded values (`Processes.drawn`), every few
problems of the sample. A runtime with no such knob differs between any two fresh processes (Go's per-map
seed, Java's identity hashes), and the messages say so (`varied`). Two different answers (or an answer and a
failure) are an H8 finding with cause `processes`, unless the first process also disagrees with itself
(in-process nondeterminism, which H8's own check reports). Its reproducer records the variable and both values
of the pair that found it, and `replay` (what `assigncheck replay` runs for it, `findings.replay`) compares two
fresh processes started the same way.
"""

from __future__ import annotations

import os
import random
import shlex
from dataclasses import dataclass
from typing import Any

from assigncheck.formats.reproducer import TargetRef
from assigncheck.run import breaker
from assigncheck.spec.errors import FormatError, InputError, TargetFailure
from assigncheck.spec.model import AnyProblem, Assignment, Problem, StreamsProblem
from assigncheck.spec.violations import Violation

ENV = "PYTHONHASHSEED"
CAUSE = "processes"
WARM_HANG_S = 120.0  # the first call of a process loads the target (a JVM, numba's cached kernels)
TRIES = 5  # replay: nondeterminism beyond the variable may agree with itself a few times in a row
MAX_VALUE = 2**32 - 1  # PYTHONHASHSEED takes 0 .. 2**32 - 1


class NotCompared(Exception):
    """A process of the target could not even answer the smallest problem: nothing to compare."""


@dataclass(frozen=True)
class Processes:
    """The environment variable two processes of a target differ in, and its value in each."""

    env: str = ENV
    values: tuple[str, str] = ("1", "2")

    @classmethod
    def drawn(cls, env: str, rng: random.Random) -> Processes:
        """Two different values drawn from `rng` (seeded: a run's pairs follow from its `--seed`)."""
        first, second = rng.sample(range(1, MAX_VALUE + 1), 2)
        return cls(env, (str(first), str(second)))

    def to_json(self) -> dict[str, Any]:
        return {"env": self.env, "values": list(self.values)}

    @classmethod
    def from_json(cls, doc: Any, path: str = "finding.processes") -> Processes:
        if not isinstance(doc, dict) or set(doc) != {"env", "values"}:
            raise FormatError(path, "must be an object with 'env' and 'values'")
        env, values = doc["env"], doc["values"]
        if not isinstance(env, str) or not env or "=" in env:
            raise FormatError(f"{path}.env", "must be an environment variable's name")
        if not (isinstance(values, list) and len(values) == 2 and all(isinstance(v, str) for v in values)
                and values[0] != values[1]):
            raise FormatError(f"{path}.values", "must be two different strings")
        return cls(env, (values[0], values[1]))

    def __str__(self) -> str:
        return f"{self.env}={self.values[0]} and {self.values[1]}"


def _python_program(command: str) -> bool:
    """Whether a `cmd:` command runs a Python program (which reads PYTHONHASHSEED from its environment)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    return any(os.path.basename(w).startswith("python") or w.endswith(".py") for w in words[:3])


def reads_env(ref: TargetRef, processes: Processes) -> bool:
    """Whether the target's runtime reads the variable the two processes differ in: the one `--h8-env` named, or
    PYTHONHASHSEED for a Python target (a `cmd:` program that is a Python script included)."""
    if processes.env != ENV:
        return True
    kind, _, rest = ref.spec.partition(":")
    if kind == "java":
        return False
    if kind in ("cmd", "cmd2"):
        return _python_program(rest)
    return True


def varied(ref: TargetRef, processes: Processes) -> str:
    """What differed between the two processes, as a message says it: the variable and its values where the
    target's runtime reads it, else what any two fresh processes of that runtime draw for themselves."""
    if reads_env(ref, processes):
        return str(processes)
    if ref.spec.startswith("java:"):
        return "two fresh JVMs: Java's identity hashes, and so the iteration order of hashed objects"
    return "two fresh processes of the program: its runtime's own per-process randomness, such as Go's per-map seed"


class Pair:
    """Two processes of one target, each started with its value of the variable."""

    def __init__(self, ref: TargetRef, processes: Processes, name: str) -> None:
        from assigncheck.targets.worker import in_own_process

        self.ref, self.processes, self.name = ref, processes, name
        self.varied = varied(ref, processes)
        self.labels = ([f"{processes.env}={v}" for v in processes.values] if reads_env(ref, processes)
                       else ["the first", "the second"])
        self.procs = [in_own_process(ref, {processes.env: v}, f"{name} ({processes.env}={v})")
                      for v in processes.values]
        self._warm = False
        self.hangs = breaker.Breaker()  # counts the calls in a row that hit the hang limit

    def start(self) -> None:
        """Start both now: they load the target while the stage goes on."""
        for proc in self.procs:
            proc.start()

    def close(self) -> None:
        for proc in self.procs:
            proc.close()

    def prefetch(self, problems: list[AnyProblem], budget_s: float) -> None:
        """Ask each process for all of `problems` in one round trip (`CommandTarget.prefetch`): the next
        `compare` calls, on these problems in this order, are then answered at once."""
        from assigncheck.run.calls import hang_limit

        if problems:
            self._warmed(problems[0])
            for proc in self.procs:
                proc.prefetch(problems, cpu_budget_s=budget_s, hang_s=hang_limit(budget_s))

    def _warmed(self, like: AnyProblem) -> None:
        """The smallest problem of the same kind and protocol, in each process, with no CPU budget: the first
        call's CPU is the process's start-up (loading the target)."""
        from assigncheck.targets.registry import smallest

        if self._warm:
            return
        problem = smallest("streams" if isinstance(like, StreamsProblem) else "consumer")
        if isinstance(problem, Problem) and isinstance(like, Problem):
            problem = problem.with_protocol(like.protocol)
        for proc in self.procs:
            try:
                proc.assign_metered(problem, hang_s=WARM_HANG_S)
            except (TargetFailure, InputError) as e:
                raise NotCompared(f"{proc.name} cannot assign even the smallest problem: {e}") from None
        self._warm = True

    def _run(self, k: int, problem: AnyProblem, budget_s: float, hang_s: float | None) -> Assignment | Violation:
        from assigncheck.run.calls import run_assignor
        from assigncheck.spec.errors import AssignorFailed

        try:
            out: Assignment | Violation = run_assignor(self.procs[k], problem, budget_s, hang_s)
        except AssignorFailed as f:
            out = f.violation
        self.hangs.count(isinstance(out, Violation) and breaker.hung([out]))
        return out

    def compare(self, problem: AnyProblem, budget_s: float, hang_s: float | None = None) -> list[Violation]:
        """H8 across the two processes on `problem` (as the target meets it: `spec.groups.protocol_form`)."""
        from assigncheck.spec.assignment_check import differing_members
        from assigncheck.spec.invariants import CAP, and_more

        self._warmed(problem)
        first, second = self._run(0, problem, budget_s, hang_s), self._run(1, problem, budget_s, hang_s)
        if isinstance(first, Violation) and isinstance(second, Violation):
            return []  # it fails in both: H7's business, not H8's
        if isinstance(first, Assignment) and isinstance(second, Assignment):
            diff = differing_members(first, second)
            if not diff:
                return []
            what = (f"two processes of {self.name} ({self.varied}) assign the same problem differently; members "
                    f"whose partitions differ: {', '.join(diff[:CAP])}{and_more(len(diff), CAP)}")
        else:
            failing = 0 if isinstance(first, Violation) else 1
            failed = first if failing == 0 else second
            assert isinstance(failed, Violation)  # exactly one of the two failed
            diff = []
            what = (f"{self.name} fails in {self.labels[failing]} of two processes ({self.varied}) and answers in "
                    f"the other: {failed.message}")
        again = self._run(0, problem, budget_s, hang_s)
        if type(again) is not type(first) or (isinstance(again, Assignment) and isinstance(first, Assignment)
                                              and differing_members(first, again)):
            return []  # one process disagrees with itself: H8's own check (two runs) reports that
        return [Violation("H8", what, tuple(diff[:CAP]), cause=CAUSE)]


def replay(ref: TargetRef, problem: AnyProblem, processes: Processes, budget_s: float, hang_s: float | None
           ) -> tuple[list[Violation], int]:
    """Compare `problem` in two fresh processes of the target, up to TRIES times: (the violations, tries)."""
    pair = Pair(ref, processes, ref.spec)
    try:
        for attempt in range(1, TRIES + 1):
            violations = pair.compare(problem, budget_s, hang_s)
            if violations:
                return violations, attempt
        return [], TRIES
    except NotCompared as e:
        raise InputError("--target", str(e)) from None
    finally:
        pair.close()


__all__ = ["CAUSE", "ENV", "NotCompared", "Pair", "Processes", "TRIES", "WARM_HANG_S", "reads_env", "replay",
           "varied"]
