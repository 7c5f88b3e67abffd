"""The Go module (`go/`) and the Go example a user copies (`examples/go-gate/`): gofmt and go vet clean, the
module's own Go tests pass, and the example's `go test` gates its balancer through `gatetest` (the correct one
passes, the planted bug fails with a reproducer that `assigncheck replay` replays)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import go_drivers
from tests.paths import ROOT

MODULE = ROOT / "go"
EXAMPLE = ROOT / "examples" / "go-gate"
ASSIGNCHECK = Path(sys.prefix) / "bin" / "assigncheck"


@pytest.fixture(scope="module")
def built():
    return go_drivers.build()  # fails, with make's one line, where Go is missing: never skipped


@pytest.mark.parametrize("goal", ["franz-go", "go-programs"])
def test_without_go_the_build_stops_with_one_line(tmp_path, goal):
    shutil.copy(ROOT / "Makefile", tmp_path)
    shutil.copytree(MODULE, tmp_path / "go")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "make").symlink_to(shutil.which("make") or "make")  # a PATH with make and no go
    done = subprocess.run(["make", "-s", goal], cwd=tmp_path, capture_output=True, text=True,
                          env={"PATH": str(tmp_path / "bin"), "HOME": str(tmp_path)})
    assert done.returncode != 0 and not (tmp_path / ".venv" / "bin").exists()
    assert done.stdout.strip() == ("assigncheck's Go programs (go/) need Go 1.26 or later (https://go.dev/dl/): "
                                   "install go")


@pytest.mark.parametrize("folder", [MODULE, EXAMPLE], ids=["go", "examples/go-gate"])
def test_the_go_code_is_gofmt_and_go_vet_clean(built, folder):
    unformatted = subprocess.run(["gofmt", "-l", "."], cwd=folder, capture_output=True, text=True, check=True)
    assert unformatted.stdout == ""
    vet = subprocess.run(["go", "vet", "./..."], cwd=folder, capture_output=True, text=True)
    assert vet.returncode == 0, vet.stderr


def test_the_modules_go_tests_pass(built):
    done = subprocess.run(["go", "test", "-count=1", "./..."], cwd=MODULE, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "ok  \tgithub.com/assigncheck/assigncheck/go/gatetest" in done.stdout


def test_the_example_passes_its_balancer_and_fails_its_planted_bug_with_a_reproducer(built, tmp_path):
    env = {**os.environ, "ASSIGNCHECK": str(ASSIGNCHECK), "TMPDIR": str(tmp_path)}
    done = subprocess.run(["go", "test", "-count=1", "-v", "."], cwd=EXAMPLE, env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "--- PASS: TestOrderedPassesTheGate" in done.stdout
    assert "--- PASS: TestThePlantedBugFailsTheGate" in done.stdout
    # the planted bug (the last partition of each topic left out) is H5, confirmed, and replays alone
    report = json.loads((tmp_path / "assigncheck-gate" / "TestThePlantedBugFailsTheGate" / "report" /
                         "report.json").read_text())
    h5 = [b for b in report["bugs"] if b["invariant"] == "H5" and b["status"] == "confirmed"]
    assert len(h5) == 1, report["bugs"]
    replay = subprocess.run([str(ASSIGNCHECK), "replay", h5[0]["reproducer"]], cwd=tmp_path, capture_output=True,
                            text=True)
    assert replay.returncode == 1 and "reproduces: H5" in replay.stdout, replay.stdout + replay.stderr
