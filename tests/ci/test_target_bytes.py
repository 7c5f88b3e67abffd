"""Every byte from a target is escaped before it reaches the console or a report: a target whose answers name a
topic carrying NUL, a screen-clearing ESC sequence, an OSC title sequence and \\x01 leaves a well-formed
`junit.xml` (parsed here), a `summary.md` and a `report.html` without a control character, and a console that
shows the escapes (`\\x1b[2J`) instead of clearing the terminal."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.fixtures.misbehaving_target import HOSTILE
from tests.paths import ROOT

MISBEHAVING = ROOT / "tests" / "fixtures" / "misbehaving_target.py"
RAW = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # what must never be written raw (tab, LF, CR may)
ESCAPED = "t\\x00\\x1b[2J\\x1b]0;pwned\\x07\\x01"  # HOSTILE as the reports and the console show it


@pytest.fixture(scope="module")
def gate(tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path]:
    reports = tmp_path_factory.mktemp("hostile") / "reports"
    done = subprocess.run([sys.executable, "-m", "assigncheck.ci", "gate", "--target",
                           f"cmd:{sys.executable} {MISBEHAVING} control-bytes", "--stages", "properties",
                           "--report-dir", str(reports)], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    return done, reports


def test_the_finding_is_there_and_confirmed(gate):
    done, reports = gate
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads((reports / "report.json").read_text())
    assert any(b["invariant"] == "H2" and b["status"] == "confirmed" for b in report["bugs"]), report["bugs"]
    (path,) = (reports / "reproducers").glob("*H2*.json")
    assert HOSTILE in json.loads(path.read_text(encoding="utf-8"))["finding"]["message"]  # the file keeps it whole


def test_junit_xml_is_well_formed_and_shows_the_escapes(gate):
    _, reports = gate
    suites = ElementTree.parse(reports / "junit.xml").getroot()  # raises on NUL or \x01
    failures = [f for f in suites.iter("failure") if f.get("type") == "H2"]
    assert failures and ESCAPED in failures[0].get("message", "") + (failures[0].text or "")


@pytest.mark.parametrize("name", ["summary.md", "report.html", "junit.xml", "report.json"])
def test_no_report_holds_a_control_character(gate, name):
    _, reports = gate
    text = (reports / name).read_text(encoding="utf-8")
    assert not RAW.search(text), (name, RAW.search(text))
    if name == "report.html":  # as a browser shows it: break opportunities and entities
        text = html.unescape(text.replace("<wbr>", ""))
    if name != "report.json":  # JSON escapes the escape's backslash
        assert ESCAPED in text, name


def test_the_console_shows_the_escapes_and_never_the_sequences(gate):
    done, _ = gate
    for stream in (done.stdout, done.stderr):
        assert "\x1b" not in stream and "\x00" not in stream and "\x07" not in stream
    assert ESCAPED in done.stdout, done.stdout


def test_replay_prints_the_escapes_too(gate, capsys):
    from assigncheck.ci.cli import main

    _, reports = gate
    (path,) = (reports / "reproducers").glob("*H2*.json")
    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert ESCAPED in out and "\x1b" not in out
