"""A gate run's files into the report directory: all of them, or none.

A run writes everything in a directory of its own inside the report directory (`.gate-run-<time>-<pid>`): the
reproducers, the fuzz corpus, the campaign's rows, and last the reports. `publish` then swaps the new set in:
each entry of the previous run is moved aside (into `.gate-old-<time>-<pid>`), each new one moved into its place,
and the old ones removed. Every step is a rename within one filesystem, which writes no data, so a disk that
filled while the run wrote its files stopped it before the swap. Should a rename fail all the same, the renames
done are undone: the previous set is whole again, and the error names the report directory and the cause.

A run killed before it could clean up (SIGKILL, a power cut) leaves its directory behind; the next run in the same
report directory removes those of processes that are gone (`remove_stale`), never one of a run still going.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Sequence
from pathlib import Path

from assigncheck.spec.errors import InputError

WORK_PREFIX = ".gate-run-"
ASIDE_PREFIX = ".gate-old-"
_OURS = re.compile(rf"(?:{re.escape(WORK_PREFIX)}|{re.escape(ASIDE_PREFIX)})\d{{8}}T\d{{6}}-(\d+)")


def work_dir(root: Path, prefix: str = WORK_PREFIX) -> Path:
    """A new directory of this process's in the report directory."""
    return root / f"{prefix}{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"


def _gone(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # another user's process, alive
        return False
    return False


def remove_stale(root: Path) -> list[Path]:
    """Remove the work directories (and set-aside reports) that runs killed in `root` left: those whose process is
    gone. Returns what it removed."""
    removed: list[Path] = []
    try:
        entries = list(root.iterdir())
    except OSError:
        return removed
    for entry in entries:
        found = _OURS.fullmatch(entry.name)
        if found and entry.is_dir() and not entry.is_symlink() and _gone(int(found.group(1))):
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


def failed(root: Path, cause: str, kept: str = "the previous reports are as they were") -> InputError:
    """The one line of a run that could not write or publish its files: the report directory and the cause."""
    return InputError("--report-dir", f"{root}: cannot publish this run's reports: {cause}; {kept}")


def publish(work: Path, root: Path, names: Sequence[str]) -> None:
    """Move `names` from `work` into `root`, replacing the previous run's entries of those names, all or none; then
    remove `work`. A failure leaves `root` as it was and raises `failed`."""
    aside = work_dir(root, ASIDE_PREFIX)
    moved_aside: list[str] = []
    moved_in: list[str] = []
    try:
        aside.mkdir()
        for name in names:
            if os.path.lexists(root / name):
                os.rename(root / name, aside / name)
                moved_aside.append(name)
        for name in names:
            if os.path.lexists(work / name):
                os.rename(work / name, root / name)
                moved_in.append(name)
    except OSError as e:
        cause = f"{e.strerror or e}{f': {e.filename}' if e.filename else ''}"
        undone = _undo(work, root, aside, moved_in, moved_aside)
        shutil.rmtree(work, ignore_errors=True)
        if not undone:  # never remove the previous reports: say where they are
            kept = f"the previous reports could not all be moved back: they are in {aside}"
            raise failed(root, cause, kept) from None
        shutil.rmtree(aside, ignore_errors=True)
        raise failed(root, cause) from None
    shutil.rmtree(aside, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)


def _undo(work: Path, root: Path, aside: Path, moved_in: list[str], moved_aside: list[str]) -> bool:
    """Put the previous set back: the new entries out of the way, the old ones where they were; False when an old
    one could not be put back."""
    for name in reversed(moved_in):
        try:
            os.rename(root / name, work / name)
        except OSError:
            _remove(root / name)
    undone = True
    for name in reversed(moved_aside):
        try:
            os.rename(aside / name, root / name)
        except OSError:
            undone = False
    return undone


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
