"""General `sticky` (impl/sticky.py) at the issue's sizes, against kafka-python 3.0.12's StickyPartitionAssignor.

Shapes (seeded, `benchmarks/sticky_shapes.py`):
- 1000 consumers x 10 000 partitions over 100 topics, each consumer 1-20 random topics: fresh, then
  after 10% re-subscribe and 5% leave (owned := the fresh output, generation 1). Goal: <= 1 s with
  optimal balance (Σcount² equal to `spec.oracle.optimal_sum_squares`) and, after churn, retained
  equal to `spec.oracle.max_retained(problem, "optimal")`.
- kafka-python needs minutes at that size on a shared machine, so it is compared, in the same run, on
  the same construction at 200 consumers x 2000 partitions (run once: it is slow).
- 2100 x 2100 with one consumer also subscribing a 1-partition topic (forces Kafka's general path).
Peak memory is tracemalloc's Python-heap peak of one call (OR-Tools' C++ heap is not traced).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from assigncheck.impl.sticky import StickyAssignor
from assigncheck.spec import balance, oracle, stickiness
from assigncheck.spec.model import Assignment, Problem
from benchmarks.harness import best_time, peak_mib, row
from benchmarks.sticky_shapes import churn, forcing_general, random_subscriptions

STICKY = StickyAssignor()


def _kafka_python() -> Callable[[Problem], Assignment]:
    from assigncheck.impl.targets.python_libs import load

    return load("kafka-python", "sticky").assign


def _optimal(problem: Problem, out: Assignment, sticky: bool) -> tuple[bool, str]:
    got, best = balance.sum_squares(problem, out), oracle.optimal_sum_squares(problem)
    note = f"sum_squares {got} (optimum {best}), spread {balance.spread(problem, out)}"
    ok = got == best
    if sticky:
        kept, most = stickiness.retained(problem, out), oracle.max_retained(problem, "optimal")
        note += f", retained {kept} (max {most})"
        ok = ok and kept == most
    return ok, note


def _shapes(members: int, partitions: int) -> list[tuple[str, Problem, bool]]:
    fresh = random_subscriptions(members, 100, partitions, 20, seed=1)
    after = churn(fresh, STICKY.assign(fresh), resubscribe=0.10, leave=0.05, seed=2, max_topics=20)
    return [(f"{members}x{partitions} fresh", fresh, False), (f"{members}x{partitions} churn", after, True)]


def run(quick: bool) -> list[dict]:
    rows = []
    big = (200, 2000) if quick else (1000, 10_000)
    for scenario, problem, sticky in _shapes(*big):
        seconds, out = best_time(partial(STICKY.assign, problem))
        ok, note = _optimal(problem, out, sticky)
        rows.append(row(scenario, "sticky", seconds, goal="<= 1000 ms, optimal", ok=ok and seconds <= 1.0,
                        peak=peak_mib(lambda p=problem: STICKY.assign(p)), note=note))
    peer = _kafka_python()
    small = (60, 600) if quick else (200, 2000)
    shapes = _shapes(*small) + ([] if quick else [("2100x2100 forcing general", forcing_general(), False)])
    for scenario, problem, sticky in shapes:
        seconds, out = best_time(partial(STICKY.assign, problem))
        peer_seconds, peer_out = best_time(partial(peer, problem), repeat=1)
        ok, note = _optimal(problem, out, sticky)
        _, peer_note = _optimal(problem, peer_out, sticky)
        rows.append(row(scenario, "sticky", seconds, peer="kafka-python sticky", peer_seconds=peer_seconds,
                        goal="faster, optimal", ok=ok and seconds < peer_seconds,
                        peak=peak_mib(lambda p=problem: STICKY.assign(p)),
                        note=f"{note}; kafka-python: {peer_note}"))
    return rows
