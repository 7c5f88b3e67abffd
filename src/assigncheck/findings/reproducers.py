"""Reproducer files: the one path every finding takes to disk, from the gate's stages, the fuzzer, the campaigns and
the live groups.

- *Naming*: `<stage>-<target>-<invariant>-<id>.json`, where `id` is a short digest of what tells the file
  apart: the finding's signature (`findings.signature`), a codec finding's input bytes, a campaign row's
  instance id, a live group's schedule and client; `target` is the target reference's spec, or for a live
  group the client and protocol that ran it. One name per signature, so a file that exists already holds its
  finding.
- *Writing*: the problem as the target meets it (`spec.groups.coordinator_form`), a note for people and the
  finding record (`formats.reproducer`): the target reference, with what finds its code again from anywhere
  (`findings.located.recorded`), invariant, cause, signature, the check's seed, CPU budget and hang limit (none for
  a live group: real clients, no timed calls) and the CPU factor the budget was scaled by (`run.calibration`), the
  fuzz input. `assigncheck replay FILE` replays it alone.
- *Minimizing*: delta debugging (`findings.minimize`) while the same invariant and cause still break, in at
  least as many of a few tries as on the raw problem (`minimize.as_often`: a flaky failure never shrinks into a
  rarer one), never turning a problem a real group can produce into one it cannot, never adding a kind of junk
  claim (`findings.signature.keeps_its_shape`). A hang is not minimized: each try would wait out the hang limit.
- *De-duplicating*: the raw problem is written first under its own signature (an interrupted run, or a fuzz
  job killed at its deadline, loses nothing), then replaced by the minimized one under the minimized
  problem's signature; a signature already on disk is a duplicate, whichever process wrote it.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from assigncheck.findings.located import recorded
from assigncheck.findings.minimize import TRIES, as_often, minimize
from assigncheck.findings.signature import keeps_its_shape, signature
from assigncheck.formats.bounded import bounded
from assigncheck.formats.documents import dumps, problem_to_json, write_atomic
from assigncheck.formats.reproducer import Record, TargetRef, save
from assigncheck.run.breaker import HANG_CAUSES
from assigncheck.run.calls import hang_limit
from assigncheck.spec.errors import InputError
from assigncheck.spec.groups import coordinator_form
from assigncheck.spec.model import AnyProblem, Problem
from assigncheck.spec.promises import Assignor
from assigncheck.spec.violations import Violation

NOT_MINIMIZED = HANG_CAUSES  # each try would wait out the hang limit

Judge = Callable[[AnyProblem], list[Violation]]  # the violations a target shows on a problem


def safe_name(text: str) -> str:
    """A target or invariant as a file-name part (`cmd:java -jar x` -> `cmd_java_-jar_x`)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:60]


def slug(target: str) -> str:
    """A directory name for any target reference (`cmd:...` may hold anything): readable part + short hash."""
    return f"{safe_name(target)[:40]}-{hashlib.sha1(target.encode()).hexdigest()[:8]}"


def digest(distinct: str | bytes) -> str:
    """The short file-name-safe id of what tells one reproducer from another."""
    return hashlib.sha1(distinct.encode() if isinstance(distinct, str) else distinct).hexdigest()[:12]


def file_name(stage: str, target: str, invariant: str, distinct: str | bytes) -> str:
    """The one naming scheme of reproducer files (see the module doc)."""
    return f"{safe_name(stage)}-{safe_name(target)}-{safe_name(invariant)}-{digest(distinct)}.json"


def same_failure(a: Violation, b: Violation) -> bool:
    """What minimization keeps: the invariant and the crash cause."""
    return a.invariant == b.invariant and a.cause == b.cause


@dataclass(frozen=True)
class Filed:
    path: Path  # the reproducer on disk that holds this finding
    new: bool  # written now (False: an earlier finding, of this run or another process, holds its signature)
    violation: Violation  # as the (minimized) problem shows it
    signature: str


