"""A live check from end to end: a broker (ours, fresh, or the user's), a schedule run with one client, the checks,
and each distinct violation as a reproducer file that `assigncheck replay` re-runs on a fresh broker.

A reproducer is the rebuilt problem of the stable point where the violation was seen (for H6 on the timelines and
for convergence, the last stable point before it, or the group as it started), with a `finding` record whose
`live` object carries what reproduces it: the client, protocol, assignor, seed, schedule and convergence limit.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assigncheck.findings.replay import LIVE, On, Replayed, Reproducer, Seen
from assigncheck.findings.reproducers import Reproducers
from assigncheck.formats.documents import dumps
from assigncheck.formats.reproducer import Record, TargetRef
from assigncheck.live import outcome_check
from assigncheck.live.broker import Broker
from assigncheck.live.members import check_client
from assigncheck.live.run import CONVERGE_S, Client, Outcome, run
from assigncheck.live.schedule import Schedule
from assigncheck.live.schedule import check as check_steps
from assigncheck.spec.errors import FormatError, InputError
from assigncheck.spec.model import Member, Problem
from assigncheck.spec.promises import Promises
from assigncheck.spec.violations import Violation

STAGE = "live"


@dataclass(frozen=True)
class LiveSpec:
    """What a live check runs, and all a reproducer needs to run it again."""

    client: Client
    schedule: Schedule
    seed: int = 0
    promises: str | None = None  # None: the assignor's own (live.outcome_check.promises_of)
    converge_s: float = CONVERGE_S

    def to_json(self) -> dict[str, Any]:
        return {**self.client.to_json(), "seed": self.seed, "converge_s": self.converge_s,
                "schedule": self.schedule.to_json(), **({"promises": self.promises} if self.promises else {})}

    @classmethod
    def from_json(cls, doc: Any, path: str = "finding.live") -> LiveSpec:
        if not isinstance(doc, dict) or not all(isinstance(doc.get(k), str) for k in
                                                ("client", "protocol", "assignor")):
            raise FormatError(path, "must name the client, protocol and assignor")
        converge = doc.get("converge_s", CONVERGE_S)
        if isinstance(converge, bool) or not isinstance(converge, int | float) or converge <= 0:
            raise FormatError(f"{path}.converge_s", "must be a positive number of seconds")
        seed = doc.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise FormatError(f"{path}.seed", "must be an integer")
        classpath = doc.get("classpath", [])
        if not isinstance(classpath, list) or not all(isinstance(c, str) for c in classpath):
            raise FormatError(f"{path}.classpath", "must be a list of strings")
        return cls(Client(doc["client"], doc["protocol"], doc["assignor"], tuple(classpath)),
                   Schedule.from_json(doc.get("schedule"), f"{path}.schedule"), seed, doc.get("promises"),
                   float(converge))

    def enforced(self) -> Promises:
        return outcome_check.promises_of(self.client, self.promises)


@dataclass
class LiveResult:
    spec: LiveSpec
    outcome: Outcome
    violations: list[tuple[int | None, Violation]] = field(default_factory=list)
    seconds: float = 0.0


def check_live(spec: LiveSpec, bootstrap: str | None = None) -> LiveResult:
    """Run `spec` on the broker at `bootstrap`, or on a fresh one of ours, and check it."""
    from assigncheck.targets import registry

    check_client(spec.client.client, spec.client.protocol)
    check_steps(spec.schedule.steps, spec.schedule.topics)  # before any broker starts
    started = time.monotonic()
    target = outcome_check.conformance_target(spec.client)
    conform = registry.load_target(target) if target else None  # before the group: a JVM start is not a rebalance
    directory = Path(tempfile.mkdtemp(prefix="assigncheck-live-"))
    try:
        if bootstrap is None:
            with Broker() as broker:
                outcome = run(spec.schedule, spec.client, broker.bootstrap, directory, converge_s=spec.converge_s)
        else:
            outcome = run(spec.schedule, spec.client, bootstrap, directory, converge_s=spec.converge_s)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    violations = outcome_check.check(outcome, spec.client, spec.enforced(), spec.converge_s, conform)
    return LiveResult(spec, outcome, violations, time.monotonic() - started)


def problem_for(result: LiveResult, step: int | None) -> Problem:
    """The problem a violation's reproducer carries (see the module's docstring)."""
    points = result.outcome.points
    at = [p for p in points if step is not None and p.step == step]
    if at:
        i = points.index(at[0])
        return outcome_check.problem_at(at[0], points[i - 1] if i else None)
    before = [p for p in points if step is None or p.step < step]
    if before:
        i = points.index(before[-1])
        return outcome_check.problem_at(before[-1], points[i - 1] if i else None)
    joins = [s for s in result.spec.schedule.steps if s.op == "join"][:1] or []
    return Problem(dict(result.spec.schedule.topics), tuple(Member(s.member, frozenset(s.topics)) for s in joins))


def distinct(result: LiveResult) -> list[tuple[int | None, Violation]]:
    """One violation per invariant: a schedule is one reproducer per kind of failure."""
    seen: dict[str, tuple[int | None, Violation]] = {}
    for step, v in result.violations:
        seen.setdefault(v.invariant, (step, v))
    return list(seen.values())


def write_reproducers(result: LiveResult, directory: Path) -> list[Path]:
    """One reproducer file per distinct violation, under `directory`, through the one reproducer path
    (`findings.reproducers`): named `live-<client>-<protocol>-<invariant>-<id>.json`, the id a digest of the spec."""
    spec = result.spec
    client = spec.client
    label = outcome_check.conformance_target(client) or f"{client.client}:{client.assignor}"
    filing = Reproducers(directory, STAGE, TargetRef(label, spec.enforced().to_text()), None,
                         name=f"{client.client}-{client.protocol}")
    return [filing.write(problem_for(result, step), v, seed=spec.seed,
                         signature=f"{v.invariant}|{client.client}|{client.protocol}", distinct=dumps(spec.to_json()),
                         how=f"{client}, seed {spec.seed}, "
                             f"{'on the callback timelines' if step is None else f'after step {step}'}",
                         extra={"live": spec.to_json(), "step": step})
            for step, v in distinct(result)]


def replay(record: Record, bootstrap: str | None = None) -> tuple[bool, LiveResult]:
    """Run a live finding's schedule again (on a fresh broker unless told otherwise): does its invariant break?"""
    spec = LiveSpec.from_json(record.extra.get("live"))
    result = check_live(spec, bootstrap)
    return any(v.invariant == record.invariant for _, v in result.violations), result


