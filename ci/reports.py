"""The gate's reports: JUnit XML (one test case per target × stage × invariant), JSON, Markdown (fit for
a GitHub step summary or PR comment) and a static HTML page with plots. Every file is written atomically."""

from __future__ import annotations

import base64
import html
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from assigncheck.ci.results import Finding, GateResult
from assigncheck.spec.json_format import write_atomic


def write_all(result: GateResult, report_dir: str | Path, rows: Sequence[dict[str, Any]] = ()) -> dict[str, Path]:
    """All four reports; `rows` are per-instance campaign rows (sizes, time, quality) for the plots."""
    out = Path(report_dir)
    return {
        "junit": write_atomic(out / "junit.xml", junit_xml(result)),
        "json": write_atomic(out / "report.json", json.dumps(result.to_json(), indent=1) + "\n"),
        "markdown": write_atomic(out / "summary.md", markdown(result)),
        "html": write_atomic(out / "report.html", html_page(result, rows)),
    }


def _finding_text(f: Finding) -> str:
    where = f" (reproducer: {f.reproducer})" if f.reproducer else ""
    seed = f" seed={f.seed}" if f.seed is not None else ""
    return f"{f.invariant}: {f.message}{where}{seed}"


def junit_xml(result: GateResult) -> str:
    suites = ET.Element("testsuites", name="assigncheck gate", time=f"{result.seconds:.2f}")
    for stage in result.stages:
        cases = stage.cases()
        suite = ET.SubElement(
            suites, "testsuite", name=f"{stage.stage}.{stage.target}", tests=str(max(1, len(cases))),
            failures=str(sum(1 for _, f in cases if f)), errors="1" if stage.error else "0",
            time=f"{stage.seconds:.2f}",
        )
        per_case = stage.seconds / max(1, len(cases))
        for invariant, finding in cases:
            case = ET.SubElement(suite, "testcase", classname=f"{stage.target}.{stage.stage}", name=invariant,
                                 time=f"{per_case:.2f}")
            if finding:
                failure = ET.SubElement(case, "failure", message=finding.message[:500], type=invariant)
                failure.text = _finding_text(finding)
        if stage.error:
            case = ET.SubElement(suite, "testcase", classname=f"{stage.target}.{stage.stage}", name="stage")
            ET.SubElement(case, "error", message=stage.error[:500]).text = stage.error
        if stage.skipped:
            case = ET.SubElement(suite, "testcase", classname=f"{stage.target}.{stage.stage}", name="stage")
            ET.SubElement(case, "skipped", message=str(stage.stats["skipped"]))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _status(ok: bool) -> str:
    return "✅" if ok else "❌"


def markdown(result: GateResult) -> str:
    stages = sorted({s.stage for s in result.stages}, key=[s.stage for s in result.stages].index)
    lines = [
        f"## assigncheck gate ({result.profile}): {'passed' if result.exit_code == 0 else 'FAILED'}",
        "",
        f"{len(result.targets)} target(s), {len(result.findings)} finding(s), {result.seconds:.0f} s.",
        "",
        "| target | " + " | ".join(stages) + " |",
        "|---|" + "---|" * len(stages),
    ]
    for target in result.targets:
        cells = []
        for stage in stages:
            rs = [s for s in result.stages if s.target == target and s.stage == stage]
            cells.append(" ".join("skipped" if r.skipped else f"{_status(r.ok)} {len(r.findings) or ''}".strip()
                                  for r in rs) or "–")
        lines.append(f"| `{target}` | " + " | ".join(cells) + " |")
    if result.findings:
        lines += ["", "### Findings", "", "| target | stage | invariant | message | reproducer |",
                  "|---|---|---|---|---|"]
        for f in result.findings:
            msg = f.message.replace("|", "\\|").replace("\n", " ")[:200]
            lines.append(f"| `{f.target}` | {f.stage} | {f.invariant} | {msg} | {f.reproducer or ''} |")
    errors = [s for s in result.stages if s.error]
    if errors:
        lines += ["", "### Stage errors", ""] + [f"- {s.stage} / `{s.target}`: {s.error}" for s in errors]
    return "\n".join(lines) + "\n"


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode()


