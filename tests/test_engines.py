"""The heavy engines are extras: without one, what needs it stops with one line naming the extra, and the gate
runs the stages it can, saying which it left out in its first line. (Modules are made unimportable the way
Python itself does: a `None` entry in sys.modules.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from assigncheck.ci.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _without(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    for m in modules:
        monkeypatch.setitem(sys.modules, m, None)


def test_a_stage_asked_for_without_its_engine_names_the_extra(tmp_path, monkeypatch, capsys):
    _without(monkeypatch, "atheris")
    assert main(["gate", "--target", "range", "--stages", "fuzz", "--report-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "pip install 'assigncheck[fuzz]'" in err and len(err.strip().splitlines()) == 1


def test_the_gate_runs_the_stages_it_can_and_says_so_first(tmp_path, monkeypatch, capsys):
    _without(monkeypatch, "atheris", "pyspark", "z3")
    assert main(["gate", "--target", "range", "--report-dir", str(tmp_path)]) == 0
    first = capsys.readouterr().err.strip().splitlines()[0]
    assert first.startswith("assigncheck gate: stages properties, scale;")  # neither needs an engine
    assert "'assigncheck[proofs]'" in first and "'assigncheck[fuzz]'" in first and "'assigncheck[spark]'" in first


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
    code = ("import importlib.util, sys; from assigncheck.spec import strategies; "
            "print([m for m in ('pyspark', 'z3', 'atheris', 'matplotlib', 'pytest') if importlib.util.find_spec(m)])")
    out = subprocess.run([str(venv / "bin" / "python"), "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    gate = subprocess.run([str(venv / "bin" / "assigncheck"), "gate", "--target", "range", "--report-dir",
                           str(tmp_path / "r")], capture_output=True, text=True, timeout=600)
    assert gate.returncode == 0, gate.stderr
    assert gate.stderr.startswith("assigncheck gate: stages properties, scale;")
