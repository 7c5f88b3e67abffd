"""How figures are written in the docs: numbers, ranges over runs, Markdown tables, the line saying where a
table's figures come from."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


def number(x: float | int | None, digits: int | None = None) -> str:
    """A figure as the docs write it: thousands separated, three significant digits below 100 (two decimals
    below 10), whole numbers above; `digits` fixes the decimals instead."""
    if x is None:
        return "n/a"
    if digits is not None:
        return f"{x:,.{digits}f}"
    if isinstance(x, int) or abs(x) >= 100:
        return f"{round(x):,}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def span(values: Iterable[float | int | None], digits: int | None = None) -> str:
    """`a-b` over runs (or `a` when they agree as written), from the values that were measured."""
    written = [v for v in values if v is not None]
    if not written:
        return "n/a"
    low, high = number(min(written), digits), number(max(written), digits)
    return low if low == high else f"{low}-{high}"


def table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return lines


def loads(runs: Sequence[dict[str, Any]]) -> str:
    """The load over runs: `load 1.2-3.4`, or that it was not recorded (a run carried over from the docs)."""
    values = [v for r in runs for v in (r["load"]["start"], r["load"]["end"]) if v is not None]
    return f"load {span(values, 1)}" if values else "load not recorded"


def dates(runs: Sequence[dict[str, Any]]) -> str:
    first, last = min(r["date"] for r in runs), max(r["date"] for r in runs)
    return first if first == last else f"{first} to {last}"


def commits(runs: Sequence[dict[str, Any]]) -> str:
    return ", ".join(dict.fromkeys(f"`{r['commit']}`" for r in runs))


def provenance(runs: Sequence[dict[str, Any]]) -> str:
    """One source's part of the line under a table: command(s), how many runs, date, commit, load."""
    commands = " / ".join(dict.fromkeys(f"`{r['command']}`" for r in runs))
    count = f"{len(runs)} runs, " if len(runs) > 1 else ""
    said = f"{commands} ({count}{dates(runs)}, commit {commits(runs)}, {loads(runs)}"
    return said + "".join(f"; {carried(r, len(runs) > 1)}" for r in runs if r.get("carried_from")) + ")"


def carried(run: dict[str, Any], name: bool) -> str:
    """What a run carried over from the docs of an earlier commit says of itself (naming its command among
    several)."""
    return (f"`{run['command']}` " if name else "") + run["carried_from"]
