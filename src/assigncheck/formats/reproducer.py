"""Reproducer files: a problem JSON document that also says exactly what to replay on it.

A finding's file carries everything `assigncheck replay FILE` needs, with no other flag: the target (its
`--target` string, the promises the command line declared, a Java target's classpath and configuration),
the invariant, the crash cause, the check's seed (H8 shuffles the listing with it) and time budget (with the
CPU factor the gate scaled it by, `run.calibration`, when it did: a replay elsewhere scales the same reference
seconds by its own machine's factor)::

    {"format": 1, "kind": "consumer", "topics": ..., "members": ...,
     "note": "assignor: kafka-python:sticky. H3 ...",            (for people)
     "finding": {"target": {"spec": "cmd:./my-assignor", "promises": "balance=perfect,fixpoint"},
                 "invariant": "H3", "stage": "fuzz", "seed": 3, "budget_s": 2.0, "cpu_factor": 1.0, "cause": "",
                 "signature": "H3|unsubscribed_topic", "message": "...", "input": "base64:..."}}

Older files name the target in the note's `key=value` layout (`fuzz finding; target=...; invariant=...`);
`load` still reads them.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assigncheck.formats.coordinates import checked
from assigncheck.formats.json_input import parse_json
from assigncheck.spec.errors import FormatError, InputError
from assigncheck.spec.promises import Promises
from assigncheck.spec.violations import INVARIANTS

_LEGACY_NOTE = re.compile(r"\b(?:fuzz|campaign|gate) finding; ")


@dataclass(frozen=True)
class TargetRef:
    """How any process loads the same target again: the `--target` string, the promises declared on the
    command line (canonical text; None: the target's own), and a Java target's classpath, `--maven` coordinates
    (resolved wherever it is loaded) and `--config`."""

    spec: str
    promises: str | None = None
    classpath: tuple[str, ...] = ()
    config: tuple[tuple[str, str], ...] = ()
    maven: tuple[str, ...] = ()
    # Where it runs again (`findings.located`): the content digest of each classpath entry when it was recorded
    # ("sha256:..."), and the directory a command naming relative paths ran in (None: the current one).
    digests: tuple[str, ...] = ()
    cwd: str | None = None

    def __post_init__(self) -> None:
        if self.promises is not None:  # canonical, so equal refs compare (and hash, and key) equal
            object.__setattr__(self, "promises", Promises.parse(self.promises).to_text())

    def declared(self) -> Promises | None:
        return None if self.promises is None else Promises.parse(self.promises)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"spec": self.spec}
        if self.promises is not None:
            doc["promises"] = self.promises
        if self.classpath:
            doc["classpath"] = list(self.classpath)
        if self.maven:
            doc["maven"] = list(self.maven)
        if self.config:
            doc["config"] = dict(self.config)
        if self.digests:
            doc["digests"] = list(self.digests)
        if self.cwd is not None:
            doc["cwd"] = self.cwd
        return doc

    def key(self) -> str:
        """Canonical text of the reference (campaign ids hash it; a command line passes it on): the bare spec
        when that is all there is, else its JSON."""
        doc = self.to_json()
        if doc == {"spec": self.spec} and not self.spec.startswith("{"):
            return self.spec
        return json.dumps(doc, sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, doc: Any, path: str = "target") -> TargetRef:
        if isinstance(doc, str):
            return cls(doc)
        if not isinstance(doc, dict) or not isinstance(doc.get("spec"), str) or not doc["spec"]:
            raise FormatError(path, "must be a target spec string or an object with a non-empty 'spec'")
        unknown = set(doc) - {"spec", "promises", "classpath", "maven", "config", "digests", "cwd"}
        if unknown:
            raise FormatError(f"{path}.{sorted(unknown)[0]}", "is not a known field")
        promises = doc.get("promises")
        if promises is not None and not isinstance(promises, str):
            raise FormatError(f"{path}.promises", "must be a string such as 'balance=perfect,fixpoint'")
        classpath = _strings(doc, "classpath", path, "must be a list of strings")
        maven = _strings(doc, "maven", path, "must be a list of group:artifact:version strings")
        config = doc.get("config", {})
        if not isinstance(config, dict) or not all(isinstance(v, str) for v in config.values()):
            raise FormatError(f"{path}.config", "must be an object of strings")
        digests = _strings(doc, "digests", path, "must be a list of strings, one per classpath entry")
        if digests and len(digests) != len(classpath):
            raise FormatError(f"{path}.digests", "must be a list of strings, one per classpath entry")
        cwd = doc.get("cwd")
        if cwd is not None and not (isinstance(cwd, str) and os.path.isabs(cwd)):
            raise FormatError(f"{path}.cwd", "must be an absolute directory")
        try:  # the checks --maven's coordinates get
            checked(maven, f"{path}.maven")
        except InputError as e:
            raise FormatError(e.path, e.message) from None
        return cls(doc["spec"], promises, classpath, tuple(sorted(config.items())), maven, digests, cwd)

    @classmethod
    def parse(cls, text: str) -> TargetRef:
        """A reference from its `key()` text (or a bare spec string)."""
        return cls.from_json(parse_json(text, "target")) if text.startswith("{") else cls(text)


@dataclass(frozen=True)
class Record:
    """What a reproducer says about its finding."""

    target: TargetRef
    invariant: str
    stage: str = ""
    seed: int = 0  # the check's seed: H8's shuffled listing depends on it
    budget_s: float | None = None  # H7's CPU budget per assign call (None: replay's default)
    hang_s: float | None = None  # H7's wall-clock hang limit per call (None: derived from the budget)
    cpu_factor: float | None = None  # the CPU factor budget_s was scaled by (None: budget_s is absolute)
    cause: str = ""
    signature: str = ""
    message: str = ""
    input: str = ""  # "base64:..." of a fuzz input
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"target": self.target.to_json(), "invariant": self.invariant, "stage": self.stage,
                               "seed": self.seed}
        for key in ("budget_s", "hang_s", "cpu_factor", "cause", "signature", "message", "input"):
            value = getattr(self, key)
            if value not in (None, ""):
                doc[key] = value
        doc.update(self.extra)
        return doc

    @classmethod
    def from_json(cls, doc: Any, path: str = "finding") -> Record:
        if not isinstance(doc, dict):
            raise FormatError(path, "must be an object")
        invariant = doc.get("invariant")
        if invariant not in INVARIANTS:
            raise FormatError(f"{path}.invariant", f"unknown invariant id {invariant!r}")
        seed = doc.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise FormatError(f"{path}.seed", "must be an integer")
        budget_s, hang_s = (_seconds(doc.get(key), f"{path}.{key}") for key in ("budget_s", "hang_s"))
        cpu_factor = _seconds(doc.get("cpu_factor"), f"{path}.cpu_factor", "a positive number")
        known = {"target", "invariant", "stage", "seed", "budget_s", "hang_s", "cpu_factor", "cause", "signature",
                 "message", "input"}
        text = {k: doc.get(k, "") for k in ("stage", "cause", "signature", "message", "input")}
        for k, v in text.items():
            if not isinstance(v, str):
                raise FormatError(f"{path}.{k}", "must be a string")
        return cls(TargetRef.from_json(doc.get("target"), f"{path}.target"), invariant, seed=seed, budget_s=budget_s,
                   hang_s=hang_s, cpu_factor=cpu_factor,
                   extra={k: v for k, v in doc.items() if k not in known}, **text)


def _strings(doc: dict[str, Any], key: str, path: str, message: str) -> tuple[str, ...]:
    """The list of strings `doc[key]` (empty when absent), or a `FormatError` naming it."""
    value = doc.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise FormatError(f"{path}.{key}", message)
    return tuple(value)


def _seconds(value: Any, path: str, what: str = "a positive number of seconds") -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        raise FormatError(path, f"must be {what}")
    return float(value)


def legacy_note_fields(note: str) -> dict[str, str]:
    """The `key=value` fields of an older reproducer's note (`... finding; target=X; invariant=Y; message=...`),
    the message last since it may contain anything. Empty for any other note."""
    found = _LEGACY_NOTE.search(note)
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


def record_of(doc: Any) -> Record | None:
    """The finding a parsed reproducer document describes (its `finding` object, or an older file's note);
    None when it names no target (a plain problem or regression vector)."""
    if not isinstance(doc, dict):
        return None
    if "finding" in doc:
        return Record.from_json(doc["finding"])
    note = doc.get("note")
    fields = legacy_note_fields(note) if isinstance(note, str) else {}
    if not fields.get("target") or fields.get("invariant") not in INVARIANTS:
        return None
    seed = fields.get("seed", "")
    return Record(TargetRef(fields["target"]), fields["invariant"], stage=fields.get("stage", ""),
                  seed=int(seed) if seed.isdigit() else 0, signature=fields.get("signature", ""),
                  message=fields.get("message", ""), input=fields.get("input", ""))


def save(problem_doc: dict[str, Any], record: Record, path: str | os.PathLike[str], note: str) -> Path:
    """Write a reproducer: the problem document, a note for people, and the finding record; recorded as written
    on this machine (`formats.trust`), so that replaying it here runs its target without asking."""
    from assigncheck.formats.documents import dumps

    doc = {**problem_doc, "note": note, "finding": record.to_json()}
    return write_trusted(path, dumps(doc, pretty=True) + "\n")


def write_trusted(path: str | os.PathLike[str], text: str) -> Path:
    """Write a reproducer's text (atomically) and record it as written on this machine."""
    from assigncheck.formats import trust
    from assigncheck.formats.documents import write_atomic

    written = write_atomic(path, text)
    trust.record(text.encode("utf-8"))
    return written

__all__ = ["Record", "TargetRef", "legacy_note_fields", "record_of", "save", "write_trusted"]
