"""The gate's reports: JUnit XML, JSON, Markdown (the HTML page: tests/ci/test_report_page.py)."""

import json
import os
import re
from pathlib import Path
from xml.etree import ElementTree as ET

from assigncheck.ci.cli import main
from assigncheck.ci.reports import write_all
from assigncheck.ci.results import GateResult, StageResult, Work
from assigncheck.findings.finding import Finding
from tests.findings.test_finding import FOUND


def _result():
    ok = StageResult("properties", "range", 1.5, checked=("H1", "H4", "exact"),
                     promises="balance=per-topic,exact=range", work=Work(150, 600, "examples"),
                     notes=["ran 150/600 examples: under half of its nominal work"])
    bad = StageResult("properties", "broken", 2.0, checked=("H1", "H4"), promises="",
                      findings=[Finding("properties", "broken", "H4", "t0-1 given to a and b", "r/p.json", 7,
                                        ("a", "b"), (("t0", 1),), status="confirmed"),
                                Finding("properties", "broken", "H8", "two runs differ", "r/q.json", 7,
                                        status="unconfirmed", why="replay from the file alone: no longer reproduces"),
                                Finding("properties", "broken", "H7", "crash on an empty group", "r/u.json", 7,
                                        status="unreachable", why="a group with no members")])
    err = StageResult("fuzz", "broken", 0.5, error="RuntimeError: libFuzzer not found")
    skip = StageResult("proofs", "range", 0.0, stats={"skipped": "no model"})
    result = GateResult("quick", ("range", "broken"), [ok, bad, err, skip], seconds=4.0)
    ok.rows = [{"target": "range", "partitions": p, "ms": p / 100, "retained": p - 1, "max_retained": p,
                "sum_squares": 10, "optimal_sum_squares": 10} for p in (10, 100, 1000)]  # a stage's rows: plotted
    return result


def test_junit_has_one_case_per_target_stage_invariant(tmp_path):
    result = _result()
    files = write_all(result, tmp_path)
    root = ET.parse(files["junit"]).getroot()
    cases = root.findall(".//testcase")
    names = sorted((c.get("classname"), c.get("name")) for c in cases)
    assert ("range.properties", "exact") in names and ("broken.properties", "H4") in names
    failures = [c for c in cases if c.find("failure") is not None]
    assert [(c.get("classname"), c.get("name")) for c in failures] == [("broken.properties", "H4")]
    assert "r/p.json" in failures[0].find("failure").text and "seed=7" in failures[0].find("failure").text
    assert [c.get("name") for c in cases if c.find("error") is not None] == ["stage"]
    skipped = [c for c in cases if c.find("skipped") is not None]
    assert [(c.get("classname"), c.find("skipped").get("message")) for c in skipped] == [
        ("range.proofs", "no model")]
    broken = root.find(".//testsuite[@name='properties.broken']")
    listed = broken.find("system-out").text  # unconfirmed and unreachable findings: listed, not failures
    assert "H8" in listed and "unconfirmed" in listed and "H7" in listed and "unreachable" in listed
    props = {p.get("name"): p.get("value") for p in root.find(".//testsuite[@name='properties.range']")
             .findall("properties/property")}
    assert props == {"promises": "balance=per-topic,exact=range", "work": "150/600 examples"}


def test_json_and_markdown(tmp_path):
    result = _result()
    files = write_all(result, tmp_path)
    doc = json.loads(files["json"].read_text())
    assert doc["ok"] is False and len(doc["stages"]) == 4
    assert doc["stages"][1]["findings"][0]["reproducer"] == "r/p.json"
    assert doc["counts"] == {"confirmed": 1, "unconfirmed": 1, "unreachable": 1}
    assert doc["stages"][0]["work"] == {"done": 150, "nominal": 600, "unit": "examples", "short": True}
    assert any("under half" in w for w in doc["warnings"])
    md = files["markdown"].read_text()
    assert "FAILED" in md and "| `broken` | ❌ 1 | ❌ | – |" in md and "libFuzzer not found" in md
    assert "| `range` | ✅ (150/600 examples) | – | skipped |" in md
    assert "### Bugs: unconfirmed" in md and "### Bugs: unreachable" in md
    assert "properties/`range`: balance=per-topic,exact=range" in md and "properties/`broken`: H1-H8 only" in md
    result.stages = result.stages[:1]
    result.targets = ("range",)
    assert "passed" in write_all(result, tmp_path / "ok")["markdown"].read_text()


def test_the_campaign_stage_runs_streams_targets_on_the_streams_profile(tmp_path):
    """A streams target gets its own Spark campaign on Streams task problems (reference vs fast through its
    `exact` promise), not a skip."""
    from dataclasses import replace

    from assigncheck.ci.context import PROFILES, Context
    from assigncheck.ci.stages import campaign
    from assigncheck.targets.registry import get

    profile = replace(PROFILES["quick"], campaign_instances=80, campaign_shards=2)
    results = list(campaign.run([get("streams-sticky")], Context(profile, tmp_path)))
    assert [(r.stage, r.target, r.skipped) for r in results] == [("campaign", "streams-sticky", False)]
    assert results[0].stats["profile"] == "streams" and results[0].findings == []
    assert results[0].work.done == 80 and results[0].error is None


