"""The gate's reports: JUnit XML (one test case per target × stage × invariant), JSON, Markdown (fit for
a GitHub step summary or PR comment) and a static HTML page with plots. Every file is written atomically."""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote
from xml.etree import ElementTree as ET

from assigncheck.ci.console import bug_commands
from assigncheck.ci.plots import plots
from assigncheck.ci.results import GateResult, StageResult, bounded_result
from assigncheck.findings.finding import STATUSES, Bug, Finding
from assigncheck.formats.bounded import bounded
from assigncheck.formats.documents import write_atomic

SIDE_CHARS = 4_000  # characters of a bug's problem, and of the target's output, the page shows


@dataclass(frozen=True)
class Place:
    """Where the reports are read (`shown`: the report directory, where they and the reproducers they name are
    published) and where those files are while the reports are written (`now`: the run's own directory, swapped
    into `shown` afterwards, `ci.publish`)."""

    shown: Path
    now: Path

    def at(self, path: str) -> str:
        """Where the file the reports name `path` is now."""
        inside = os.path.relpath(path, self.shown)
        return path if inside.startswith(os.pardir) else str(self.now / inside)

    def href(self, path: str) -> str:
        """A link to `path` from a page published in `shown`."""
        return os.path.relpath(path, self.shown)


def write_all(result: GateResult, report_dir: str | Path, published_to: str | Path | None = None
              ) -> dict[str, Path]:
    """All four reports, written into `report_dir`; their reproducer paths name where those files are once the
    run is published into `published_to` (default: `report_dir` itself)."""
    out, result = Path(report_dir), bounded_result(result)
    place = Place(Path(published_to) if published_to is not None else out, out)
    return {
        "junit": write_atomic(out / "junit.xml", junit_xml(result)),
        "json": write_atomic(out / "report.json", json.dumps(result.to_json(), indent=1) + "\n"),
        "markdown": write_atomic(out / "summary.md", markdown(result, place)),
        "html": write_atomic(out / "report.html", html_page(result, place)),
    }


def _finding_text(f: Finding) -> str:
    where = f" (reproducer: {f.reproducer})" if f.reproducer else ""
    seed = f" seed={f.seed}" if f.seed is not None else ""
    status = f"{f.status}, {f.replayed}" if f.replayed else f.status
    why = f" [{status}: {f.why}]" if f.why else f" [{status}]"
    return f"{f.invariant}: {f.message}{where}{seed}{why}"


def _bug_text(bug: Bug) -> str:
    """A bug as one report entry: its shown finding, the stages that found it, its consequences."""
    lines = [_finding_text(bug.shown), f"found by: {', '.join(bug.stages)}"]
    lines += [f"and following from it: {c.shown.invariant} ({', '.join(c.stages)}): {c.shown.message}"
              + (f" (reproducer: {c.shown.reproducer})" if c.shown.reproducer else "") for c in bug.consequences]
    return "\n".join(lines)


def _promises(text: str | None) -> str:
    return "unknown" if text is None else (text or "H1-H8 only")


def _reported(result: GateResult) -> tuple[dict[int, Bug], dict[int, str]]:
    """Where each confirmed finding is reported in JUnit: the shown finding of a confirmed bug fails its own case
    (by id), every other one (the same bug found by another stage, or a consequence) points there."""
    shown: dict[int, Bug] = {}
    elsewhere: dict[int, str] = {}
    for bug in result.bugs:
        if bug.status != "confirmed":
            continue
        f = bug.shown
        shown[id(f)] = bug
        where = f"{f.target}.{f.stage} / {f.invariant}"
        for g in bug.findings:
            if g is not f:
                elsewhere[id(g)] = f"the same bug, reported once: see {where}"
        for c in bug.consequences:
            for g in c.findings:
                elsewhere[id(g)] = f"follows from the bug reported at {where}"
    return shown, elsewhere


def _stage_cases(stage: StageResult) -> list[tuple[str, Finding | None]]:
    """(case name, confirmed finding or None) per checked invariant and per confirmed finding: a case per bug,
    named by its signature where one stage found several bugs of one invariant."""
    found: dict[str, list[Finding]] = {}
    for f in stage.failing():
        found.setdefault(f.invariant, []).append(f)
    cases: list[tuple[str, Finding | None]] = []
    for invariant in [*stage.checked, *sorted(set(found) - set(stage.checked))]:
        mine = found.get(invariant, [])
        cases += [(invariant if len(mine) == 1 else f.signature or f"{invariant} #{k + 1}", f)
                  for k, f in enumerate(mine)] or [(invariant, None)]
    return cases


