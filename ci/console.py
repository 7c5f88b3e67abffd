"""The gate's terminal output: a table of stages × targets, the findings by status, the work done, warnings."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from assigncheck.ci.results import GateResult, StageResult, bounded_result
from assigncheck.formats.bounded import bounded

LINE = 200  # characters of a finding's message on the terminal (the reports hold more)

SHOWN = 20  # findings printed; the reports list every one
MARKS = {"confirmed": "[red]✗[/]", "unconfirmed": "[yellow]?[/] unconfirmed:",
         "unreachable": "[yellow]~[/] unreachable:"}


def _cell(r: StageResult) -> str:
    if r.skipped:
        return "[dim]skipped[/]"
    work = f" [dim]{r.work}[/]" if r.work is not None else ""
    if r.error:
        return "[red]ERROR[/]"
    failing = len(r.failing())
    other = len(r.findings) - failing
    text = "[green]pass[/]" if not failing else f"[red]{failing} finding(s)[/]"
    return text + (f" [yellow]+{other} not failing[/]" if other else "") + work


def _table(result: GateResult) -> Any:
    """Targets × stages, a cell per stage result (the campaign's stage errors sit in the row `all`)."""
    from rich.markup import escape
    from rich.table import Table

    stages = list(dict.fromkeys(s.stage for s in result.stages))
    table = Table(title=f"assigncheck gate ({result.profile})")
    table.add_column("target")
    for stage in stages:
        table.add_column(stage)
    for target in (*result.targets, "all"):
        cells = [" ".join(_cell(r) for r in result.stages if r.target == target and r.stage == stage)
                 for stage in stages]
        if any(cells):
            table.add_row(escape(target), *cells)
    return table


def _findings(result: GateResult) -> list[str]:
    """The first SHOWN findings, confirmed first, each with why it is not failing and its reproducer."""
    from rich.markup import escape

    listed = [(status, f) for status in MARKS for f in result.by_status(status)]  # type: ignore[arg-type]
    lines = []
    for status, f in listed[:SHOWN]:
        why = f" [dim]({escape(bounded(f.why, LINE))})[/]" if f.why else ""
        message = escape(bounded(f.message, LINE))
        lines.append(f"{MARKS[status]} {escape(f.target)} / {f.stage} / {f.invariant}: {message}{why}"
                     + (f"\n    reproducer: {escape(f.reproducer)}" if f.reproducer else ""))
    if len(result.findings) > SHOWN:
        lines.append(f"... and {len(result.findings) - SHOWN} more (see the reports)")
    return lines


def print_summary(result: GateResult, files: Mapping[str, Path]) -> None:
    from rich.console import Console
    from rich.markup import escape

    console, result = Console(highlight=False), bounded_result(result)
    console.print(_table(result))
    for line in _findings(result):
        console.print(line)
    for s in result.stages:
        if s.error:
            console.print(f"[red]stage error[/] {s.stage} / {escape(s.target)}: {escape(s.error)}")
    for w in result.warnings:
        console.print(f"[yellow]note[/]: {escape(w)}")
    verdict = "[green]passed[/]" if result.exit_code == 0 else "[red]FAILED[/]"
    console.print(f"gate {verdict} in {result.seconds:.0f} s; reports: " + ", ".join(str(p) for p in files.values()))