def _reports_counts(files, console=""):
    """The confirmed bug count each report gives (JUnit: its failures)."""
    root = ET.parse(files["junit"]).getroot()
    doc = json.loads(files["json"].read_text())
    md = files["markdown"].read_text()
    page = files["html"].read_text()
    said = f"bugs: {doc['counts']['confirmed']} confirmed, {doc['counts']['unconfirmed']} unconfirmed, "
    assert said in md and said in page and (not console or said in console)
    assert sum(1 for b in doc["bugs"] if b["status"] == "confirmed") == doc["counts"]["confirmed"]
    assert md.count("\n| `") - md.count("| `t` |") - md.count("| `u` |") >= 0
    return len(root.findall(".//failure")), doc["counts"]["confirmed"]


def test_every_report_counts_bugs(tmp_path):
    by_stage = {}
    for f in FOUND:
        by_stage.setdefault((f.stage, f.target), []).append(f)
    stages = [StageResult(stage, target, 1.0, checked=("H1", "H3", "H4", "H5"), findings=fs)
              for (stage, target), fs in by_stage.items()]
    files = write_all(GateResult("quick", ("t", "u"), stages), tmp_path)
    assert _reports_counts(files) == (3, 3)
    root = ET.parse(files["junit"]).getroot()
    skipped = {(c.get("classname"), c.get("name")): c.find("skipped").get("message")
               for c in root.findall(".//testcase") if c.find("skipped") is not None}
    assert skipped[("t.properties", "H3")] == "the same bug, reported once: see t.proofs / H3"
    assert skipped[("t.campaign", "H5")].startswith("follows from the bug reported at t.proofs / H3")
    failing = root.find(".//testcase[@classname='t.proofs'][@name='H3']/failure").text
    assert "found by: properties, proofs, fuzz" in failing and "and following from it: H4" in failing
    md = files["markdown"].read_text()
    assert ("| `t` | H3 | properties, proofs, fuzz | H3 broke | r/proofs-H3|a.json<br>`assigncheck replay "
            "'r/proofs-H3|a.json'` |") in md.replace("\\|", "|")


def test_a_gate_s_reports_and_console_agree_on_its_bugs(tmp_path, capsys, steady):
    """A small buggy target through two stages: the bug both stages found is one bug, the H4 that its H3 causes
    on the same partition is listed under it, and JUnit, JSON, Markdown, HTML and the console give the same
    counts. Off a terminal (here, captured) no console line is wrapped: every reproducer path is whole."""
    assert main(["gate", "--target", "tests.fixtures.sticky_claims:DealsKeptClaims", "--stages", "properties,proofs",
                 "--report-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    files = {"junit": tmp_path / "junit.xml", "json": tmp_path / "report.json", "markdown": tmp_path / "summary.md",
             "html": tmp_path / "report.html"}
    failures, confirmed = _reports_counts(files, out)
    doc = json.loads(files["json"].read_text())
    findings = [f for s in doc["stages"] for f in s["findings"] if f["status"] == "confirmed"]
    assert failures == confirmed == len(doc["bugs"]) == out.count("✗ ") and 0 < confirmed < len(findings)
    assert any(b["stages"] == ["properties", "proofs"] for b in doc["bugs"])
    assert [c["invariant"] for b in doc["bugs"] for c in b["consequences"]] == ["H4"]
    assert {f["reproducer"] for b in doc["bugs"] for f in b["findings"]} | {
        f["reproducer"] for b in doc["bugs"] for c in b["consequences"] for f in c["findings"]} == {
        f["reproducer"] for f in findings}  # every confirmed finding is in a bug
    shown = [line.split("reproducer: ", 1)[1] for line in out.splitlines() if "reproducer: " in line]
    assert shown == [b["reproducer"] for b in doc["bugs"]] and all(Path(p).is_file() for p in shown)
    assert max(map(len, shown)) > 80 and "…" not in out and "deals-kept-claims" in out
    for path in shown:  # each bug says how to replay it and to export it as a test (the target is a Python object)
        assert f"    replay: assigncheck replay {path}" in out.splitlines()
        assert f"    export: assigncheck export {path} --as pytest" in out.splitlines()
        assert f"`assigncheck export {path} --as pytest`" in files["markdown"].read_text()
    page = files["html"].read_text()
    for bug in doc["bugs"]:  # the page links each reproducer, and shows its problem beside the target's output
        assert f"<a href='{os.path.relpath(bug['reproducer'], tmp_path)}'>" in page
    sides = re.findall(r"<div class='side'>(.*?)</div>", page, re.S)
    assert len(sides) == len(doc["bugs"]) and all("&quot;members&quot;" in s and "&quot;assignment&quot;" in s
                                                  for s in sides)


def test_the_console_says_why_a_stage_was_skipped_and_counts_bugs(tmp_path, capsys):
    from assigncheck.ci.console import print_summary

    result = _result()
    print_summary(result, write_all(result, tmp_path))
    out = capsys.readouterr().out
    assert "skipped proofs for range: no model" in out.splitlines()
    assert "bugs: 1 confirmed, 1 unconfirmed, 1 unreachable (3 finding(s))" in out
