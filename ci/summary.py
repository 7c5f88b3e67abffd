"""The gate's terminal output, and turning `--target`/`--promises` flags into assignors."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from assigncheck.ci.results import GateResult, StageResult
from assigncheck.spec.model import AnyProblem, Assignment
from assigncheck.spec.promises import Assignor, Promises, problem_kind


def targets_from_args(specs: Sequence[str], promises: str | None) -> list[Assignor]:
    """Every built-in assignor by default; `--promises` overrides what the given targets declare."""
    from assigncheck.impl.registry import get, load_target, names

    if not specs:
        return [get(n) for n in names()]
    targets = [load_target(s) for s in specs]
    if promises is None:
        return targets
    declared = Promises.parse(promises)
    return [Declared(t, declared) for t in targets]


@dataclass
class Declared:
    """A target checked against promises given on the command line instead of its own."""

    inner: Assignor
    promises: Promises

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def problem_kind(self) -> str:
        return problem_kind(self.inner)

    def assign(self, problem: AnyProblem) -> Assignment:
        return self.inner.assign(problem)


def _cell(r: StageResult) -> str:
    if r.skipped:
        return "[dim]skipped[/]"
    if r.ok:
        return "[green]pass[/]"
    return f"[red]{'ERROR' if r.error else f'{len(r.findings)} finding(s)'}[/]"


def print_summary(result: GateResult, files: Mapping[str, Path]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    stages = list(dict.fromkeys(s.stage for s in result.stages))
    table = Table(title=f"assigncheck gate ({result.profile})")
    table.add_column("target")
    for stage in stages:
        table.add_column(stage)
    for target in (*result.targets, "all"):
        cells = []
        for stage in stages:
            rs = [s for s in result.stages if s.target == target and s.stage == stage]
            cells.append(" ".join(_cell(r) for r in rs))
        if any(cells):
            table.add_row(target, *cells)
    console.print(table)
    for f in result.findings[:20]:
        console.print(f"[red]✗[/] {f.target} / {f.stage} / {f.invariant}: {f.message[:160]}"
                      + (f"\n    reproducer: {f.reproducer}" if f.reproducer else ""))
    if len(result.findings) > 20:
        console.print(f"... and {len(result.findings) - 20} more (see the reports)")
    for s in result.stages:
        if s.error:
            console.print(f"[red]stage error[/] {s.stage} / {s.target}: {s.error}")
    verdict = "[green]passed[/]" if result.exit_code == 0 else "[red]FAILED[/]"
    console.print(f"gate {verdict} in {result.seconds:.0f} s; reports: "
                  + ", ".join(str(p) for p in files.values()))
