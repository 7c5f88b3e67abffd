"""Findings -> deduplicated, minimized reproducers on disk.

A reproducer is a problem JSON file (`spec.json_format.save_problem`) whose `note` names the target, the
invariant, the signature, the seed and the input bytes (base64), so `assigncheck replay FILE` and the
regression suite can load it. Its file name is `<invariant>-<target>-<signature>.json`: a finding whose file
already exists is a duplicate. The unminimized problem is written first, then replaced by the minimized
one (filed under the minimized problem's signature), so an interrupted run never loses a finding. Codec
findings have no problem: they are `codec-<invariant>-<target>-<sha1>.json` holding the input bytes.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from assigncheck.spec.errors import InputError
from assigncheck.spec.json_format import dumps, load_json, save_problem, write_atomic
from assigncheck.spec.violations import Violation

from .minimize import minimize
from .targets import AssignorTarget, Finding

NOTE_PREFIX = "fuzz finding"
_FINDING_NOTE = re.compile(r"\b(?:fuzz|campaign|gate) finding; ")


def safe_name(text: str) -> str:
    """A target or invariant as a file-name part (`cmd:java -jar x` -> `cmd_java_-jar_x`)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:60]


def reproducer_path(out_dir: str | Path, finding: Finding) -> Path:
    name = f"{safe_name(finding.violation.invariant)}-{safe_name(finding.target)}-{finding.signature}.json"
    return Path(out_dir) / name


def note_of(finding: Finding, seed: int | None, violation: Violation | None = None) -> str:
    """`assignor: T. fuzz finding; key=value; ...` with the message last (it may contain anything). The first
    sentence follows the regression suite's convention (tests/test_vectors.py), so a reproducer of a built-in
    assignor can be moved to tests/vectors/ as it is."""
    v = violation or finding.violation
    data = base64.b64encode(finding.data).decode()
    return (f"assignor: {finding.target}. {NOTE_PREFIX}; target={finding.target}; invariant={v.invariant}; "
            f"signature={finding.signature}; seed={seed}; input=base64:{data}; message={v.message}")


def parse_note(note: str) -> dict[str, str]:
    """The fields of a `note_of` note (empty for any other note)."""
    found = _FINDING_NOTE.search(note)  # fuzz findings, and campaign and gate findings written the same way
    if not found:
        return {}
    fields: dict[str, str] = {}
    rest = note[found.end() - 2:]
    while rest.startswith("; "):
        key, _, rest = rest[2:].partition("=")
        if key == "message":
            fields[key] = rest
            break
        value, sep, rest = rest.partition("; ")
        fields[key] = value
        rest = sep + rest
    return fields


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
    raw_path = reproducer_path(out_dir, finding)
    if raw_path.exists():
        return Recorded(raw_path, new=False)
    save_problem(finding.problem, raw_path, note=note_of(finding, seed))
    invariant = finding.violation.invariant
    small = minimize(finding.problem, lambda p: target.reproduces(p, invariant), seconds=minimize_s)
    violation = next((v for v in target.check(small) if v.invariant == invariant), finding.violation)
    minimized = Finding(finding.target, violation, small, finding.data)
    path = reproducer_path(out_dir, minimized)
    if path != raw_path:
        if path.exists():  # it shrank to a reproducer already on disk
            raw_path.unlink(missing_ok=True)
            return Recorded(path, new=False)
        save_problem(small, path, note=note_of(minimized, seed))
        raw_path.unlink(missing_ok=True)
    elif small is not finding.problem:
        save_problem(small, path, note=note_of(minimized, seed))
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
