"""`cooperative-sticky` at KIP-615's 2100 consumers x 2100 partitions (one topic), cooperative protocol: fresh,
and after one member leaves and one joins (owned := the settled assignment, next generation). Kafka's
CooperativeStickyAssignor on the same shapes is measured by `bench_java`, in its own JVM, and franz-go's
cooperative balancer by `bench_franz_go`.

CPU time, min of the repeats, a fresh `Problem` per repeat (its derived-data cache starts cold, as in a real
rebalance). Every output is checked by the spec (H1-H6, the assignor's promises).
"""

from __future__ import annotations

from functools import partial

from assigncheck.spec.assignment_check import check_assignment
from assigncheck.targets import registry
from benchmarks.bench_constrained import churn, uniform
from benchmarks.harness import best_time, row


def run(quick: bool) -> list[dict]:
    size = 300 if quick else 2100
    coop = registry.get("cooperative-sticky")
    fresh = uniform(size, 1, size).replace(protocol="cooperative")
    settled = registry.get("sticky-constrained").assign(fresh)
    shapes = {f"{size}x{size} fresh": fresh, f"{size}x{size} 1 leaves + 1 joins": churn(fresh, settled)}
    rows = []
    for scenario, problem in shapes.items():
        seconds, out = best_time(partial(coop.assign, problem), repeat=5)
        report = check_assignment(problem, out, coop.promises)
        note = f"withheld {report.quality['withheld']}; " + (
            "passes the spec's checks" if report.ok else "; ".join(v.invariant for v in report.violations))
        rows.append(row(scenario, "cooperative-sticky", seconds, goal="correct", ok=report.ok, note=note))
    return rows
