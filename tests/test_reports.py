"""The gate's reports: JUnit XML, JSON, Markdown, and HTML rendered by a real headless Chromium."""

import json
import shutil
import subprocess
from xml.etree import ElementTree as ET

from assigncheck.ci.reports import write_all
from assigncheck.ci.results import Finding, GateResult, StageResult, Work


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
    assert "### Findings: unconfirmed" in md and "### Findings: unreachable" in md
    assert "properties/`range`: balance=per-topic,exact=range" in md and "properties/`broken`: H1-H8 only" in md
    result.stages = result.stages[:1]
    result.targets = ("range",)
    assert "passed" in write_all(result, tmp_path / "ok")["markdown"].read_text()


def test_html_renders_in_headless_chromium(tmp_path):
    result = _result()
    page = write_all(result, tmp_path)["html"]
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "make test installs Debian's chromium; run `make test`"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([chromium, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert "assigncheck gate (quick): FAILED" in dom
    assert dom.count("<img") == 4  # time per stage, time vs size, stickiness, balance
    shot = tmp_path / "shot.png"
    subprocess.run([chromium, *flags, f"--screenshot={shot}", "--window-size=1200,1600", page.as_uri()],
                   capture_output=True, timeout=120, check=True)
    assert shot.stat().st_size > 10_000


def test_the_campaign_stage_runs_streams_targets_on_the_streams_profile(tmp_path):
    """A streams target gets its own Spark campaign on Streams task problems (reference vs fast through its
    `exact` promise), not a skip."""
    from dataclasses import replace

    from assigncheck.ci.context import PROFILES, Context
    from assigncheck.ci.stages import campaign
    from assigncheck.impl.registry import get

    profile = replace(PROFILES["quick"], campaign_instances=80, campaign_shards=2)
    results = list(campaign.run([get("streams-sticky")], Context(profile, tmp_path)))
    assert [(r.stage, r.target, r.skipped) for r in results] == [("campaign", "streams-sticky", False)]
    assert results[0].stats["profile"] == "streams" and results[0].findings == []
    assert results[0].work.done == 80 and results[0].error is None
