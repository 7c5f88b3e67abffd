"""`python -m benchmarks.figures [--check] [DOC ...]`: render the docs' tables from the results files.

Without `--check`, every table between `<!-- figures: NAME -->` and `<!-- /figures -->` in README.md and
docs/*.md (or the DOCs given) is rewritten from `benchmarks/results/`. With `--check` nothing is written: the
exit code is 1 when a table disagrees with its results files, a marker names a table that reads a results file
that does not exist (or no table at all), or a results file lacks its command, date, commit or load; each is
named on its own line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks import record
from benchmarks.figures.markers import docs, render
from benchmarks.figures.source import Missing, read_runs


def results_problems(results: Path) -> list[str]:
    """Every results file in `results` whose runs lack part of their frame."""
    problems = []
    for path in sorted(results.glob("*.json")):
        try:
            read_runs(path.stem, results)
        except Missing as missing:
            problems.append(str(missing))
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.figures", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 naming each table that disagrees")
    parser.add_argument("--results", type=Path, default=record.RESULTS, help="the results files' folder")
    parser.add_argument("doc", nargs="*", type=Path, help="documents to render (default: README.md, docs/*.md)")
    args = parser.parse_args(argv)
    if not args.results.is_dir():
        parser.exit(2, f"python -m benchmarks.figures: --results: {args.results} is not a folder\n")
    missing = [d for d in args.doc if not d.is_file()]
    if missing:
        parser.exit(2, f"python -m benchmarks.figures: doc: {missing[0]} is not a file\n")
    problems = results_problems(args.results)
    stale: list[str] = []
    for doc in [d.resolve() for d in args.doc] or docs():
        outcome = render(doc, args.results)
        problems += outcome.problems
        stale += outcome.stale
        if not args.check and outcome.stale:
            doc.write_text(outcome.text)
    for line in problems:
        print(line, file=sys.stderr)
    if args.check:
        for line in stale:
            print(f"{line}: run `python -m benchmarks.figures`", file=sys.stderr)
        return 1 if problems or stale else 0
    for line in stale:
        print(f"rendered {line.split(' disagrees')[0]}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
