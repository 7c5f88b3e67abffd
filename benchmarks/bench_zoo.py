"""`make bench`: the bug zoo through every gate stage, and the mutation score of `impl/` (benchmarks/zoo).

Full run: every zoo entry x every stage, the unbroken built-ins as controls, and mutation testing of the
constrained, four-phase, cooperative, round-robin and range modules. `--quick`: the `properties` stage
only and no mutation run, and nothing is written (the results files keep the last full run). The full run
writes `benchmarks/zoo/RESULTS.md` and `benchmarks/zoo/results.json`.
"""

from __future__ import annotations

from typing import Any

from benchmarks.harness import row
from benchmarks.zoo.measure import GOAL_MEDIAN_S, GOAL_MUTATION_SCORE, measure_all


def run(quick: bool) -> list[dict[str, Any]]:
    mutation = None
    if not quick:
        from benchmarks import mutation as mut

        mutation = mut.measure(list(mut.MODULES), jobs=2)
    doc = measure_all(["properties"] if quick else None, mutation=mutation, write=not quick)
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