def junit_xml(result: GateResult) -> str:
    """A suite per stage × target, a case per checked invariant: one failure per confirmed bug, at its shown
    finding; where another stage found it again, or found a consequence, that case is skipped and says where."""
    result = bounded_result(result)  # target text, cut (a cut text is not cut again)
    shown, elsewhere = _reported(result)
    suites = ET.Element("testsuites", name="assigncheck gate", time=f"{result.seconds:.2f}")
    for stage in result.stages:
        _junit_suite(suites, stage, shown, elsewhere, result.calibration_text())
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _junit_cases(suite: ET.Element, classname: str, cases: list[tuple[str, Finding | None]], per_case: float,
                 shown: dict[int, Bug], elsewhere: dict[int, str]) -> None:
    for name, finding in cases:
        case = ET.SubElement(suite, "testcase", classname=classname, name=name, time=f"{per_case:.2f}")
        if finding is not None and id(finding) in shown:
            failure = ET.SubElement(case, "failure", message=finding.message[:500], type=finding.invariant)
            failure.text = _bug_text(shown[id(finding)])
        elif finding is not None:
            ET.SubElement(case, "skipped", message=elsewhere[id(finding)]).text = _finding_text(finding)


def _junit_suite(suites: ET.Element, stage: StageResult, shown: dict[int, Bug], elsewhere: dict[int, str],
                 calibration: str = "") -> None:
    cases = _stage_cases(stage)
    failures = sum(1 for _, f in cases if f is not None and id(f) in shown)
    suite = ET.SubElement(
        suites, "testsuite", name=f"{stage.stage}.{stage.target}", tests=str(max(1, len(cases))),
        failures=str(failures), errors="1" if stage.error else "0",
        skipped=str(sum(1 for _, f in cases if f is not None and id(f) not in shown) + stage.skipped),
        time=f"{stage.seconds:.2f}",
    )
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="promises", value=_promises(stage.promises))
    if calibration:
        ET.SubElement(props, "property", name="calibration", value=calibration)
    if stage.work is not None:
        ET.SubElement(props, "property", name="work", value=str(stage.work))
    for key, value in _scalar_stats(stage):  # what the stage measured (the scale stage's times and growth)
        ET.SubElement(props, "property", name=key, value=value)
    classname = f"{stage.target}.{stage.stage}"
    _junit_cases(suite, classname, cases, stage.seconds / max(1, len(cases)), shown, elsewhere)
    if stage.error:
        case = ET.SubElement(suite, "testcase", classname=classname, name="stage")
        ET.SubElement(case, "error", message=stage.error[:500]).text = stage.error
    if stage.skipped:
        case = ET.SubElement(suite, "testcase", classname=classname, name="stage")
        ET.SubElement(case, "skipped", message=str(stage.stats["skipped"]))
    apart = [f for f in stage.findings if not f.fails]
    if apart or stage.notes:  # listed, not failing: unconfirmed and unreachable findings, warnings
        ET.SubElement(suite, "system-out").text = "\n".join(
            [*(_finding_text(f) for f in apart), *(f"note: {n}" for n in stage.notes)])


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


def _md_cell(result: GateResult, rs: Sequence[StageResult]) -> str:
    """Pass or fail, and the confirmed bugs the stage found."""
    def one(r: StageResult) -> str:
        failing = sum(1 for b in result.bugs_of(r) if b.status == "confirmed")
        return f"{_status(r.ok)} {failing or ''}".strip() + (f" ({r.work})" if r.work else "")

    return " ".join("skipped" if r.skipped else one(r) for r in rs) or "–"


def _md_stage_table(result: GateResult) -> list[str]:
    stages = sorted({s.stage for s in result.stages}, key=[s.stage for s in result.stages].index)
    lines = ["| target | " + " | ".join(stages) + " |", "|---|" + "---|" * len(stages)]
    for target in (*result.targets, "all"):
        cells = [_md_cell(result, [s for s in result.stages if s.target == target and s.stage == stage])
                 for stage in stages]
        if any(c != "–" for c in cells):
            lines.append(f"| `{target}` | " + " | ".join(cells) + " |")
    return lines


