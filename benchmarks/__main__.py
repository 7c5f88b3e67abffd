"""`make bench`: run every `benchmarks/bench_*.py` module's `run(quick)` and print one table.

Targets are ratios against a peer measured in the same run (or an absolute budget where there is no
peer); nothing here is a test. Each module's rows go to its results file, `benchmarks/results/<module>.json`
(`benchmarks.record`), as soon as it finishes; `python -m benchmarks.figures` renders the docs' tables from
them. A module keeps its last `KEEP_RUNS` runs there (1 unless it says otherwise, and why, in `KEEP_WHY`); one
with `RECORDS_ITSELF` writes its own results file.
`--quick` runs smaller sizes and writes nothing: its figures are not the ones the docs report.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys

import benchmarks
from benchmarks import record

COLUMNS = ("scenario", "subject", "ms", "peer", "peer_ms", "speedup", "peak_mib", "goal", "ok")


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run (writes nothing)")
    parser.add_argument("only", nargs="*", help="module names (e.g. bench_constrained) to run")
    args = parser.parse_args()
    known = sorted(i.name for i in pkgutil.iter_modules(benchmarks.__path__) if i.name.startswith("bench_"))
    unknown = [n for n in args.only if n not in known]
    if unknown:
        parser.exit(2, f"python -m benchmarks: error: no benchmark module {', '.join(unknown)} "
                       f"(known: {', '.join(known)})\n")
    rows = []
    for name in known:
        if args.only and name not in args.only:
            continue
        module = importlib.import_module(f"benchmarks.{name}")
        print(f"== {name}", file=sys.stderr, flush=True)
        run = record.begin()
        mine = []
        for r in module.run(args.quick):
            mine.append(r)
            print(json.dumps(r), file=sys.stderr, flush=True)
        rows += mine
        if not args.quick and not getattr(module, "RECORDS_ITSELF", False):
            where = record.save(name, run.finish(mine), keep=getattr(module, "KEEP_RUNS", 1),
                                why=getattr(module, "KEEP_WHY", ""))
            print(f"== {name}: {where.relative_to(record.ROOT)}", file=sys.stderr, flush=True)
    from rich.console import Console
    from rich.table import Table

    table = Table(title="assigncheck benchmarks")
    for col in COLUMNS:
        table.add_column(col)
    for r in rows:
        table.add_row(*("" if r.get(c) is None else str(r[c]) for c in COLUMNS))
    Console().print(table)
    return 0 if all(r.get("ok") is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
