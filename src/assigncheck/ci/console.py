"""The gate's terminal output: a table of stages × targets, the bugs by status, skipped stages, warnings.

Off a terminal (a CI log, a pipe) nothing is wrapped: the table takes its natural width and every line is one
line, so a reproducer path or a target name is always whole and can be copied. On a terminal the table fits the
window, folding a long target name over lines rather than cutting it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from assigncheck.ci.results import GateResult, StageResult, bounded_result
from assigncheck.findings.finding import STATUSES, Bug
from assigncheck.formats.bounded import bounded

LINE = 200  # characters of a finding's message on the terminal (the reports hold more)

UNBOUNDED = 1_000_000  # columns to measure the table's natural width in
SHOWN = 20  # bugs printed; the reports list every one
MARKS = {"confirmed": "[red]✗[/]", "unconfirmed": "[yellow]?[/] unconfirmed:",
         "unreachable": "[yellow]~[/] unreachable:"}


def _cell(result: GateResult, r: StageResult) -> str:
    if r.skipped:
        return "[dim]skipped[/]"
    work = f" [dim]{r.work}[/]" if r.work is not None else ""
    if r.error:
        return "[red]ERROR[/]"
    found = result.bugs_of(r)
    failing = sum(1 for b in found if b.status == "confirmed")
    other = len(found) - failing
    text = "[green]pass[/]" if not failing else f"[red]{failing} bug(s)[/]"
    return text + (f" [yellow]+{other} not failing[/]" if other else "") + work


def _table(result: GateResult) -> Any:
    """Targets × stages, a cell per stage result (the campaign's stage errors sit in the row `all`)."""
    from rich.markup import escape
    from rich.table import Table

    stages = list(dict.fromkeys(s.stage for s in result.stages))
    table = Table(title=f"assigncheck gate ({result.profile})")
    table.add_column("target", overflow="fold")  # folded, never cut: two names must not look the same
    for stage in stages:
        table.add_column(stage)
    for target in (*result.targets, "all"):
        cells = [" ".join(_cell(result, r) for r in result.stages if r.target == target and r.stage == stage)
                 for stage in stages]
        if any(cells):
            table.add_row(escape(target), *cells)
    return table


def _skipped(result: GateResult) -> list[str]:
    """Why each skipped stage was skipped, one line per stage and reason."""
    from rich.markup import escape

    return [f"[dim]skipped[/] {stage} for {escape(', '.join(targets)) if targets else 'every target'}: "
            f"{escape(reason)}" for stage, reason, targets in result.skipped()]


def bug_commands(reproducer: str, now: str | None = None) -> list[tuple[str, str]]:
    """(what, command) for a bug's reproducer: replay it, and export it as a test where a framework reaches it
    (`now`: where the file is while this is said, when it is not yet at `reproducer`)."""
    from assigncheck.findings.export.write import commands

    said = commands(reproducer, now)
    return [("replay", said.replay), *([("export", said.export)] if said.export else [])]


def bug_lines(bug: Bug) -> list[str]:
    """A bug: its mark, target, invariant and message, the stages that found it and in how many replays it
    failed, its reproducer, and each consequence under it."""
    from rich.markup import escape

    f = bug.shown
    why = f" [dim]({escape(bounded(f.why, LINE))})[/]" if f.why else ""
    lines = [f"{MARKS[f.status]} {escape(f.target)} / {f.invariant}: {escape(bounded(f.message, LINE))}{why}",
             f"    found by: {', '.join(bug.stages)}" + (f"; {f.replayed}" if f.replayed else "")]
    if f.reproducer:
        lines.append(f"    reproducer: {escape(f.reproducer)}")
        lines += [f"    {what}: {escape(command)}" for what, command in bug_commands(f.reproducer)]
    for c in bug.consequences:
        lines.append(f"    and following from it: {c.shown.invariant} ({', '.join(c.stages)}): "
                     f"{escape(bounded(c.shown.message, LINE))}")
    return lines


def _bugs(result: GateResult) -> list[str]:
    """The first SHOWN bugs, confirmed first."""
    found = sorted(result.bugs, key=lambda b: list(STATUSES).index(b.status))
    lines = [line for bug in found[:SHOWN] for line in bug_lines(bug)]
    if len(found) > SHOWN:
        lines.append(f"... and {len(found) - SHOWN} more (see the reports)")
    return lines


def print_summary(result: GateResult, files: Mapping[str, Path]) -> None:
    from rich.console import Console
    from rich.markup import escape

    console, result = Console(highlight=False, soft_wrap=True), bounded_result(result)
    table = _table(result)
    if not console.is_terminal:  # the table's natural width: a CI log has no window to fit
        natural = console.measure(table, options=console.options.update_width(UNBOUNDED)).maximum
        console.width = max(console.width, natural)
    console.print(table, soft_wrap=False)
    for line in [*_skipped(result), *_bugs(result)]:
        console.print(line)
    for s in result.stages:
        if s.error:
            console.print(f"[red]stage error[/] {s.stage} / {escape(s.target)}: {escape(s.error)}")
    for w in result.warnings:
        console.print(f"[yellow]note[/]: {escape(w)}")
    if result.calibration is not None:
        console.print(f"calibration: {escape(result.calibration_text())}")
    verdict = "[green]passed[/]" if result.exit_code == 0 else "[red]FAILED[/]"
    console.print(f"gate {verdict} in {result.seconds:.0f} s: {result.counts_text()}; reports: "
                  + ", ".join(escape(str(p)) for p in files.values()))