def _md_bugs(result: GateResult, place: Place | None) -> list[str]:
    """A table per status, a row per bug: the stages that found it, its reproducer, its consequences."""
    lines = []
    for status in STATUSES:
        found = [b for b in result.bugs if b.status == status]
        if not found:
            continue
        lines += ["", f"### Bugs: {status} ({STATUSES[status]})", "",
                  "| target | invariant | found by | message | reproducer | and following from it | why |",
                  "|---|---|---|---|---|---|---|"]
        for b in found:
            f = b.shown
            also = "<br>".join(f"{c.shown.invariant} ({', '.join(c.stages)}): {_md(c.shown.message, 160)}"
                               for c in b.consequences)
            found_by = ", ".join(b.stages) + (f"; {f.replayed}" if f.replayed else "")
            lines.append(f"| `{f.target}` | {f.invariant} | {found_by} | {_md(f.message)} | "
                         f"{_md_reproducer(f, place)} | {also} | {_md(f.why, 160)} |")
    return lines


def _md_reproducer(f: Finding, place: Place | None) -> str:
    """A bug's reproducer, and the commands that replay it and export it as a test."""
    if not f.reproducer:
        return ""
    now = place.at(f.reproducer) if place is not None else f.reproducer
    commands = [f"`{_md(command, 600)}`" for _, command in bug_commands(f.reproducer, now)]
    return "<br>".join([_md(f.reproducer, 400), *commands])


def markdown(result: GateResult, place: Place | None = None) -> str:
    """The summary; `place` says where the reproducers it names are while it is written (default: there)."""
    result = bounded_result(result)  # target text, cut (a cut text is not cut again)
    lines = [
        f"## assigncheck gate ({result.profile}): {'passed' if result.exit_code == 0 else 'FAILED'}",
        "",
        f"{len(result.targets)} target(s), {result.counts_text()}; {result.seconds:.0f} s"
        + (f" (load average {result.load:.1f} at the start)." if result.load is not None else "."),
        *([] if result.calibration is None else ["", f"{result.calibration_text()}."]),
        "",
        *_md_stage_table(result),
    ]
    lines += ["", "Promises enforced per stage: " + "; ".join(
        f"{s.stage}/`{s.target}`: {_promises(s.promises)}" for s in result.stages if not s.skipped)]
    skipped = result.skipped()
    if skipped:
        lines += ["", "### Skipped", ""] + [
            f"- {stage} for {', '.join(f'`{t}`' for t in targets) if targets else 'every target'}: {_md(why)}"
            for stage, why, targets in skipped]
    lines += _md_scale(result)
    lines += _md_bugs(result, place)
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


def _link(path: str, place: Place | None) -> str:
    """A link to a reproducer file, relative to the page (the report directory holds both)."""
    href = place.href(path) if place is not None else path
    return f"<a href='{html.escape(quote(href), quote=True)}'>{_breakable(path)}</a>"


def _html_reproducer(f: Finding, place: Place | None) -> str:
    """The reproducer cell: its file, linked, and the commands that replay it and export it as a test."""
    if not f.reproducer:
        return "<td></td>"
    now = place.at(f.reproducer) if place is not None else f.reproducer
    said = "".join(f"<br>{html.escape(what)}: <code>{_breakable(command)}</code>"
                   for what, command in bug_commands(f.reproducer, now))
    return f"<td class='long'>{_link(f.reproducer, place)}{said}</td>"


def _problem_text(path: str) -> str:
    """The reproducer's problem, as its file lists it (its note and finding record left out)."""
    from assigncheck.formats.documents import dumps, load_json

    try:
        doc = load_json(path)
    except (OSError, ValueError) as e:
        return f"(its reproducer cannot be read: {e})"
    if not isinstance(doc, dict):
        return "(not a problem document)"
    return bounded(dumps({k: v for k, v in doc.items() if k not in ("note", "finding")}, pretty=True), SIDE_CHARS)


