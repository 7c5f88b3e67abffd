"""The heavy engines are extras: without one, what needs it stops with one line naming the extra, and the gate
runs the stages it can, saying in its first line which it did NOT run; under CI (CI=true) such a gate fails
with one line instead, unless --stages names what to run. (Modules are made unimportable the way Python itself
does: a `None` entry in sys.modules.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from assigncheck.ci.cli import main
from assigncheck.ci.engines import in_ci
from tests.paths import ROOT


def _without(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    for m in modules:
        monkeypatch.setitem(sys.modules, m, None)


def test_a_stage_asked_for_without_its_engine_names_the_extra(tmp_path, monkeypatch, capsys):
    _without(monkeypatch, "atheris")
    assert main(["gate", "--target", "range", "--stages", "fuzz", "--report-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "pip install 'assigncheck[fuzz]'" in err and len(err.strip().splitlines()) == 1


def test_the_gate_runs_the_stages_it_can_and_says_first_what_it_did_not_run(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("CI", raising=False)
    _without(monkeypatch, "atheris", "pyspark", "z3")
    assert main(["gate", "--target", "range", "--report-dir", str(tmp_path)]) == 0
    first = capsys.readouterr().err.strip().splitlines()[0]
    assert first == ("assigncheck gate: stages properties, scale, live; proofs, fuzz, campaign NOT RUN "
                     "(extras not installed: pip install 'assigncheck[fuzz,proofs,spark]')")
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert [s["stage"] for s in report["stages"]] == ["properties", "scale", "live"]  # live: skipped for range
    assert any("proofs, fuzz, campaign NOT RUN" in w for w in report["warnings"])  # the reports say it too


@pytest.mark.parametrize(("value", "ci"), [("true", True), ("1", True), ("TRUE", True), ("", False),
                                           ("false", False), ("0", False)])
def test_ci_is_read_from_the_environment(monkeypatch, value, ci):
    monkeypatch.setenv("CI", value)
    assert in_ci() is ci


def test_under_ci_a_gate_that_cannot_run_every_stage_fails_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CI", "true")
    _without(monkeypatch, "atheris")
    report_dir = tmp_path / "reports"
    assert main(["gate", "--target", "range", "--report-dir", str(report_dir)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line == ("assigncheck: error: --stages: CI=true and the stages fuzz cannot run (extras not installed): "
                    "pip install 'assigncheck[fuzz]', or name the stages to run with --stages")
    assert not report_dir.exists()  # refused before any work


def test_under_ci_the_stages_named_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CI", "true")
    _without(monkeypatch, "atheris")
    assert main(["gate", "--target", "range", "--stages", "scale", "--report-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().err.startswith("assigncheck gate: stages scale\n")
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert [(s["stage"], s["work"]["done"] > 0) for s in report["stages"]] == [("scale", True)]


def test_commands_without_their_engine_are_one_line(tmp_path, monkeypatch, capsys):
    _without(monkeypatch, "z3", "atheris", "pyarrow")
    for argv, extra in ((["prove", "--assignor", "range"], "proofs"),
                        (["fuzz", "--target", "range", "--seconds", "1", "--out", str(tmp_path)], "fuzz"),
                        (["campaign", "diff", "--target", "range", "--instances", "4", "--out", str(tmp_path / "c")],
                         "spark")):
        assert main(argv) == 2, argv
        assert f"'assigncheck[{extra}]'" in capsys.readouterr().err


def test_the_html_report_says_when_it_has_no_plots(tmp_path, monkeypatch):
    from assigncheck.ci.reports import html_page
    from assigncheck.ci.results import GateResult

    _without(monkeypatch, "matplotlib")
    assert "they need matplotlib" in html_page(GateResult("quick", ()))


@pytest.mark.slow
def test_the_core_installs_and_checks_without_any_engine(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "-c", str(ROOT / "constraints.txt")]
    subprocess.run([*pip, str(ROOT)], check=True, timeout=900)
    code = ("import importlib.util, sys; from assigncheck.generate import strategies; "
            "print([m for m in ('pyspark', 'z3', 'atheris', 'matplotlib', 'pytest') if importlib.util.find_spec(m)])")
    out = subprocess.run([str(venv / "bin" / "python"), "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    gate = [str(venv / "bin" / "assigncheck"), "gate", "--target", "range", "--report-dir", str(tmp_path / "r")]
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    run = subprocess.run(gate, capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stderr.startswith("assigncheck gate: stages properties, scale, live; proofs, fuzz, campaign NOT RUN")
    run = subprocess.run(gate, capture_output=True, text=True, timeout=600, env={**env, "CI": "true"})
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "pip install 'assigncheck[fuzz,proofs,spark]'" in run.stderr
