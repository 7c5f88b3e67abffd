"""Small problems: one assign plus the full check (`run.assignor_check.check_assignor`: H1-H8, the target's
promises with the oracle, determinism, order independence, fixpoint, exact, cooperative rounds) per CPU second,
for every built-in consumer assignor, on the `small` campaign profile (<= 8 members, <= 32 partitions; junk
claims, mixed generations, racks, static members, lag, cooperative groups). Goal: >= 2,000 per CPU second.

Each problem is generated anew for each target (a fresh object: `Problem.derived` caches per object); 50 other
problems run first, so one-time costs (lazy imports, first calls) are not counted in the steady rate.
"""

from __future__ import annotations

import time

from assigncheck.generate.seeded import generate
from assigncheck.run.assignor_check import check_assignor
from assigncheck.run.gc import freeze_loaded
from assigncheck.targets import registry
from benchmarks.harness import row

KEEP_RUNS = 3
KEEP_WHY = "the docs report each rate as the range over the last three runs"

TARGETS = ["range", "roundrobin", "sticky-constrained", "sticky-constrained-4phase", "sticky", "cooperative-sticky",
           "lag"]


def throughput(name: str, count: int, seed: int = 17) -> tuple[float, int]:
    """(CPU seconds per problem, problems with a violation) over `count` small problems."""
    assignor = registry.get(name)
    for k in range(50):  # warm-up on other problems: lazy imports and first calls are not the steady rate
        check_assignor(assignor, generate("small", seed + 1, 0, k), budget_s=None)
    problems = [generate("small", seed, 0, k) for k in range(count)]
    freeze_loaded()  # as the gate's stages do once their target is loaded
    bad = 0
    start = time.process_time()
    for problem in problems:
        _, report = check_assignor(assignor, problem, budget_s=None)
        bad += not report.ok
    return (time.process_time() - start) / count, bad


def run(quick: bool) -> list[dict]:
    count = 200 if quick else 1000
    rows = []
    for name in TARGETS:
        per, bad = throughput(name, count)
        rate = 1 / per
        rows.append(row("assign + check_assignor, small profile (CPU)", name, per, goal=">= 2,000 per CPU second",
                        ok=rate >= 2000 and bad == 0,
                        note=f"{rate:,.0f} per CPU second over {count}; {bad} with a violation",
                        per_cpu_second=round(rate), problems=count, violations=bad))
    return rows
