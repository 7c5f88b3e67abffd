"""`assigncheck check` end to end, as a user runs it: exit 0 (clean), 1 (violations), 2 (bad input)."""

import json
import subprocess
import sys
from pathlib import Path

CLI = str(Path(sys.executable).with_name("assigncheck"))
PROBLEM = {"format": 1, "topics": {"t0": 3}, "members": [
    {"id": "a", "subscription": ["t0"], "owned": {"t0": [0, 1, 2]}, "generation": 1},
    {"id": "b", "subscription": ["t0"]},
]}


def run(tmp_path, assignment, *flags, problem=PROBLEM):
    (tmp_path / "p.json").write_text(json.dumps(problem) if isinstance(problem, dict) else problem)
    (tmp_path / "a.json").write_text(json.dumps({"format": 1, "assignment": assignment}))
    return subprocess.run([CLI, "check", str(tmp_path / "p.json"), str(tmp_path / "a.json"), *flags],
                          capture_output=True, text=True, timeout=120)


def test_a_valid_assignment_exits_0_with_a_quality_table(tmp_path):
    good = {"a": {"t0": [0, 1]}, "b": {"t0": [2]}}
    done = run(tmp_path, good, "--promises", "balance=perfect,stickiness=max_retained")
    assert done.returncode == 0, done.stderr
    assert "OK: no violation" in done.stdout and "max_retained" in done.stdout


def test_violations_exit_1_and_are_named(tmp_path):
    done = run(tmp_path, {"a": {"t0": [0, 1]}, "b": {"t0": [1, 2]}})
    assert done.returncode == 1
    assert "H4: 1 partition(s) assigned more than once: t0-1 to a, b" in done.stdout
    # a promise broken, as JSON
    done = run(tmp_path, {"a": {"t0": [0, 1, 2]}, "b": {}}, "--promises", "balance=perfect", "--json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert [v["invariant"] for v in report["violations"]] == ["balance.perfect"]
    assert report["quality"]["spread"] == 3 and report["quality"]["retained"] == 3


def test_bad_input_exits_2_with_one_line(tmp_path):
    for kwargs, flags in [({"problem": "{not json"}, ()), ({}, ("--promises", "balance=great"))]:
        done = run(tmp_path, {"a": {}, "b": {}}, *flags, **kwargs)
        assert done.returncode == 2
        assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1
        assert done.stderr.startswith("assigncheck: error: ")
    bad_assignment = run(tmp_path, {"a": {"t0": ["x"]}})
    assert bad_assignment.returncode == 2 and "a.t0" in bad_assignment.stderr
