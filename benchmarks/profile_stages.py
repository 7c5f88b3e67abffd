"""Where one assign call's time goes, stage by stage: each stage timed alone on fresh problems (CPU ms, min of 9),
for the scenarios of `docs/PERFORMANCE.md`. Each run goes to the results file `benchmarks/results/profile_stages.json`
(the last three runs). A few minutes on 2 cores.

    python -m benchmarks.profile_stages
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from assigncheck.impl import sticky as general
from assigncheck.impl.constrained import ConstrainedLayout
from assigncheck.impl.cooperative import withhold
from assigncheck.impl.flow import banded, count_floor, rack_costs, solve_counts
from assigncheck.impl.range import subscriber_positions
from assigncheck.impl.sticky_pairs import pair_table
from assigncheck.spec.model import Assignment, Problem, TopicTable
from assigncheck.spec.ownership import valid_claims
from assigncheck.targets import registry
from benchmarks.bench_constrained import churn as leave_and_join
from benchmarks.bench_constrained import uniform
from benchmarks.bench_sticky import STICKY, _shapes, membership_shapes
from benchmarks.ortools_flow import ortools_banded


def best_ms(fn: Callable[[Any], Any], make: Callable[[], Any], repeat: int = 9) -> float:
    """Min CPU ms of `fn(make())` over `repeat` calls, each on a new `make()` made outside the timed region."""
    best = float("inf")
    for _ in range(repeat):
        arg = make()
        start = time.process_time()
        out = fn(arg)
        best = min(best, time.process_time() - start)
        del out  # freed outside the timed region
    return round(best * 1000, 2)


def numpy_calls(fn: Callable[[Any], Any], arg: Any) -> int:
    """How many numpy functions and methods one `fn(arg)` calls (each costs microseconds whatever its size);
    the arithmetic and indexing between them come on top."""
    calls = 0

    def count(frame: Any, event: str, called: Any) -> None:
        nonlocal calls
        if event == "c_call" and "numpy" in str(getattr(called, "__module__", None)
                                             or type(getattr(called, "__self__", None)).__module__):
            calls += 1

    sys.setprofile(count)
    try:
        fn(arg)
    finally:
        sys.setprofile(None)
    return calls


def _general(problem: Problem) -> dict[str, float]:
    pairs = pair_table(problem.replace())
    sizes, owned = pairs.node_size.astype(np.int64), pairs.pair_owned.astype(np.int64)
    reach = np.bincount(pairs.pair_member, weights=sizes[pairs.pair_topic], minlength=pairs.members).astype(np.int64)
    bound, rack_cost = count_floor(sizes, pairs.pair_topic, reach), rack_costs(sizes, pairs.pair_mismatch)
    network = (sizes, pairs.pair_topic, pairs.pair_member, owned, reach, bound, rack_cost)
    ours = (sizes, pairs.pair_topic, pairs.pair_member, owned, pairs.pair_mismatch, pairs.members, bound)

    def flow(_: object) -> object:
        return solve_counts(pairs.node_size, pairs.pair_topic, pairs.pair_member, pairs.pair_owned, pairs.members,
                            pairs.pair_mismatch)

    return {"valid claims": best_ms(valid_claims, problem.replace),
            "pair table (valid claims in it)": best_ms(pair_table, problem.replace),
            "flow": best_ms(flow, lambda: None),
            "its banded network: ours": best_ms(lambda _: banded(*ours), lambda: None),
            "OR-Tools": best_ms(lambda _: ortools_banded(*network), lambda: None),
            "whole assign": best_ms(general.assign_general_sticky, problem.replace),
            "numpy calls": numpy_calls(general.assign_general_sticky, problem.replace())}


class _Out:
    """The least an output per member can be: one object of five slots (a `PartitionSet` sets five too)."""

    __slots__ = ("a", "b", "c", "d", "e")


def python_floor(problem: Problem) -> None:
    """What any Python assignor of this design does per member, and nothing else: read each member's id, claims and
    subscription once, sort the ids, and make one output object per member, keyed by id."""
    ids = [m.member_id for m in problem.members]
    order = sorted(range(len(ids)), key=ids.__getitem__)
    len(set(m.subscription for m in problem.members))
    sum(m.owned.count for m in problem.members)
    new, out = _Out.__new__, []
    for i in order:
        o = new(_Out)
        o.a = o.b = o.c = o.d = o.e = i
        out.append(o)
    dict(zip(map(ids.__getitem__, order), out))


def measure() -> list[dict[str, Any]]:
    """One row per (assignor, scenario): each stage's CPU ms (or count) by name."""
    rows = []
    for name, problem, _ in (_shapes(200, 100, 2000) + _shapes(1000, 100, 10_000)
                             + membership_shapes(1000, 100, 10_000) + _shapes(5000, 500, 1_000_000)):
        rows.append({"assignor": "sticky", "scenario": name, "stages": _general(problem)})
    constrained, coop = registry.get("sticky-constrained"), registry.get("cooperative-sticky")
    fresh = uniform(2100, 1, 2100)
    moved = leave_and_join(fresh, constrained.assign(fresh)).replace(protocol="cooperative")
    for name, problem in (("2100x2100 fresh", fresh), ("2100x2100 1 leaves + 1 joins", moved)):
        rows.append({"assignor": "sticky-constrained", "scenario": name, "stages": {
            "valid claims": best_ms(valid_claims, problem.replace),
            "compiled placement and output": best_ms(constrained.place_large, problem.replace),
            "whole assign": best_ms(constrained.assign, problem.replace),
            "four-phase variant's layout": best_ms(ConstrainedLayout.of, problem.replace)}})
    for name, problem, _ in _shapes(200, 100, 2000):  # the general path's cooperative round, the eager step with it
        round_ = problem.replace(protocol="cooperative")
        rows.append({"assignor": "cooperative-sticky", "scenario": name, "stages": {
            "eager": best_ms(STICKY.assign, round_.replace), "whole assign": best_ms(coop.assign, round_.replace)}})
    both = best_ms(lambda q: withhold(q, constrained.assign(q)), moved.replace)
    rows.append({"assignor": "cooperative-sticky", "scenario": "2100x2100 1 leaves + 1 joins", "stages": {
        "eager": best_ms(constrained.assign, moved.replace), "eager + withhold": both,
        "whole assign": best_ms(coop.assign, moved.replace)}})
    rows.append({"assignor": "roundrobin", "scenario": "2100x2100 fresh", "stages": {
        "subscribers": best_ms(subscriber_positions, fresh.replace),
        "whole assign": best_ms(registry.get("roundrobin").assign, fresh.replace)}})
    positions, topic, ids = np.arange(2100), np.zeros(2100, dtype=np.int64), [f"m{i:04d}" for i in range(2100)]
    table = TopicTable.of(("t",))
    rows.append({"assignor": "Assignment.from_rows", "scenario": "2100 members of one partition", "stages": {
        "whole": best_ms(lambda _: Assignment.from_rows(ids, positions, table, topic, positions), lambda: None)}})
    rows.append({"assignor": "sticky", "scenario": "2100x2100 fresh", "stages": {
        "whole assign": best_ms(STICKY.assign, fresh.replace),
        # each member read once, ids sorted, one object each: what any Python assignor of this design pays
        "python floor": best_ms(python_floor, fresh.replace)}})
    return rows


def main() -> None:
    from benchmarks import record

    started = record.begin()
    rows = []
    for r in measure():
        rows.append(r)
        print(f"{r['assignor']} {r['scenario']}: " + ", ".join(f"{k} {v}" for k, v in r["stages"].items()), flush=True)
    record.save("profile_stages", started.finish(rows), keep=KEEP_RUNS, why=KEEP_WHY)


KEEP_RUNS = 3
KEEP_WHY = "the docs report each stage's figure as the least of the last three runs (the stages are timed warm)"


if __name__ == "__main__":
    main()
