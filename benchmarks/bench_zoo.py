"""`make bench`: the bug zoo through every gate stage, and the mutation score of `impl/` (benchmarks/zoo).

Full run: every zoo entry x every stage and the unbroken built-ins as controls; the mutation score is the last
`python -m benchmarks.mutation` run's (over an hour on 2 cores: it has its own results file). `--quick`: the
`properties` stage only, and nothing is written (the results files keep the last full run). The full run writes
`benchmarks/zoo/RESULTS.md`, `benchmarks/zoo/results.json` and the results file `benchmarks/results/zoo.json`.
"""

from __future__ import annotations

from typing import Any

from benchmarks.harness import row
from benchmarks.zoo.measure import GOAL_MEDIAN_S, GOAL_MUTATION_SCORE, measure_all

RECORDS_ITSELF = True  # `measure_all` writes results/zoo.json, the file `python -m benchmarks.zoo.measure` writes


def run(quick: bool) -> list[dict[str, Any]]:
    doc = measure_all(["properties"] if quick else None, write=not quick)
    return rows_of(doc)


def rows_of(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """`make bench` rows: one per zoo entry and control, the median, and the mutation score."""
    rows = []
    for e in doc["entries"]:
        g = e["gate"]
        rows.append(row(f"zoo {e['module']}", "quick gate", g["seconds"], goal="caught", ok=g["caught"],
                        note=f"{g['stage']}: {g['invariant']}" if g["caught"] else "escaped"))
    for c in doc["controls"]:
        rows.append(row(f"zoo control {c['target']}", "quick gate", c["gate"]["seconds"], goal="passes",
                        ok=not c["gate"]["caught"]))
    s = doc["summary"]
    median = s["gate_median_seconds"]
    rows.append(row("zoo median time to counterexample", "quick gate", median or 0.0,
                    goal=f"<= {GOAL_MEDIAN_S:g} s", ok=s["goal_median"],
                    note=f"caught {s['gate_caught']}/{s['entries']}"))
    m = doc["mutation"]
    if m and m.get("score") is not None:
        rows.append(row("mutation score impl/", "quick gate", m["seconds"], goal=f">= {GOAL_MUTATION_SCORE:.0%}",
                        ok=m["score"] >= GOAL_MUTATION_SCORE,
                        note=f"{m['killed']}/{m['mutants']} killed ({m.get('generated', '')})"))
    return rows