@dataclass(frozen=True)
class Reproducers:
    """Where one stage files one target's findings, and what every record of them says about the check."""

    directory: Path
    stage: str
    ref: TargetRef
    budget_s: float | None  # H7's CPU budget of the check (the hang limit follows from it); None: no timed calls
    target: Assignor | None = None  # needed to minimize (its promises, what it had to adapt); not to write
    name: str = ""  # the file names' target part, when the reference's spec does not say what ran (a live client)
    factor: float | None = None  # the CPU factor budget_s was scaled by (None: an absolute budget)

    @classmethod
    def of(cls, directory: str | Path, stage: str, target: Assignor, budget_s: float,
           ref: TargetRef | None = None, factor: float | None = None) -> Reproducers:
        from assigncheck.targets.registry import ref_of

        return cls(Path(directory), stage, ref or ref_of(target), budget_s, target, factor=factor)

    def path(self, invariant: str, distinct: str | bytes) -> Path:
        return self.directory / file_name(self.stage, self.name or self.ref.spec, invariant, distinct)

    def said(self, violation: Violation) -> Violation:
        """The violation as reported: with how the target had to express the problem (`java:`, `cmd:`)."""
        adapted = getattr(self.target, "adapted", "")
        if not adapted or adapted in violation.message:
            return violation
        return replace(violation, message=f"{violation.message} [the target adapted the problem: {adapted}]")

    def write(self, problem: AnyProblem, violation: Violation, *, seed: int, signature: str = "",
              distinct: str | bytes | None = None, how: str = "", data: bytes = b"",
              extra: dict[str, Any] | None = None) -> Path:
        """Write one reproducer, named by `distinct` (default: the signature), replacing a file of that name."""
        violation = self.said(violation)
        hang_s = None if self.budget_s is None else hang_limit(self.budget_s)
        record = Record(recorded(self.ref), violation.invariant, stage=self.stage, seed=seed, budget_s=self.budget_s,
                        hang_s=hang_s, cpu_factor=None if self.budget_s is None else self.factor,
                        cause=violation.cause, signature=signature, message=bounded(violation.message),
                        input="base64:" + base64.b64encode(data).decode() if data else "", extra=extra or {})
        note = f"assignor: {self.ref.spec}. {self.stage} finding, {violation.invariant}: {violation.message[:500]}"
        path = self.path(violation.invariant, signature if distinct is None else distinct)
        save(problem_to_json(problem), record, path, note + (f" ({how})" if how else ""))
        return path

    def file(self, problem: AnyProblem, violation: Violation, judge: Judge, *, seed: int, minimize_s: float,
             how: str = "", data: bytes = b"", extra: dict[str, Any] | None = None) -> Filed:
        """A finding's minimized reproducer, unless its signature is on disk already (see the module doc).
        `judge` gives the violations the target shows on a problem (the stage's own check)."""
        assert self.target is not None, "minimizing needs the target"
        if isinstance(problem, Problem):  # minimized and written as the target meets it
            problem = coordinator_form(problem, self.target.promises.consumer_group_type)
        raw_signature = signature(violation, problem)
        raw_path = self.path(violation.invariant, raw_signature)
        if raw_path.exists():
            return Filed(raw_path, False, self.said(violation), raw_signature)
        kept = dict(seed=seed, how=how, data=data, extra=extra)
        self.write(problem, violation, signature=raw_signature, **kept)  # type: ignore[arg-type]
        small, violation = self._minimized(problem, violation, judge, minimize_s)
        sig = signature(violation, small)
        path = self.path(violation.invariant, sig)
        if path != raw_path:
            if path.exists():  # it shrank to a reproducer already on disk
                raw_path.unlink(missing_ok=True)
                return Filed(path, False, self.said(violation), sig)
            self.write(small, violation, signature=sig, **kept)  # type: ignore[arg-type]
            raw_path.unlink(missing_ok=True)
        elif small is not problem:
            self.write(small, violation, signature=sig, **kept)  # type: ignore[arg-type]
        return Filed(path, True, self.said(violation), sig)

    def _minimized(self, problem: AnyProblem, violation: Violation, judge: Judge, seconds: float
                   ) -> tuple[AnyProblem, Violation]:
        """The smallest problem that still shows the same failure as often, with the violation it shows there (the
        raw problem and violation when minimizing does not apply, or the smaller problem does not fail again)."""
        if violation.cause in NOT_MINIMIZED:
            return problem, violation
        assert self.target is not None
        keeps = keeps_its_shape(problem, self.target.promises)

        def fails(p: AnyProblem) -> bool:
            return any(same_failure(v, violation) for v in judge(p))

        as_often_as_raw = as_often(fails, problem)
        if as_often_as_raw is None:  # it did not fail again on the raw problem: nothing to shrink towards
            return problem, violation
        small = minimize(problem, lambda p: keeps(p) and as_often_as_raw(p), seconds=seconds)
        if small is problem:
            return problem, violation
        for _ in range(TRIES):  # a flaky failure: one of the tries shows it
            again = next((v for v in judge(small) if same_failure(v, violation)), None)
            if again is not None:
                return small, again
        return problem, violation


# ---- codec findings: input bytes, no problem ----------------------------------------------------------------


def write_codec(directory: str | Path, target: str, violation: Violation, data: bytes, seed: int | None = None
                ) -> Path | None:
    """A wire decoder's finding, named by its input bytes; None when that file exists already."""
    path = Path(directory) / file_name("fuzz", target, violation.invariant, data)
    if path.exists():
        return None
    doc = {"target": target, "invariant": violation.invariant, "message": violation.message, "seed": seed,
           "input_base64": base64.b64encode(data).decode()}
    write_atomic(path, dumps(doc, pretty=True) + "\n")
    return path


def codec_finding(doc: object) -> tuple[str, bytes] | None:
    """(target, input bytes) of a parsed codec reproducer document, or None if it is not one."""
    if not isinstance(doc, dict) or not isinstance(doc.get("input_base64"), str) or "target" not in doc:
        return None
    try:
        return str(doc["target"]), base64.b64decode(doc["input_base64"], validate=True)
    except ValueError:  # binascii.Error: not base64
        raise InputError("input_base64", "is not base64") from None

__all__ = ["Filed", "Judge", "NOT_MINIMIZED", "Reproducers", "codec_finding", "file_name", "slug", "write_codec"]
