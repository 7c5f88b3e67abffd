"""`cooperative-sticky` at KIP-615's 2100 consumers x 2100 partitions (one topic), cooperative protocol: fresh,
and after one member leaves and one joins (owned := the settled assignment, next generation). Kafka's
CooperativeStickyAssignor on the same shapes is measured by `bench_java`, in its own JVM.

Peer in the same run: the same assignor with `withhold` as it was at commit 5cfb106 (a loop over members,
`benchmarks/frozen/withhold_5cfb106.py`). CPU time, min of the repeats, a fresh `Problem` per repeat (its
derived-data cache starts cold, as in a real rebalance).
"""

from __future__ import annotations

from functools import partial

from assigncheck.impl import registry
from assigncheck.impl.cooperative import withhold
from assigncheck.spec.model import Problem
from benchmarks.bench_constrained import churn, uniform
from benchmarks.frozen.withhold_5cfb106 import withhold as old_withhold
from benchmarks.harness import best_time, row


def _old(problem: Problem):
    eager = registry.get("sticky-constrained").assign(problem)
    return old_withhold(problem, eager)


def run(quick: bool) -> list[dict]:
    size = 300 if quick else 2100
    coop = registry.get("cooperative-sticky")
    fresh = uniform(size, 1, size).replace(protocol="cooperative")
    settled = registry.get("sticky-constrained").assign(fresh)
    shapes = {f"{size}x{size} fresh": fresh, f"{size}x{size} 1 leaves + 1 joins": churn(fresh, settled)}
    rows = []
    for scenario, problem in shapes.items():
        seconds, out = best_time(partial(coop.assign, problem), repeat=5)
        peer_seconds, peer_out = best_time(partial(_old, problem), repeat=3)
        same = out == peer_out and out == withhold(problem, registry.get("sticky-constrained").assign(problem))
        rows.append(row(scenario, "cooperative-sticky", seconds, peer="withhold@5cfb106", peer_seconds=peer_seconds,
                        goal="faster than the loop (Kafka's: see bench_java)", ok=same and seconds < peer_seconds,
                        note="same output" if same else "OUTPUT DIFFERS"))
    return rows