def _side_by_side(f: Finding, place: Place | None) -> str:
    """The minimized problem beside what the target gave on it (when the replay that confirmed it recorded it)."""
    from assigncheck.formats.documents import dumps, parse_json

    if not f.reproducer:
        return ""
    output = "(not recorded: the finding was not confirmed by a replay of its file)"
    if f.output:
        output = bounded(dumps(parse_json(f.output, "output"), pretty=True), SIDE_CHARS)
    problem = _problem_text(place.at(f.reproducer) if place is not None else f.reproducer)
    return (f"<tr class='detail'><td colspan='8'><details{' open' if f.status == 'confirmed' else ''}>"
            "<summary>the problem and the target's output</summary><div class='side'>"
            f"<figure><figcaption>the minimized problem</figcaption><pre>{html.escape(problem)}"
            f"</pre></figure><figure><figcaption>what the target gave ({html.escape(f.invariant)} breaks)"
            f"</figcaption><pre>{html.escape(output)}</pre></figure></div></details></td></tr>")


def _html_bugs(result: GateResult, place: Place | None = None) -> str:
    """The bugs table's rows: a row per bug, its consequences in it, and under it its problem and output."""
    esc = html.escape

    def row(b: Bug) -> str:
        f = b.shown
        also = [f"{c.shown.invariant} ({', '.join(c.stages)}): {c.shown.message}" for c in b.consequences]
        found_by = ", ".join(b.stages) + (f"; {f.replayed}" if f.replayed else "")
        return (f"<tr class='{f.status}'><td>{esc(f.status)}</td>{_cell(f.target)}<td>{esc(f.invariant)}</td>"
                f"<td>{esc(found_by)}</td>{_cell(f.message)}{_html_reproducer(f, place)}"
                f"{_cell(*also)}{_cell(f.why)}</tr>{_side_by_side(f, place)}")

    found = sorted(result.bugs, key=lambda b: list(STATUSES).index(b.status))
    return "".join(map(row, found)) or "<tr><td colspan='8'>none</td></tr>"


def html_page(result: GateResult, place: Place | None = None) -> str:
    """The page, with plots of the stages' per-instance rows (the campaign's sizes, times and quality); links to the
    reproducers are relative to `place.shown`, where the page is published (`Place`)."""
    result = bounded_result(result)  # target text, cut (a cut text is not cut again)
    esc = html.escape
    table_rows = "".join(
        f"<tr class='{'ok' if s.ok else 'bad'}'>{_cell(s.target)}<td>{esc(s.stage)}</td>"
        f"<td>{'skipped' if s.skipped else 'pass' if s.ok else 'ERROR' if s.error else 'FAIL'}</td>"
        f"<td>{sum(1 for b in result.bugs_of(s) if b.status == 'confirmed')}</td>"
        f"<td>{esc(str(s.work) if s.work else '')}</td>"
        f"{_cell(_promises(s.promises))}"
        f"<td>{s.seconds:.1f}</td>"
        f"{_cell(s.error) if s.error else _cell(*(f'{k}={v}' for k, v in _scalar_stats(s)))}</tr>"
        for s in result.stages
    )
    findings = _html_bugs(result, place)
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
/* A bug's problem and the target's output side by side, each scrolling inside its half. */
div.side {{ display: flex; gap: 1em; }} div.side figure {{ flex: 1 1 0; min-width: 0; margin: 0.5em 0; }}
pre {{ white-space: pre-wrap; overflow-wrap: anywhere; overflow: auto; max-height: 30em; background: #f6f6f6;
       padding: 0.5em; margin: 0; }}
</style></head><body>
<h1 id="verdict">assigncheck gate ({esc(result.profile)}): {verdict}</h1>
<p id="counts">{len(result.targets)} target(s), {esc(result.counts_text())} (unconfirmed and unreachable: listed,
not failing), {result.seconds:.0f} s.</p>
<p id="calibration">{esc(result.calibration_text() or "no CPU calibration: budgets as the profile gives them")}</p>
<h2>Stages</h2>
<table id="stages"><tr><th>target</th><th>stage</th><th>result</th><th>bugs</th><th>work done</th>
<th>promises enforced</th><th>s</th><th>stats</th></tr>
{table_rows}</table>
<h2>Bugs</h2>
<table id="findings"><tr><th>status</th><th>target</th><th>invariant</th><th>found by</th><th>message</th>
<th>reproducer</th><th>and following from it</th><th>why</th></tr>
{findings}</table>
<h2>Notes</h2>
<ul id="notes">{notes}</ul>
<h2>Plots</h2>
{figures}
</body></html>
"""
