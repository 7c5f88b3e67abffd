"""The ready-to-file reports beside the kept bugs (`examples/*-findings/<name>.md`, one per finding whose verdict is
"bug"): each holds its exported test inline, between two markers, exactly as `assigncheck export` writes it today.

    python -m tests.findings.reports          # rewrite every report's inline test from a fresh export

`tests/findings/test_filed_reports.py` holds each report's inline test to the export."""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

from tests.findings.exports import BUGS, Kept, export
from tests.paths import ROOT

BEGIN = re.compile(r"<!-- exported test: (?P<path>\S+) -->\n```(?P<lang>\w+)\n")
END = "```\n<!-- end of the exported test -->"
FENCE = {"junit": "java", "go": "go", "pytest": "python", "node": "javascript"}
BUILD = {"pom.xml", "go.mod", "go.sum", "package.json", "package-lock.json"}


def inline(report: str) -> tuple[str, str] | None:
    """(the test's path in the exported directory, its text) as the report holds it; None when it holds none."""
    found = BEGIN.search(report)
    if found is None:
        return None
    end = report.index(END, found.end())
    return found.group("path"), report[found.end():end]


def exported(kept: Kept) -> tuple[str, str]:
    """(path, text) of the test `assigncheck export` writes for the finding today (its build files left out)."""
    assert kept.language is not None
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        files = [p for p in export(kept.path, kept.language, out) if p.name not in BUILD]
        (test,) = files
        return str(test.relative_to(out)), test.read_text()


def block(kept: Kept, path: str, text: str) -> str:
    assert kept.language is not None
    return f"<!-- exported test: {path} -->\n```{FENCE[kept.language]}\n{text}{END}"


def refresh(kept: Kept) -> bool:
    """Rewrite the report's inline test from a fresh export; whether it changed."""
    report = kept.report.read_text()
    held = inline(report)
    if held is None:
        return False
    path, text = exported(kept)
    start = BEGIN.search(report)
    assert start is not None
    end = report.index(END, start.end()) + len(END)
    new = report[:start.start()] + block(kept, path, text) + report[end:]
    if new != report:
        kept.report.write_text(new)
    return new != report


def main() -> int:
    changed = [k.report.relative_to(ROOT) for k in BUGS if k.report.exists() and refresh(k)]
    for path in changed:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
