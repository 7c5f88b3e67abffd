"""What a table reads: the results files, each run checked for the frame every table's provenance line needs."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import record
from benchmarks.figures import text

DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class Missing(Exception):
    """A table cannot be rendered: a results file it reads does not exist, lacks a run, or a run lacks its frame."""


def frame_problems(run: dict[str, Any]) -> list[str]:
    """What a run lacks of the frame: command, date, commit, load at start and end (a run carried over from the
    docs, `carried_from`, may say its load was not recorded), rows."""
    lacks = []
    if not isinstance(run.get("command"), str) or not run["command"].strip():
        lacks.append("command")
    if not isinstance(run.get("date"), str) or not DATE.fullmatch(run["date"]):
        lacks.append("date")
    if not isinstance(run.get("commit"), str) or not run["commit"]:
        lacks.append("commit")
    load = run.get("load")
    measured = isinstance(load, dict) and all(isinstance(load.get(k), int | float) for k in ("start", "end"))
    unrecorded = isinstance(load, dict) and load.get("start") is None and load.get("end") is None
    if not (measured or (unrecorded and run.get("carried_from"))):
        lacks.append("load")
    if not isinstance(run.get("rows"), list):
        lacks.append("rows")
    return lacks


def read_runs(name: str, results: Path) -> list[dict[str, Any]]:
    """The runs of results file `name`, each with its whole frame (Missing otherwise)."""
    path = record.path_of(name, results)
    shown = f"benchmarks/results/{path.name}" if results == record.RESULTS else str(path)
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        raise Missing(f"results file {shown} does not exist") from None
    except ValueError as e:
        raise Missing(f"results file {shown} is not JSON: {e}") from None
    runs = doc.get("runs") if isinstance(doc, dict) else None
    if not isinstance(runs, list) or not runs:
        raise Missing(f"results file {shown} has no runs")
    for k, run in enumerate(runs):
        lacks = frame_problems(run) if isinstance(run, dict) else ["everything"]
        if lacks:
            raise Missing(f"results file {shown}: run {k + 1} lacks {', '.join(lacks)}")
    return runs


@dataclass
class Source:
    """One results file as a layout reads it; the runs a layout takes are the ones its provenance line names."""

    name: str
    all_runs: list[dict[str, Any]]
    used: list[dict[str, Any]] = field(default_factory=list)

    def runs(self, variant: str | None = None) -> list[dict[str, Any]]:
        """The kept runs (of `variant`, when given), oldest first."""
        chosen = self._of(variant)
        self.used += [r for r in chosen if all(r is not u for u in self.used)]
        return chosen

    def last(self, variant: str | None = None) -> dict[str, Any]:
        """The newest run (of `variant`)."""
        newest = self._of(variant)[-1]
        if all(newest is not u for u in self.used):
            self.used.append(newest)
        return newest

    def _of(self, variant: str | None) -> list[dict[str, Any]]:
        chosen = [r for r in self.all_runs if variant is None or r.get("variant", "") == variant]
        if not chosen:
            raise Missing(f"results file benchmarks/results/{self.name}.json has no run of variant {variant!r}")
        return chosen

    def rows(self, variant: str | None = None, **match: Any) -> list[list[dict[str, Any]]]:
        """For each kept run (of `variant`), its rows whose fields equal `match`."""
        return [[r for r in run["rows"] if all(r.get(k) == v for k, v in match.items())]
                for run in self.runs(variant)]


Layout = Callable[..., list[str]]


@dataclass(frozen=True)
class Table:
    """A table of the docs: the results files it reads and the function that lays their rows out."""

    name: str
    sources: tuple[str, ...]
    layout: Layout
    said: bool = True  # a line under the table names the runs (False: the layout's rows name their own)

    def files(self) -> list[str]:
        return [f"benchmarks/results/{s}.json" for s in self.sources]

    def render(self, results: Path) -> list[str]:
        sources = [Source(s, read_runs(s, results)) for s in self.sources]
        lines = self.layout(*sources)
        if not self.said:
            return lines
        said = [text.provenance(s.used) for s in sources if s.used]
        return [*lines, "", "Measured by " + "; ".join(said) + "."]


TABLES: dict[str, Table] = {}


def table(name: str, *sources: str, said: bool = True) -> Callable[[Layout], Layout]:
    """Register a layout as the table `name`, reading `sources` (results file names, in the layout's argument
    order; by default the file named by `name` up to its first dot)."""
    def register(layout: Layout) -> Layout:
        if name in TABLES:
            raise ValueError(f"table {name} defined twice")
        TABLES[name] = Table(name, sources or (name.split(".")[0],), layout, said)
        return layout
    return register
