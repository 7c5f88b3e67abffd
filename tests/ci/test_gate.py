"""`assigncheck gate` as CI runs it: exit codes, the four reports, reproducers that replay by themselves."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from assigncheck.ci.cli import main
from tests.paths import ROOT

BROKEN = "tests.fixtures.broken_assignors:CeilingForAllSticky"


def test_a_clean_target_passes_and_every_report_is_written(tmp_path, steady):
    assert main(["gate", "--target", "range", "--stages", "properties,proofs", "--report-dir", str(tmp_path)]) == 0
    assert {p.name for p in tmp_path.iterdir()} >= {"junit.xml", "report.json", "summary.md", "report.html"}
    doc = json.loads((tmp_path / "report.json").read_text())
    assert doc["ok"] and [s["stage"] for s in doc["stages"]] == ["properties", "proofs"]
    assert doc["stages"][1]["stats"]["proved"] == "5/5"  # range's Z3 model, every invariant proved
    assert doc["stages"][0]["work"]["done"] == steady.examples


def test_a_planted_bug_fails_the_gate_with_a_reproducer_that_replays(tmp_path, steady):
    assert main(["gate", "--target", BROKEN, "--stages", "properties", "--report-dir", str(tmp_path)]) == 1
    (finding,) = json.loads((tmp_path / "report.json").read_text())["stages"][0]["findings"][:1]
    assert finding["invariant"] == "balance.perfect" and finding["target"] == "ceiling-for-all-sticky"
    assert finding["status"] == "confirmed"
    problem = json.loads(Path(finding["reproducer"]).read_text())
    assert len(problem["members"]) <= 3  # minimized
    replay = subprocess.run([sys.executable, "-m", "assigncheck.ci", "replay", finding["reproducer"]], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert replay.returncode == 1, replay.stdout + replay.stderr  # the file alone: no --target


def test_promises_given_on_the_command_line_are_enforced(tmp_path, steady):
    # Alone, a plain callable promises only H1-H8; told it promises range's exact output, it must match it.
    assert main(["gate", "--target", "assigncheck.spec.reference.roundrobin:RoundRobinReference", "--promises",
                 "exact=range", "--stages", "properties", "--report-dir", str(tmp_path)]) == 1
    assert "exact" in (tmp_path / "summary.md").read_text()


def test_bad_usage_is_one_line_and_exit_2(tmp_path, capsys):
    for args in (["--stages", "properties,magic"], ["--target", "no.such.module:X"],
                 ["--target", "range", "--promises", "balance=sideways"], ["--promises", "fixpoint"]):
        assert main(["gate", *args, "--report-dir", str(tmp_path)]) == 2, args
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, (args, err)
    # argparse's own usage errors (here a --profile outside its choices) keep argparse's usage line
    with pytest.raises(SystemExit) as exited:
        main(["gate", "--profile", "huge", "--report-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.startswith("usage: assigncheck gate") and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("assigncheck gate: error: argument --profile")


def test_an_outside_target_in_the_current_directory_loads(tmp_path):
    (tmp_path / "myassignor.py").write_text(
        "from assigncheck.spec.reference import REFERENCES\nclass Mine:\n    name = 'mine'\n"
        "    def assign(self, problem):\n        return REFERENCES['range'].assign(problem)\n")
    run = subprocess.run([sys.executable, "-m", "assigncheck.ci", "gate", "--target", "myassignor:Mine", "--stages",
                          "properties", "--report-dir", str(tmp_path / "r")], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
