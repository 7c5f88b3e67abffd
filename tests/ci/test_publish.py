"""Publishing is all or nothing: a run's reproducers and reports replace the previous run's whole, or the previous
set stays whole and the gate exits 2 with one line naming the report directory and the cause; a killed run's work
directory is removed by the next run.

The full disk is a real one where the runner allows a mount (a 4 MiB tmpfs, as root); where it does not, the test
says so (a warning) and forces the same failure in the writing of the reports instead. The swap itself is failed at
each of its steps in turn, on any runner."""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from assigncheck.ci import publish
from assigncheck.ci.cli import main
from assigncheck.spec.errors import InputError
from tests.paths import ROOT

# two runs whose report sets differ, each a few seconds (the proofs stage: a bounded model, no time budget)
PASSING = ["--target", "range", "--stages", "proofs"]
FAILING = ["--target", "tests.fixtures.sticky_claims:DealsKeptClaims", "--stages", "proofs"]


def _snapshot(root: Path) -> dict[str, str]:
    """Every file under `root` (but the filler) and its digest."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and p.name != "filler"}


def _gate(reports: Path, argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assigncheck.ci", "gate", *argv, "--report-dir", str(reports)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def _mounted(where: Path) -> bool:
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(where)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        warnings.warn(f"no tmpfs here ({(done.stderr or 'mount failed').strip()}): the full disk is simulated by a "
                      "failure forced in the writing of the reports", stacklevel=2)
    return done.returncode == 0


def test_a_full_disk_leaves_the_previous_reports_whole(tmp_path, monkeypatch, capsys):
    disk = tmp_path / "disk"
    if not _mounted(disk):
        _forced_full_disk(tmp_path / "reports", monkeypatch, capsys)
        return
    try:
        reports = disk / "reports"
        first = _gate(reports, PASSING)
        assert first.returncode == 0, first.stdout + first.stderr
        before = _snapshot(reports)
        assert {"junit.xml", "report.json", "summary.md", "report.html"} <= set(before)
        free = shutil.disk_usage(disk).free
        with open(disk / "filler", "wb") as f:  # leave less room than a run's reports take
            f.write(b"\0" * max(0, free - (16 << 10)))
        second = _gate(reports, FAILING)
        assert second.returncode == 2, second.stdout + second.stderr
        (line,) = second.stderr.strip().splitlines()[-1:]
        assert f"--report-dir: {reports}: cannot publish this run's reports" in line, second.stderr
        assert "No space left on device" in line and "the previous reports are as they were" in line
        assert _snapshot(reports) == before
        assert not [p for p in reports.iterdir() if p.name.startswith(".gate-")]
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def _forced_full_disk(reports: Path, monkeypatch, capsys) -> None:
    """The same run where no tmpfs can be mounted: the report page's write fails as on a full disk."""
    from assigncheck.ci import reports as writers
    from assigncheck.formats.documents import write_atomic

    assert main(["gate", *PASSING, "--report-dir", str(reports)]) == 0
    before = _snapshot(reports)

    def full(path: Path | str, text: str) -> Path:
        if Path(path).name == "report.html":
            raise InputError(str(path), f"cannot be written: {os.strerror(errno.ENOSPC)}")
        return write_atomic(path, text)

    monkeypatch.setattr(writers, "write_atomic", full)
    capsys.readouterr()
    assert main(["gate", *FAILING, "--report-dir", str(reports)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"--report-dir: {reports}: cannot publish this run's reports: report.html" in err
    assert "No space left on device" in err and _snapshot(reports) == before


@pytest.fixture
def sets(tmp_path) -> tuple[Path, Path]:
    """A report directory with a previous run's set, and a new run's directory with its own."""
    root = tmp_path / "reports"
    for base, tag in ((root, "old"), (root / ".gate-run-20250101T000000-1", "new")):
        (base / "reproducers").mkdir(parents=True)
        (base / "reproducers" / f"{tag}.json").write_text(tag)
        for name in ("junit.xml", "report.json", "summary.md", "report.html"):
            (base / name).write_text(f"{tag} {name}")
    (root / "fuzz").mkdir()  # the old run's corpus: the new run has none, and must not keep it
    (root / "fuzz" / "seed").write_text("old")
    (root / "mine.txt").write_text("a user's own file")
    return root, root / ".gate-run-20250101T000000-1"


NAMES = ["reproducers", "fuzz", "campaign", "junit.xml", "report.json", "summary.md", "report.html"]


def test_the_swap_replaces_the_whole_set(sets):
    root, work = sets
    publish.publish(work, root, NAMES)
    assert _snapshot(root) == {"mine.txt": _digest("a user's own file"), "reproducers/new.json": _digest("new"),
                               **{n: _digest(f"new {n}") for n in NAMES[3:]}}
    assert not work.exists() and not [p for p in root.iterdir() if p.name.startswith(".gate-")]


@pytest.mark.parametrize("step", range(11))  # 6 entries moved aside, then 5 moved in
def test_a_swap_that_fails_at_any_step_leaves_the_previous_set_whole(sets, step, monkeypatch):
    root, work = sets
    before = _snapshot(root)
    rename, calls = os.rename, []

    def failing(src, dst):
        calls.append(src)
        if len(calls) == step + 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(dst))
        return rename(src, dst)

    monkeypatch.setattr(publish.os, "rename", failing)
    with pytest.raises(InputError) as e:
        publish.publish(work, root, NAMES)
    monkeypatch.setattr(publish.os, "rename", rename)
    assert e.value.path == "--report-dir" and "No space left on device" in e.value.message
    assert "the previous reports are as they were" in e.value.message
    assert _snapshot(root) == _without(before, work.name)  # the new run's files gone, the old ones as they were
    assert not [p for p in root.iterdir() if p.name.startswith(".gate-")]


def _without(snapshot: dict[str, str], prefix: str) -> dict[str, str]:
    return {k: v for k, v in snapshot.items() if not k.startswith(prefix + "/")}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_the_next_run_removes_what_a_killed_run_left(tmp_path):
    """Only the directories whose process is gone: a run still going keeps its own."""
    root = tmp_path / "reports"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    left = root / f".gate-run-20250101T000000-{dead.pid}"
    aside = root / f".gate-old-20250101T000000-{dead.pid}"
    alive = root / f".gate-run-20250101T000000-{os.getppid()}"
    for d in (left, aside, alive):
        (d / "reproducers").mkdir(parents=True)
    (root / ".gate-run-notes").mkdir()  # not a name of ours: a user's
    assert main(["gate", "--target", "range", "--stages", "scale", "--report-dir", str(root)]) == 0
    assert not left.exists() and not aside.exists() and alive.exists() and (root / ".gate-run-notes").exists()
