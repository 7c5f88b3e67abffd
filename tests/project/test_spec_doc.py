"""docs/SPEC.md is the spec the code implements: every invariant id and every promise is defined there, every
"SPEC.md §N" the code cites names a section that exists, and no citation points at a file outside the
repository."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

from assigncheck.spec.promises import Promises
from assigncheck.spec.violations import INVARIANTS

HERE = Path(__file__).resolve()  # its examples of broken citations are not citations
ROOT = HERE.parents[2]
SPEC = ROOT / "docs" / "SPEC.md"
# Where the code, docs and tests cite the spec: the package, the benchmarks, the tests, the docs, the examples.
CITING = ("src", "benchmarks", "tests", "docs", "examples")
SUFFIXES = {".py", ".md", ".java", ".json", ".yml", ".yaml", ".toml"}
# "SPEC.md §3", "SPEC.md §6.2, §8.1", "SPEC.md §3-§8": every § of the run counts.
CITATION = re.compile(r"SPEC\.md((?:[\s,–-]*(?:and\s+)?§\d+(?:\.\d+)?)+)")
SECTION = re.compile(r"§(\d+(?:\.\d+)?)")
# Files the repository does not have: the design notes and source documents the project started from.
OUTSIDE = re.compile(r"shared/design|shared/seeds|KAFKA_FACTS|\bseeds? ?00\d|\bseed_00\d", re.IGNORECASE)


def spec_text() -> str:
    return SPEC.read_text(encoding="utf-8")


def sections(text: str) -> set[str]:
    """"1" for "## 1. The problem", "7.3" for "### 7.3 Lag-based ..."."""
    return set(re.findall(r"^##+ (\d+(?:\.\d+)?)\.? ", text, re.MULTILINE))


def table_after(text: str, heading: str) -> dict[str, list[str]]:
    """The first table after the heading that starts with `heading`: first cell (a `code` span) -> the other cells."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    rows: dict[str, list[str]] = {}
    for line in lines[start + 1:]:
        if rows and not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].startswith("`"):
            key = cells[0].strip("`")
            assert key not in rows, f"{key} is defined twice"
            rows[key] = cells[1:]
    return rows


def citing_files() -> list[Path]:
    files = [ROOT / "README.md"]
    for folder in CITING:
        files += [p for p in (ROOT / folder).rglob("*") if p.suffix in SUFFIXES and p.is_file()
                  and "__pycache__" not in p.parts and p not in (SPEC, HERE)]
    return files


def citations(text: str) -> list[str]:
    return [s for run in CITATION.findall(text) for s in SECTION.findall(run)]


def test_the_spec_keeps_the_numbered_sections_the_code_cites():
    found = sections(spec_text())
    assert {str(n) for n in range(1, 13)} <= found, sorted(found)
    assert {"1.3", "2", "5.3", "6.2", "7.3", "7.4", "8.1", "8.2", "9.4", "10.4", "11.3"} <= found


def test_every_invariant_id_is_defined_with_its_meaning_and_section():
    rows = table_after(spec_text(), "### 9.4 ")
    assert set(rows) == set(INVARIANTS), (set(INVARIANTS) ^ set(rows))
    found = sections(spec_text())
    for invariant, (meaning, where) in rows.items():
        assert len(meaning) > 10, invariant
        cited = SECTION.findall(where)
        assert cited and set(cited) <= found, (invariant, where)


def test_every_promise_is_defined():
    rows = table_after(spec_text(), "### 8.1 ")
    assert set(rows) == {f.name for f in fields(Promises)}, (set(rows) ^ {f.name for f in fields(Promises)})
    for name, (values, meaning) in rows.items():
        assert values and meaning, name


def test_every_citation_of_a_section_names_one_that_exists():
    found = sections(spec_text())
    cited = {(str(path.relative_to(ROOT)), s) for path in citing_files()
             for s in citations(path.read_text(encoding="utf-8", errors="replace"))}
    assert len(cited) > 50  # the package cites the spec all over: an empty scan would prove nothing
    missing = sorted((path, s) for path, s in cited if s not in found)
    assert not missing, missing
    inside = set(SECTION.findall(spec_text()))  # the page's own cross-references
    assert inside - found == set(), sorted(inside - found)


def test_no_citation_points_outside_the_repository():
    outside = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}" for path in citing_files()
               for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1)
               if OUTSIDE.search(line)]
    assert not outside, outside


def test_a_broken_citation_or_a_missing_id_is_caught():
    text = spec_text()
    assert citations("see docs/SPEC.md §6.2, §8.1 and SPEC.md §3-§8") == ["6.2", "8.1", "3", "8"]
    assert "99" not in sections(text) and citations("docs/SPEC.md §99") == ["99"]
    shortened = text.replace("| `H7` |", "| H7 |")
    assert set(INVARIANTS) - set(table_after(shortened, "### 9.4 ")) == {"H7"}