def replay_live(found: Reproducer, on: On) -> Replayed:
    """A live finding replayed (the `live` kind of `findings.replay`): its schedule run again, on a fresh
    broker, with the client its file names (`on` has nothing to change: the file says it all)."""
    record = found.record
    assert record is not None, "a live finding has a record"
    again, result = replay(record)
    name = result.spec.client
    summary = (f"reproduces: {record.invariant} on a fresh broker with {name}" if again else
               f"no longer reproduces: {record.invariant} not seen with {name}")
    return Replayed(again, summary, record.target.spec, found.file, record.invariant,
                    tuple(Seen(v, v.invariant == record.invariant, step) for step, v in result.violations),
                    seconds=result.seconds, stepped=True, keys=LIVE)


def minimize(spec: LiveSpec, still_fails: Callable[[LiveSpec], bool]) -> LiveSpec:
    """The schedule shortened step by step (latest first) while `still_fails`; a step whose removal leaves a
    schedule that names a member before it joins is kept."""
    steps = list(spec.schedule.steps)
    i = len(steps) - 1
    while i >= 1:
        shorter = steps[:i] + steps[i + 1:]
        if _valid(shorter, spec.schedule.topics):
            candidate = LiveSpec(spec.client, Schedule(spec.schedule.topics, tuple(shorter)), spec.seed,
                                 spec.promises, spec.converge_s)
            if still_fails(candidate):
                steps = shorter
        i -= 1
    return LiveSpec(spec.client, Schedule(spec.schedule.topics, tuple(steps)), spec.seed, spec.promises,
                    spec.converge_s)


def _valid(steps: list[Any], topics: dict[str, int]) -> bool:
    try:
        check_steps(steps, topics)
    except InputError:
        return False
    return True
