"""The gate's reports: JUnit XML (one test case per target × stage × invariant), JSON, Markdown (fit for
a GitHub step summary or PR comment) and a static HTML page with plots. Every file is written atomically."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from pathlib import Path
from xml.etree import ElementTree as ET

from assigncheck.ci.plots import plots
from assigncheck.ci.results import STATUSES, Finding, GateResult, StageResult, bounded_result
from assigncheck.formats.bounded import bounded
from assigncheck.formats.documents import write_atomic


def write_all(result: GateResult, report_dir: str | Path) -> dict[str, Path]:
    """All four reports."""
    out, result = Path(report_dir), bounded_result(result)
    return {
        "junit": write_atomic(out / "junit.xml", junit_xml(result)),
        "json": write_atomic(out / "report.json", json.dumps(result.to_json(), indent=1) + "\n"),
        "markdown": write_atomic(out / "summary.md", markdown(result)),
        "html": write_atomic(out / "report.html", html_page(result)),
    }


def _finding_text(f: Finding) -> str:
    where = f" (reproducer: {f.reproducer})" if f.reproducer else ""
    seed = f" seed={f.seed}" if f.seed is not None else ""
    why = f" [{f.status}: {f.why}]" if f.why else f" [{f.status}]"
    return f"{f.invariant}: {f.message}{where}{seed}{why}"


def _promises(text: str | None) -> str:
    return "unknown" if text is None else (text or "H1-H8 only")


def junit_xml(result: GateResult) -> str:
    result = bounded_result(result)  # target text, cut (a cut text is not cut again)
    suites = ET.Element("testsuites", name="assigncheck gate", time=f"{result.seconds:.2f}")
    for stage in result.stages:
        cases = stage.cases()
        suite = ET.SubElement(
            suites, "testsuite", name=f"{stage.stage}.{stage.target}", tests=str(max(1, len(cases))),
            failures=str(sum(1 for _, f in cases if f)), errors="1" if stage.error else "0",
            time=f"{stage.seconds:.2f}",
        )
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="promises", value=_promises(stage.promises))
        if stage.work is not None:
            ET.SubElement(props, "property", name="work", value=str(stage.work))
        for key, value in _scalar_stats(stage):  # what the stage measured (the scale stage's times and growth)
            ET.SubElement(props, "property", name=key, value=value)
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
        apart = [f for f in stage.findings if not f.fails]
        if apart or stage.notes:  # listed, not failing: unconfirmed and unreachable findings, warnings
            ET.SubElement(suite, "system-out").text = "\n".join(
                [*(_finding_text(f) for f in apart), *(f"note: {n}" for n in stage.notes)])
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _scalar_stats(stage: StageResult) -> list[tuple[str, str]]:
    """The stage's figures that read as one line each (a table of rows, such as the scale ladder's, does not)."""
    return [(k, str(v)) for k, v in stage.stats.items() if not isinstance(v, list | dict)]


def _md_scale(result: GateResult) -> list[str]:
    """What the scale stage measured per target: CPU time per call at the largest rungs, and the growth."""
    rows = [s for s in result.stages if s.stage == "scale" and not s.skipped and not s.error]
    if not rows:
        return []
    lines = ["", "### Scale: CPU time per call on the ladder (the minimum of up to 3 calls)", "",
             "| target | largest rungs timed | growth exponent per series (size = members + partitions) |",
             "|---|---|---|"]
    for s in rows:
        stopped = f" (stopped: {s.stats['stopped']})" if s.stats.get("stopped") else ""
        lines.append(f"| `{s.target}` | {_md(str(s.stats.get('largest', '')), 400)}{_md(stopped, 200)} | "
                     f"{_md(str(s.stats.get('growth', '')), 400)} |")
    return lines


def _status(ok: bool) -> str:
    return "✅" if ok else "❌"


def _md(text: str, limit: int = 200) -> str:
    return bounded(text, limit).replace("|", "\\|").replace("\n", " ")


def _md_cell(rs: Sequence[StageResult]) -> str:
    return " ".join("skipped" if r.skipped else f"{_status(r.ok)} {len(r.failing()) or ''}".strip()
                    + (f" ({r.work})" if r.work else "") for r in rs) or "–"


def _md_stage_table(result: GateResult) -> list[str]:
    stages = sorted({s.stage for s in result.stages}, key=[s.stage for s in result.stages].index)
    lines = ["| target | " + " | ".join(stages) + " |", "|---|" + "---|" * len(stages)]
    for target in (*result.targets, "all"):
        cells = [_md_cell([s for s in result.stages if s.target == target and s.stage == stage]) for stage in stages]
        if any(c != "–" for c in cells):
            lines.append(f"| `{target}` | " + " | ".join(cells) + " |")
    return lines


def markdown(result: GateResult) -> str:
    result = bounded_result(result)  # target text, cut (a cut text is not cut again)
    counts = ", ".join(f"{len(result.by_status(s))} {s}" for s in STATUSES)
    lines = [
        f"## assigncheck gate ({result.profile}): {'passed' if result.exit_code == 0 else 'FAILED'}",
        "",
        f"{len(result.targets)} target(s), findings: {counts}; {result.seconds:.0f} s"
        + (f" (load average {result.load:.1f} at the start)." if result.load is not None else "."),
        "",
        *_md_stage_table(result),
    ]
    lines += ["", "Promises enforced per stage: " + "; ".join(
        f"{s.stage}/`{s.target}`: {_promises(s.promises)}" for s in result.stages if not s.skipped)]
    lines += _md_scale(result)
    for status in STATUSES:
        found = result.by_status(status)
        if not found:
            continue
        lines += ["", f"### Findings: {status} ({STATUSES[status]})", "",
                  "| target | stage | invariant | message | reproducer | why |", "|---|---|---|---|---|---|"]
        for f in found:
            lines.append(f"| `{f.target}` | {f.stage} | {f.invariant} | {_md(f.message)} | {f.reproducer or ''} | "
                         f"{_md(f.why, 160)} |")
    errors = [s for s in result.stages if s.error]
    if errors:
        lines += ["", "### Stage errors", ""] + [f"- {s.stage} / `{s.target}`: {s.error}" for s in errors]
    if result.warnings:
        lines += ["", "### Notes", ""] + [f"- {w}" for w in result.warnings]
    return "\n".join(lines) + "\n"


_LONG_RUN = re.compile(r"(\S{25,})")  # a path, a target's name, a list of promises: no space to wrap at
_AFTER_SEPARATOR = re.compile(r"(?<=[,/;=.:])")


def _breakable(line: str) -> str:
    """`line` as HTML, each long run of no space given a break opportunity after each separator in it."""
    parts = _LONG_RUN.split(line)  # the long runs at odd indices
    return "".join("<wbr>".join(map(html.escape, _AFTER_SEPARATOR.split(p))) if i % 2 else html.escape(p)
                   for i, p in enumerate(parts))


def _cell(*lines: str) -> str:
    """A table cell, a line per argument. A long run of no space may break after a separator in it, or anywhere
    if it must (class `long`): otherwise one long name widens its column, and the page, past the window. Other
    text breaks at spaces only, so the short columns keep their words whole."""
    if not any(_LONG_RUN.search(line) for line in lines):
        return "<td>" + "<br>".join(map(html.escape, lines)) + "</td>"
    return "<td class='long'>" + "<br>".join(map(_breakable, lines)) + "</td>"


def html_page(result: GateResult) -> str:
    """The page, with plots of the stages' per-instance rows (the campaign's sizes, times and quality)."""
    result = bounded_result(result)  # target text, cut (a cut text is not cut again)
    esc = html.escape
    table_rows = "".join(
        f"<tr class='{'ok' if s.ok else 'bad'}'>{_cell(s.target)}<td>{esc(s.stage)}</td>"
        f"<td>{'skipped' if s.skipped else 'pass' if s.ok else 'ERROR' if s.error else 'FAIL'}</td>"
        f"<td>{len(s.failing())}</td>"
        f"<td>{esc(str(s.work) if s.work else '')}</td>"
        f"{_cell(_promises(s.promises))}"
        f"<td>{s.seconds:.1f}</td>"
        f"{_cell(s.error) if s.error else _cell(*(f'{k}={v}' for k, v in _scalar_stats(s)))}</tr>"
        for s in result.stages
    )
    findings = "".join(
        f"<tr class='{f.status}'><td>{esc(f.status)}</td>{_cell(f.target)}<td>{esc(f.stage)}</td>"
        f"<td>{esc(f.invariant)}</td>{_cell(f.message)}{_cell(f.reproducer or '')}{_cell(f.why)}</tr>"
        for status in STATUSES for f in result.by_status(status)
    ) or "<tr><td colspan='7'>none</td></tr>"
    notes = "".join(f"<li>{esc(w)}</li>" for w in result.warnings) or "<li>none</li>"
    figures = "".join(plot.html() for plot in plots(result)) or (
        "<p>No plots: they need matplotlib (pip install 'assigncheck[plots]').</p>")
    verdict = "passed" if result.exit_code == 0 else "FAILED"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>assigncheck gate: {verdict}</title>
<style>
/* The page fits its window, however long a target's name, a path or a stat: a long word wraps (in a table cell
   of class `long`, anywhere, which lets its column shrink to fit), tables take the page's width, images scale. */
body {{ font: 14px system-ui, sans-serif; margin: 1em 2em; color: #222; overflow-wrap: break-word; }}
td.long {{ overflow-wrap: anywhere; }}
table {{ border-collapse: collapse; margin: 1em 0; width: 100%; }}
td, th {{ border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }}
tr.ok td:nth-child(3) {{ color: #185; }} tr.bad td:nth-child(3) {{ color: #b22; font-weight: bold; }}
figure {{ display: inline-block; vertical-align: top; max-width: 100%; margin: 1em 1em 1em 0; }}
figcaption {{ margin-bottom: 0.5em; }} img {{ max-width: 100%; height: auto; }}
</style></head><body>
<h1 id="verdict">assigncheck gate ({esc(result.profile)}): {verdict}</h1>
<p>{len(result.targets)} target(s), {len(result.by_status("confirmed"))} confirmed finding(s)
({len(result.by_status("unconfirmed"))} unconfirmed, {len(result.by_status("unreachable"))} unreachable: listed,
not failing), {result.seconds:.0f} s.</p>
<h2>Stages</h2>
<table id="stages"><tr><th>target</th><th>stage</th><th>result</th><th>findings</th><th>work done</th>
<th>promises enforced</th><th>s</th><th>stats</th></tr>
{table_rows}</table>
<h2>Findings</h2>
<table id="findings"><tr><th>status</th><th>target</th><th>stage</th><th>invariant</th><th>message</th>
<th>reproducer</th><th>why</th></tr>
{findings}</table>
<h2>Notes</h2>
<ul id="notes">{notes}</ul>
<h2>Plots</h2>
{figures}
</body></html>
"""
