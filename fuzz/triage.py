"""Findings -> deduplicated, minimized reproducers on disk.

A reproducer is a problem JSON file whose `finding` record (`spec.reproducer`) names the target reference (spec
and declared promises), the invariant, the crash cause, the signature, the check's seed and CPU budget and the
input bytes (base64), so `assigncheck replay FILE` replays it alone. Its file name is
`<invariant>-<target>-<signature id>.json`: a finding whose file already exists is a duplicate. The unminimized
problem is written first, then replaced by the minimized one (filed under the minimized problem's signature),
so an interrupted run never loses a finding. Minimization keeps the invariant and the crash cause, and never
turns a problem a real group can produce into one it cannot. Codec findings have no problem: they are
`codec-<invariant>-<target>-<sha1>.json` holding the input bytes.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, replace
from pathlib import Path

from assigncheck.spec.bounded import bounded
from assigncheck.spec.check import hang_limit
from assigncheck.spec.errors import InputError
from assigncheck.spec.groups import coordinator_form
from assigncheck.spec.json_format import dumps, load_json, problem_to_json, write_atomic
from assigncheck.spec.minimize import minimize
from assigncheck.spec.model import Problem
from assigncheck.spec.reproducer import Record, save
from assigncheck.spec.signature import keeps_its_shape, signature_id
from assigncheck.spec.violations import Violation

from .targets import AssignorTarget, Finding

NOT_MINIMIZED = ("hang", "cmd.hang")  # each try would wait out the hang limit


def safe_name(text: str) -> str:
    """A target or invariant as a file-name part (`cmd:java -jar x` -> `cmd_java_-jar_x`)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:60]


def slug(target: str) -> str:
    """A directory name for any target reference (`cmd:...` may hold anything): readable part + short hash."""
    return f"{safe_name(target)[:40]}-{hashlib.sha1(target.encode()).hexdigest()[:8]}"


def reproducer_path(out_dir: str | Path, finding: Finding) -> Path:
    name = f"{safe_name(finding.violation.invariant)}-{safe_name(finding.target)}-{signature_id(finding.signature)}"
    return Path(out_dir) / f"{name}.json"


def _write(target: AssignorTarget, finding: Finding, path: Path, seed: int | None) -> None:
    v = finding.violation
    record = Record(target.ref, v.invariant, stage="fuzz", seed=target.seed if seed is None else seed,
                    budget_s=target.budget_s, hang_s=hang_limit(target.budget_s), cause=v.cause,
                    signature=finding.signature, message=bounded(v.message),
                    input="base64:" + base64.b64encode(finding.data).decode())
    note = f"assignor: {target.spec}. fuzz finding, {v.invariant}: {v.message[:500]}"
    save(problem_to_json(finding.problem), record, path, note)


@dataclass(frozen=True)
class Recorded:
    path: Path  # the reproducer on disk that holds this finding
    new: bool  # written now (False: an earlier finding, or an earlier run, already holds it)


def record(target: AssignorTarget, finding: Finding, out_dir: str | Path, *, seed: int | None = None,
           minimize_s: float = 20.0) -> Recorded:
    """Write the finding's minimized reproducer unless its signature is already on disk.

    The raw problem is saved first (under its own signature) so an interrupted minimization loses
    nothing; the minimized one is then filed under the minimized problem's signature, so findings that
    shrink to the same shape are one reproducer. A file already under the finding's own signature holds
    it (not new); if another job is still minimizing that file, the job reports where it lands, and
    `fuzz.jobs` keeps only the reported files that exist at the end."""
    if isinstance(finding.problem, Problem):  # minimized and written as the target meets it
        group_type = target.assignor.promises.group_type
        finding = replace(finding, problem=coordinator_form(finding.problem, group_type))
    raw_path = reproducer_path(out_dir, finding)
    if raw_path.exists():
        return Recorded(raw_path, new=False)
    _write(target, finding, raw_path, seed)
    v = finding.violation
    keeps = keeps_its_shape(finding.problem, target.assignor.promises)

    def still_fails(p: object) -> bool:
        return keeps(p) and target.reproduces(p, v.invariant, v.cause)  # type: ignore[arg-type]

    small = finding.problem if v.cause in NOT_MINIMIZED else minimize(finding.problem, still_fails, seconds=minimize_s)
    violation = next((x for x in target.check(small) if x.invariant == v.invariant and x.cause == v.cause), None)
    if violation is None:  # it did not recur (a flaky target): keep the raw problem
        small, violation = finding.problem, v
    minimized = Finding(finding.target, violation, small, finding.data)
    path = reproducer_path(out_dir, minimized)
    if path != raw_path:
        if path.exists():  # it shrank to a reproducer already on disk
            raw_path.unlink(missing_ok=True)
            return Recorded(path, new=False)
        _write(target, minimized, path, seed)
        raw_path.unlink(missing_ok=True)
    elif small is not finding.problem:
        _write(target, minimized, path, seed)
    return Recorded(path, new=True)


def record_codec(target: str, violation: Violation, data: bytes, out_dir: str | Path,
                 seed: int | None = None) -> Path | None:
    digest = hashlib.sha1(data).hexdigest()[:12]
    path = Path(out_dir) / f"codec-{safe_name(violation.invariant)}-{safe_name(target)}-{digest}.json"
    if path.exists():
        return None
    doc = {"target": target, "invariant": violation.invariant, "message": violation.message, "seed": seed,
           "input_base64": base64.b64encode(data).decode()}
    write_atomic(path, dumps(doc, pretty=True) + "\n")
    return path


def load_codec_finding(path: str | Path) -> tuple[str, bytes] | None:
    """(target, input bytes) of a codec reproducer file, or None if the file is not one."""
    try:
        doc = load_json(path)
    except InputError:
        return None
    return codec_finding(doc)


def codec_finding(doc: object) -> tuple[str, bytes] | None:
    """(target, input bytes) of a parsed codec reproducer document, or None if it is not one."""
    if not isinstance(doc, dict) or not isinstance(doc.get("input_base64"), str) or "target" not in doc:
        return None
    try:
        return str(doc["target"]), base64.b64decode(doc["input_base64"], validate=True)
    except ValueError:  # binascii.Error: not base64
        raise InputError("input_base64", "is not base64") from None