def _plots(result: GateResult, rows: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plots = []
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(result.stages) + 1.2))
    labels = [f"{s.target} / {s.stage}" for s in result.stages]
    ax.barh(labels, [s.seconds for s in result.stages], color=["#2a7" if s.ok else "#c33" for s in result.stages])
    ax.set_xlabel("seconds")
    ax.invert_yaxis()
    plots.append(("Time per stage", _png(fig)))
    plt.close(fig)
    timed = [r for r in rows if r.get("ms") is not None and r.get("partitions") is not None]
    if timed:
        fig, ax = plt.subplots(figsize=(7, 4))
        for target in sorted({r["target"] for r in timed}):
            mine = [r for r in timed if r["target"] == target]
            ax.scatter([r["partitions"] for r in mine], [r["ms"] for r in mine], s=6, label=target, alpha=0.6)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("partitions")
        ax.set_ylabel("ms per assignment")
        ax.legend(fontsize=7)
        plots.append(("Time vs size (campaign instances)", _png(fig)))
        plt.close(fig)
    histograms = (
        ("Stickiness: retained vs the optimum", "retained / max_retained", "max_retained",
         lambda r: r["retained"] / r["max_retained"]),
        ("Balance: distance from the optimum", "Σ count² above the optimum (0 = optimally balanced)",
         "optimal_sum_squares", lambda r: r["sum_squares"] - r["optimal_sum_squares"]),
    )
    for title, xlabel, needs, value in histograms:  # one histogram per measure, a series per target
        usable = [r for r in rows if r.get(needs)]
        if not usable:
            continue
        fig, ax = plt.subplots(figsize=(7, 4))
        for target in sorted({r["target"] for r in usable}):
            ax.hist([value(r) for r in usable if r["target"] == target], bins=20, alpha=0.5, label=target)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("instances")
        ax.legend(fontsize=7)
        plots.append((title, _png(fig)))
        plt.close(fig)
    return plots


def html_page(result: GateResult, rows: Sequence[dict[str, Any]] = ()) -> str:
    esc = html.escape
    table_rows = "".join(
        f"<tr class='{'ok' if s.ok else 'bad'}'><td>{esc(s.target)}</td><td>{esc(s.stage)}</td>"
        f"<td>{'skipped' if s.skipped else 'pass' if s.ok else 'ERROR' if s.error else 'FAIL'}</td>"
        f"<td>{len(s.findings)}</td>"
        f"<td>{s.seconds:.1f}</td>"
        f"<td>{esc(s.error or ', '.join(f'{k}={v}' for k, v in s.stats.items()))}</td></tr>"
        for s in result.stages
    )
    findings = "".join(
        f"<tr><td>{esc(f.target)}</td><td>{esc(f.stage)}</td><td>{esc(f.invariant)}</td>"
        f"<td>{esc(f.message)}</td><td>{esc(f.reproducer or '')}</td></tr>"
        for f in result.findings
    ) or "<tr><td colspan='5'>none</td></tr>"
    figures = "".join(
        f"<figure><figcaption>{esc(title)}</figcaption><img alt='{esc(title)}' src='data:image/png;base64,{png}'>"
        "</figure>"
        for title, png in _plots(result, rows)
    )
    verdict = "passed" if result.exit_code == 0 else "FAILED"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>assigncheck gate: {verdict}</title>
<style>
body {{ font: 14px system-ui, sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; }} td, th {{ border: 1px solid #ccc; padding: 4px 8px; }}
tr.ok td:nth-child(3) {{ color: #185; }} tr.bad td:nth-child(3) {{ color: #b22; font-weight: bold; }}
figure {{ display: inline-block; margin: 1em; }} figcaption {{ font-weight: bold; }}
</style></head><body>
<h1 id="verdict">assigncheck gate ({esc(result.profile)}): {verdict}</h1>
<p>{len(result.targets)} target(s), {len(result.findings)} finding(s), {result.seconds:.0f} s.</p>
<h2>Stages</h2>
<table id="stages"><tr><th>target</th><th>stage</th><th>result</th><th>findings</th><th>s</th><th>stats</th></tr>
{table_rows}</table>
<h2>Findings</h2>
<table id="findings"><tr><th>target</th><th>stage</th><th>invariant</th><th>message</th><th>reproducer</th></tr>
{findings}</table>
<h2>Plots</h2>
{figures}
</body></html>
"""
