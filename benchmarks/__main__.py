"""`make bench`: run every `benchmarks/bench_*.py` module's `run(quick)` and print one table.

Targets are ratios against a peer measured in the same run (or an absolute budget where there is no
peer); nothing here is a test. Results also go to `results.json` beside this module (not kept in git).
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
from pathlib import Path

import benchmarks
from assigncheck.formats.documents import write_atomic


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument("only", nargs="*", help="module names (e.g. bench_constrained) to run")
    args = parser.parse_args()
    rows = []
    by_module: dict[str, list[dict]] = {}
    for info in sorted(pkgutil.iter_modules(benchmarks.__path__), key=lambda i: i.name):
        if not info.name.startswith("bench_") or (args.only and info.name not in args.only):
            continue
        module = importlib.import_module(f"benchmarks.{info.name}")
        print(f"== {info.name}", file=sys.stderr, flush=True)
        for r in module.run(args.quick):
            rows.append(r)
            by_module.setdefault(info.name, []).append(r)
            print(json.dumps(r), file=sys.stderr, flush=True)
    from rich.console import Console
    from rich.table import Table

    table = Table(title="assigncheck benchmarks")
    for col in ("scenario", "subject", "ms", "peer", "peer_ms", "speedup", "peak_mib", "goal", "ok"):
        table.add_column(col)
    for r in rows:
        table.add_row(*("" if r[c] is None else str(r[c]) for c in
                        ("scenario", "subject", "ms", "peer", "peer_ms", "speedup", "peak_mib", "goal", "ok")))
    Console().print(table)
    # Keep the other modules' last results: running one module replaces only its own rows.
    path = Path(__file__).with_name("results.json")
    previous = json.loads(path.read_text()) if path.exists() else {}
    previous = previous if isinstance(previous, dict) else {}
    write_atomic(path, json.dumps({**previous, **by_module}, indent=1, sort_keys=True) + "\n")
    return 0 if all(r["ok"] is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
