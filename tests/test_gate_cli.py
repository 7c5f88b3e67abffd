"""`assigncheck gate` as CI runs it: exit codes, the four reports, reproducers that replay by themselves."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BROKEN = "tests.fixtures.broken_assignors:CeilingForAllSticky"


def _gate(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assigncheck.ci", "gate", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600)


def test_a_clean_target_passes_and_every_report_is_written(tmp_path):
    run = _gate("--target", "range", "--stages", "properties,proofs", "--report-dir", str(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    assert {p.name for p in tmp_path.iterdir()} >= {"junit.xml", "report.json", "summary.md", "report.html"}
    doc = json.loads((tmp_path / "report.json").read_text())
    assert doc["ok"] and [s["stage"] for s in doc["stages"]] == ["properties", "proofs"]
    assert doc["stages"][1]["stats"]["proved"] == "5/5"  # range's Z3 model, every invariant proved


def test_a_planted_bug_fails_the_gate_with_a_reproducer_that_replays(tmp_path):
    run = _gate("--target", BROKEN, "--stages", "properties", "--report-dir", str(tmp_path))
    assert run.returncode == 1, run.stdout + run.stderr
    (finding,) = json.loads((tmp_path / "report.json").read_text())["stages"][0]["findings"][:1]
    assert finding["invariant"] == "balance.perfect" and finding["target"] == "ceiling-for-all-sticky"
    problem = json.loads(Path(finding["reproducer"]).read_text())
    assert len(problem["members"]) <= 3  # hypothesis shrank it
    replay = subprocess.run([sys.executable, "-m", "assigncheck.ci", "replay", finding["reproducer"], "--target",
                             BROKEN], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert replay.returncode == 1, replay.stdout + replay.stderr


def test_promises_given_on_the_command_line_are_enforced(tmp_path):
    # Alone, a plain callable promises only H1-H8; told it promises range's exact output, it must match it.
    run = _gate("--target", "assigncheck.spec.reference.roundrobin:RoundRobinReference", "--promises",
                "exact=range", "--stages", "properties", "--report-dir", str(tmp_path))
    assert run.returncode == 1 and "exact" in (tmp_path / "summary.md").read_text()


def test_bad_usage_is_one_line_and_exit_2(tmp_path):
    for args in (["--stages", "properties,magic"], ["--target", "no.such.module:X"],
                 ["--target", "range", "--promises", "balance=sideways"]):
        run = _gate(*args, "--report-dir", str(tmp_path))
        assert run.returncode == 2, (args, run.stdout, run.stderr)
        assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr
    # argparse's own usage errors (here a --profile outside its choices) keep argparse's usage line
    run = _gate("--profile", "huge", "--report-dir", str(tmp_path))
    assert run.returncode == 2 and run.stderr.startswith("usage: assigncheck gate") and "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines()[-1].startswith("assigncheck gate: error: argument --profile")


def test_an_outside_target_in_the_current_directory_loads(tmp_path):
    (tmp_path / "myassignor.py").write_text(
        "from assigncheck.spec.reference import REFERENCES\nclass Mine:\n    name = 'mine'\n"
        "    def assign(self, problem):\n        return REFERENCES['range'].assign(problem)\n")
    run = _gate("--target", "myassignor:Mine", "--stages", "properties", "--report-dir", str(tmp_path / "r"),
                cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
