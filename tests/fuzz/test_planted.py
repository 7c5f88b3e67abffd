"""End to end: `assigncheck fuzz` (real atheris/libFuzzer subprocesses) finds a planted bug, minimizes it to at
most 3 members within the run's budget, and `assigncheck replay` confirms the reproducer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.paths import ROOT

CEILING = "tests.fixtures.broken_assignors:CeilingForAllSticky"
BOTH_KEEP = "tests.fixtures.broken_assignors:SameGenerationBothKeep"


def _cli(*args: str, timeout: float) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "assigncheck.ci", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


def _fuzz_until_found(target: str, invariant: str, out: Path, seconds: int) -> Path:
    run = _cli("fuzz", "--target", target, "--seconds", str(seconds), "--jobs", "2", "--out", str(out),
               "--stop-on-finding", timeout=seconds + 60)
    assert run.returncode == 1, run.stdout + run.stderr
    # The reproducers the fuzzer reported as minimized (a job stopped mid-minimization leaves its raw
    # problem on disk too, on purpose: nothing found is lost).
    reported = [Path(line.split(": ", 1)[1]) for line in run.stdout.splitlines()
                if line.startswith(f"  {invariant}: ")]
    assert reported and all(p.exists() for p in reported), run.stdout + run.stderr
    return min(reported, key=lambda p: len(json.loads(p.read_text())["members"]))


def test_the_ceiling_bug_is_found_minimized_and_replayed(tmp_path):
    path = _fuzz_until_found(CEILING, "balance.perfect", tmp_path, 50)
    doc = json.loads(path.read_text())
    assert len(doc["members"]) <= 3, doc
    assert doc["finding"]["target"] == {"spec": CEILING} and doc["finding"]["input"].startswith("base64:")
    replay = _cli("replay", str(path), timeout=60)  # the file alone: no --target
    assert replay.returncode == 1 and "reproduces: balance.perfect" in replay.stdout, replay.stdout + replay.stderr


def test_the_double_assignment_bug_is_found(tmp_path):
    path = _fuzz_until_found(BOTH_KEEP, "H4", tmp_path, 50)
    assert len(json.loads(path.read_text())["members"]) <= 3
