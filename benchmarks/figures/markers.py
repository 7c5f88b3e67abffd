"""The rendered blocks in the docs: find them, render them, rewrite or check them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from benchmarks import record
from benchmarks.figures.tables import TABLES, Missing

BLOCK = re.compile(r"(<!-- figures: (?P<name>[\w.-]+) -->\n)(?P<body>.*?)(<!-- /figures -->)", re.S)
OPEN = re.compile(r"<!-- figures: ?(?P<name>[^>]*?) ?-->")


def docs(root: Path = record.ROOT) -> list[Path]:
    """The documents that may hold rendered tables: README.md and docs/*.md."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


@dataclass
class Outcome:
    """A document's text with its tables rendered, and what kept a table from being rendered or checked."""

    text: str
    problems: list[str]
    stale: list[str]  # tables whose text differs from their render


def render(doc: Path, results: Path = record.RESULTS, root: Path = record.ROOT) -> Outcome:
    """`doc`'s text with each block between the markers rendered from the results files in `results`."""
    text = doc.read_text()
    where = doc.relative_to(root) if doc.is_relative_to(root) else doc
    problems: list[str] = []
    stale: list[str] = []
    opened = [m["name"] for m in OPEN.finditer(text)]
    closed = text.count("<!-- /figures -->")
    if len(opened) != closed:
        problems.append(f"{where}: {len(opened)} `<!-- figures: NAME -->` markers but {closed} `<!-- /figures -->`")

    def one(m: re.Match[str]) -> str:
        name = m["name"]
        table = TABLES.get(name)
        if table is None:
            problems.append(f"{where}: no table named {name!r} (known: {', '.join(sorted(TABLES))})")
            return m[0]
        try:
            body = "\n".join(table.render(results)) + "\n"
        except Missing as missing:
            problems.append(f"{where}: table {name}: {missing}")
            return m[0]
        if body != m["body"]:
            stale.append(f"{where}: table {name} disagrees with {', '.join(table.files())}")
        return m[1] + body + m[4]

    return Outcome(BLOCK.sub(one, text), problems, stale)
