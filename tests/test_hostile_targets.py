"""Targets that are not assignors, or cannot run at all, are usage errors (exit 2, one line) in every command
that takes a target; none of them leaves a process behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from assigncheck.ci.cli import main
from assigncheck.formats.documents import save_problem
from assigncheck.spec.model import Member, Problem

ROOT = Path(__file__).resolve().parents[1]
NOT_ASSIGNORS = ["cmd:false", "cmd:true", "cmd:cat", "cmd:yes", "cmd:/nonexistent/assignor", "os:getcwd",
                 "builtins:print"]


@pytest.fixture
def problem_file(tmp_path):
    return str(save_problem(Problem({"t": 2}, (Member("a", {"t"}), Member("b", {"t"}))), tmp_path / "p.json"))


def _one_line_exit_2(capsys, argv):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, (argv, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("target", NOT_ASSIGNORS)
def test_assign_with_a_target_that_is_not_an_assignor_is_one_line(target, problem_file, capsys):
    _one_line_exit_2(capsys, ["assign", "--target", target, problem_file])


@pytest.mark.parametrize("target", ["cmd:false", "cmd:yes", "cmd:/nonexistent/assignor", "builtins:print"])
def test_the_gate_refuses_such_a_target_before_any_stage(target, tmp_path, capsys):
    err = _one_line_exit_2(capsys, ["gate", "--target", target, "--stages", "properties", "--report-dir",
                                    str(tmp_path / "r")])
    assert "--target" in err
    assert not list((tmp_path / "r").glob("*.json"))


def test_replay_against_a_target_that_cannot_start_is_not_fixed(tmp_path, capsys):
    reproducer = ROOT / "examples" / "library-findings" / "kafka-python-sticky-order-dependent.json"
    _one_line_exit_2(capsys, ["replay", str(reproducer), "--target", "cmd:/nonexistent"])
    _one_line_exit_2(capsys, ["replay", str(reproducer), "--target", "cmd:false"])


def test_campaign_and_exhaustive_proofs_refuse_it_too(tmp_path, capsys):
    _one_line_exit_2(capsys, ["campaign", "diff", "--target", "cmd:false", "--instances", "10", "--out",
                              str(tmp_path / "c")])
    _one_line_exit_2(capsys, ["prove", "--exhaustive", "cmd:true", "--members", "1", "--partitions", "1",
                              "--out", str(tmp_path / "p")])
    _one_line_exit_2(capsys, ["fuzz", "--target", "cmd:cat", "--seconds", "1", "--out", str(tmp_path / "f")])


def test_a_hanging_target_costs_the_properties_stage_its_circuit_breaker_not_minutes(tmp_path, monkeypatch):
    from assigncheck.ci.pipeline import Plan, run_gate
    from assigncheck.impl.registry import load
    from assigncheck.run import calls as check

    monkeypatch.setattr(check, "HANG_MIN_S", 1.0)  # the hang limit: 1 s here, max(30 s, 10 x budget) normally
    monkeypatch.setattr(check, "HANG_FACTOR", 0.5)
    hanging = load(f"cmd:{sys.executable} {ROOT / 'tests' / 'fixtures' / 'misbehaving_target.py'} hang")
    result = run_gate([hanging], Plan.of("quick", tmp_path / "r", ["properties"]))
    (stage,) = result.stages
    assert any("circuit breaker" in n for n in stage.notes), stage.notes
    assert stage.work.done == 2 and stage.seconds < 30  # two hangs in a row, then nothing more is sent
    assert {f.invariant for f in stage.findings} == {"H7"}, stage.findings
    hanging.close()


def test_no_target_process_outlives_the_command(tmp_path, problem_file):
    marker = f"assigncheck-hostile-{os.getpid()}"
    script = tmp_path / "t.sh"  # a target that starts a grandchild, then leaves without answering
    script.write_text(f"#!/bin/sh\n{sys.executable} -c 'import time; time.sleep(300)' {marker} >/dev/null &\n"
                      "exit 0\n")
    script.chmod(0o755)
    run = subprocess.run([sys.executable, "-m", "assigncheck.ci", "assign", "--target", f"cmd:{script}",
                          problem_file], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
    assert left == [], left
