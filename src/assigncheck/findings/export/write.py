"""`export(reproducer, language, out)`: a finding written as a standalone test directory in its target's own language
and test framework (the one entry point of `assigncheck export`, the reports' command lines and the tests).

The target's promises are those its reference declares, else its own (a `java:` class or a Python object is loaded
to learn them, and a `java:` class to learn which of Kafka's APIs it implements); a Go balancer or a KafkaJS
assigner served over `cmd2:` promises H1-H8 only unless its reference says more."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from assigncheck.findings.export.case import Case, case_of, refused
from assigncheck.findings.export.reach import Reach, reached
from assigncheck.findings.replay import Reproducer
from assigncheck.formats.documents import write_atomic
from assigncheck.formats.reproducer import TargetRef
from assigncheck.spec.errors import InputError
from assigncheck.spec.promises import Promises

Writer = Callable[[Case, Reach], dict[str, str]]


def _writers() -> dict[str, Writer]:
    from assigncheck.findings.export import gotest, junit, node, pytest_file

    return {"junit": junit.files, "go": gotest.files, "pytest": pytest_file.files, "node": node.files}


def loaded(ref: TargetRef, reach: Reach) -> tuple[Promises, Reach]:
    """What the finding's target is held to (its reference's promises, else its own) and how the test reaches it (a
    `java:` class: its `kind` is the API its bridge's ready line names, its `options` the Kafka version and the
    rebalance protocols the class supports)."""
    declared = ref.declared()
    if reach.language in ("go", "node"):
        return declared if declared is not None else Promises(), reach  # a cmd2: program: H1-H8 unless told
    from assigncheck.targets.registry import load, probe

    target = probe(load(ref)) if reach.language == "junit" else load(ref)
    try:
        ready = getattr(target, "ready", {})
        if reach.language == "junit":
            api = "streams-group" if ready.get("kip") == "1071" else str(ready.get("api", "classic"))
            protocols = ",".join(ready.get("protocols", ()))
            reach = replace(reach, kind=api, options=(str(ready.get("kafka", "")), protocols))
        return declared if declared is not None else target.promises, reach
    finally:
        close = getattr(target, "close", None)
        if close is not None:
            close()


def default_out(found: Reproducer, language: str) -> Path:
    """Where `export` writes when `--out` is not given: `<reproducer name>-<language>` in the current directory."""
    from assigncheck.findings.export.case import case_name

    return Path(f"{case_name(found.file)}-{language}")


def export(found: Reproducer, language: str, out: Path | None = None) -> list[Path]:
    """Write `found`'s test, for `language`, into `out`; the files written. An `InputError` naming the field or flag
    when the finding, the target or the framework rules it out."""
    error = refused(found)
    if error is not None:
        raise error
    assert found.record is not None
    ref = found.record.target
    promises, reach = loaded(ref, reached(ref, language))
    case = case_of(found, promises)
    written = _writers()[language](case, reach)
    target = default_out(found, language) if out is None else out
    return [write_atomic(target / name, text) for name, text in sorted(written.items())]


@dataclass(frozen=True)
class Commands:
    """What a report tells a reader to run on a finding's reproducer: `replay` always, `export` when a test
    framework reaches its target (else `why_not` says why no test exports it)."""

    replay: str
    export: str | None = None
    why_not: str = ""


def commands(path: str, now: str | None = None) -> Commands:
    """The replay and export commands of the reproducer at `path`, as a reader types them (`now`: where the file
    is read while they are said, when it is not at `path` yet)."""
    import shlex

    from assigncheck.findings.export.reach import language_of
    from assigncheck.findings.replay import read
    from assigncheck.formats.documents import load_json

    quoted = shlex.quote(path)
    replay = f"assigncheck replay {quoted}"
    try:
        found = read(load_json(now or path), path)
    except (OSError, InputError) as e:
        return Commands(replay, None, f"its reproducer cannot be read: {e}")
    error = refused(found)
    if error is not None or found.record is None:
        return Commands(replay, None, error.message if error is not None else "it names no target")
    language = language_of(found.record.target)
    if language is None:
        return Commands(replay, None, "no test framework reaches its target (a program of unknown make)")
    return Commands(replay, f"assigncheck export {quoted} --as {language}")


def check_language(language: str) -> str:
    from assigncheck.findings.export.reach import LANGUAGES

    if language not in LANGUAGES:
        raise InputError("--as", f"unknown test framework {language!r}: one of {', '.join(LANGUAGES)}")
    return language


__all__ = ["Commands", "Writer", "check_language", "commands", "default_out", "export", "loaded"]
