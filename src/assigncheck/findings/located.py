"""A reproducer's target found again from anywhere: `assigncheck replay` run from any directory, on this machine or
another.

What a file records of where its target's code is (`formats.reproducer.TargetRef`):
- a `java:` target's classpath: absolute entries, as the command line's `--classpath` was resolved (`dir/*` to its
  jars), each with the digest of its content when it was recorded (`digests`); a relative entry (a file written by
  hand) is relative to the reproducer's own directory, or to one above it;
- a `cmd:` target's command, as given; when it names relative paths (`./my-assignor`, `.venv/bin/driver`,
  `js/targets/kafkajs-roundrobin.js`), the directory it ran in (`cwd`). Where that directory does not hold them
  (the file came from another machine), the command runs in the nearest directory, from the reproducer's own
  upwards, that holds every one of them (for `examples/franz-go-findings/*.json`, the clone's root, where `make`
  builds `.venv/bin/...`), else in the current directory;
- Maven coordinates, resolved again (and cached) wherever the file is replayed.
`locate` gives the reference to load, every error naming the file's field (`FILE: finding.target.classpath`), and
notes for whoever replays it (a classpath entry whose content changed since: a rebuilt jar, perhaps the fix).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from assigncheck.formats.reproducer import TargetRef
from assigncheck.spec.errors import InputError
from assigncheck.targets.command import relative_paths
from assigncheck.toolchains import digests, java_build


def _upwards(start: Path) -> list[Path]:
    return [start, *start.parents]


def _first_holding(paths: list[str], candidates: list[Path]) -> Path | None:
    return next((d for d in candidates if d.is_dir() and all((d / p).exists() for p in paths)), None)


def _classpath(ref: TargetRef, here: Path, field: str) -> tuple[tuple[str, ...], list[str]]:
    """The file's classpath, each entry found (relative ones from the file's directory upwards, then the current
    directory) and checked as `--classpath` is; notes on the entries whose content changed since."""
    entries: list[str] = []
    for entry in ref.classpath:
        if not os.path.isabs(os.path.expanduser(entry)) and not entry.startswith("~"):
            found = _first_holding([entry.removesuffix("*")], [*_upwards(here), Path.cwd()])
            entry = str(found / entry) if found is not None else entry
        try:
            entries += java_build.resolve_classpath([entry], field)
        except InputError as e:
            raise InputError(field, f"{e.message} (recorded on another machine? replay it with --classpath naming "
                                    "the jars here)") from None
    notes = []
    if ref.digests and len(ref.digests) == len(ref.classpath) == len(entries):
        notes = [f"note: {entry} changed since the finding was recorded (its content is not what the reproducer "
                 "recorded)" for entry, digest in zip(entries, ref.digests, strict=True)
                 if digests.entry(entry) != digest]
    return tuple(entries), notes


def _cwd(ref: TargetRef, here: Path, field: str) -> str | None:
    """The directory a `cmd:` target's command runs in: the first that holds every relative path it names."""
    prefix, _, command = ref.spec.partition(":")
    paths = relative_paths(command) if prefix in ("cmd", "cmd2") else []
    if not paths:
        return ref.cwd
    candidates = [*([Path(ref.cwd)] if ref.cwd else []), *_upwards(here), Path.cwd()]
    found = _first_holding(paths, candidates)
    if found is None:
        raise InputError(field, f"{', '.join(paths)} not found in the directory it ran in, from the reproducer's "
                                "directory upwards, nor in the current directory: replay it from where they are, "
                                "or name the target with --target")
    return str(found)


def recorded(ref: TargetRef) -> TargetRef:
    """`ref` as a reproducer records it: a `cmd:` command naming relative paths with the directory it runs in, a
    classpath absolute with its entries' digests (as `--classpath` already gives it; a caller's own reference may
    not)."""
    prefix, _, command = ref.spec.partition(":")
    if ref.cwd is None and prefix in ("cmd", "cmd2") and relative_paths(command):
        ref = replace(ref, cwd=os.getcwd())
    if ref.classpath and len(ref.digests) != len(ref.classpath):
        try:
            classpath = java_build.resolve_classpath(ref.classpath)
            ref = replace(ref, classpath=classpath, digests=tuple(map(digests.entry, classpath)))
        except InputError:
            pass  # as it was: the replay names what is missing
    return ref


def locate(ref: TargetRef, file: str) -> tuple[TargetRef, list[str]]:
    """`ref`, read from the reproducer `file` ("-": standard input, whose directory is the current one), with its
    paths found from here (see the module doc), and notes for whoever replays it."""
    here = Path.cwd() if file == "-" else Path(file).resolve().parent
    where = "standard input" if file == "-" else file
    classpath, notes = _classpath(ref, here, f"{where}: finding.target.classpath")
    return replace(ref, classpath=classpath, cwd=_cwd(ref, here, f"{where}: finding.target.spec")), notes

__all__ = ["locate", "recorded"]
