"""report.html rendered by a real headless Chromium (Debian's, which `make test` installs) at two window widths:
the page fits its window (no horizontal scrolling), whatever the length of a target's name, a path or a stat."""

import html
import json
import re
import shutil
import subprocess

import pytest

from assigncheck.ci.reports import write_all
from assigncheck.ci.results import GateResult, StageResult
from assigncheck.findings.finding import Finding

WIDTHS = (1400, 1000)
LONG_TARGET = "java:org.example.assignors." + "VeryLongPackageName." * 6 + "StickyAssignor"  # no space to break at
LONG_PATH = "reports/reproducers/" + "a-deeply-nested-folder/" * 8 + "properties-H4-3f2a9c.json"
SCALE_STATS = {  # what the scale stage says, at its usual length (it overflowed a 1,400 px window)
    "largest": "2100x2100: fresh 3.5 ms (1 call), churn 9.6 ms (min of 2 calls); 1000x10000/100: fresh 5.4 ms "
               "(min of 2 calls), churn 32.5 ms (min of 2 calls)",
    "growth": "100 topics churn 0.86; n/a (no two rungs of 5.0 ms or more 3.5x apart): 1 topic fresh, 1 topic "
              "churn, 100 topics fresh",
    "ladder": [{"series": "1 topic fresh", "size": size, "cpu_ms": size / 1000} for size in (526, 1052, 2104, 4200)],
}
# Appended to a copy of the page: once it has loaded (the plots laid out), the widths the test reads.
MEASURE = """<script>addEventListener("load", () => {
  const widest = [...document.body.querySelectorAll("*")].reduce((a, e) =>
      e.getBoundingClientRect().right > a.right ? {right: e.getBoundingClientRect().right,
      what: e.tagName + (e.id ? "#" + e.id : "")} : a, {right: 0, what: ""});
  document.body.setAttribute("data-fit", JSON.stringify({scroll: document.documentElement.scrollWidth,
      window: window.innerWidth, widest: widest, images: document.images.length}));
});</script>"""


def _result():
    rows = [{"target": t, "partitions": p, "members": 3, "ms": p / 100, "retained": p - 1, "max_retained": p,
             "sum_squares": 12, "optimal_sum_squares": 10, "valid": True}
            for t in ("range", LONG_TARGET) for p in (10, 100, 1000)]
    stages = [
        StageResult("properties", "range", 1.5, checked=("H1", "H4"), promises="balance=per-topic",
                    stats={"h8_processes": "200/200 problems (PYTHONHASHSEED=1 and 2)", "failing_examples": 0}),
        StageResult("properties", LONG_TARGET, 2.0, checked=("H1", "H4"), promises="",
                    findings=[Finding("properties", LONG_TARGET, "H4", "t0-1 given to " + "member-" * 60, LONG_PATH,
                                      7, status="confirmed")],
                    stats={"classpath": "/opt/jars/" + "kafka-clients-3.9.1.jar:/opt/jars/" * 8}),
        StageResult("scale", "range", 0.4, stats=SCALE_STATS),
        StageResult("scale", LONG_TARGET, 0.9, stats=SCALE_STATS),
        StageResult("campaign", "range", 3.0, rows=rows[:3],
                    stats={"violating_instances": 0, "executor_seconds": 2.9, "campaign_seconds": 9.5,
                           "plot_rows": {"rows": 3, "of": 6, "seed": 0}}),
        StageResult("campaign", LONG_TARGET, 4.0, rows=rows[3:],
                    stats={"violating_instances": 0, "executor_seconds": 3.9, "campaign_seconds": 9.5,
                           "plot_rows": {"rows": 3, "of": 6, "seed": 0}}),
    ]
    return GateResult("quick", ("range", LONG_TARGET), stages, seconds=12.0,
                      notes=["a note naming " + LONG_PATH])


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "the HTML report test needs Chromium: `make test` installs Debian's chromium"
    return found


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """report.html, written once, with the measuring script appended."""
    out = tmp_path_factory.mktemp("report")
    page = write_all(_result(), out)["html"]
    measured = out / "measured.html"
    measured.write_text(page.read_text().replace("</body>", MEASURE + "</body>"))
    return measured


@pytest.mark.parametrize("width", WIDTHS)
def test_report_page_fits_its_window_in_headless_chromium(tmp_path, measured, width):
    shot = tmp_path / "shot.png"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}", f"--window-size={width},1000"]
    dom = subprocess.run([_chromium(), *flags, f"--screenshot={shot}", "--dump-dom", measured.as_uri()],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert "assigncheck gate (quick): FAILED" in dom
    found = re.search(r'data-fit="([^"]*)"', dom)
    assert found, "the page's load handler did not run"
    fit = json.loads(html.unescape(found.group(1)))
    assert fit["window"] == width and fit["images"] == 5  # time per stage and vs size, ladder, stickiness, balance
    assert fit["scroll"] <= width, f"the page is {fit['scroll']} px wide in a {width} px window: {fit['widest']}"
    assert shot.read_bytes()[16:24] == width.to_bytes(4, "big") + (1000).to_bytes(4, "big")  # the PNG's size
    assert shot.stat().st_size > 10_000  # a page drawn, not a blank one
