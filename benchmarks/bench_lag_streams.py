"""`lag` and `streams-sticky` (impl/) against the spec's plain references on large shapes, same run.

- lag: 1000 consumers x 10 000 partitions over 100 topics, each consumer 1-20 random topics, random
  offsets (10% without a commit, auto.offset.reset=earliest); and x 200 000 partitions (about 20 laps
  per topic). At 10 000 both sides spend most of their time building the `Assignment` (one read-only
  array per member and topic), so the ratio is small there.
- streams: 1000 tasks over 20 sub-topologies, 100 clients of capacity 1-4; previous actives for 90%
  of the tasks and some standbys (a rebalance, not a fresh start); and the same with no history;
  then 10 000 tasks over 50 sub-topologies and 1000 clients, both ways.
ok = the fast output equals the reference's (they promise `exact`). The reference runs once.
"""

from __future__ import annotations

from functools import partial

from assigncheck.impl.lag import LagAssignor
from assigncheck.impl.streams import StreamsStickyAssignor
from assigncheck.spec.reference import REFERENCES
from benchmarks.harness import best_time, peak_mib, row
from benchmarks.sticky_shapes import random_subscriptions, streams_problem, with_lag


def _compare(scenario: str, subject, reference, problem) -> dict:  # noqa: ANN001
    seconds, out = best_time(partial(subject.assign, problem))
    ref_seconds, expected = best_time(partial(reference.assign, problem), repeat=1)
    return row(scenario, subject.name, seconds, peer=f"spec reference {reference.name}", peer_seconds=ref_seconds,
               goal="== reference, faster", ok=out == expected and seconds < ref_seconds,
               peak=peak_mib(lambda: subject.assign(problem)), note=f"equal to reference: {out == expected}")


def run(quick: bool) -> list[dict]:
    rows = []
    for members, partitions in ([(200, 2000)] if quick else [(1000, 10_000), (1000, 200_000)]):
        lag_problem = with_lag(random_subscriptions(members, 100, partitions, 20, seed=3), seed=4)
        rows.append(_compare(f"lag {members}x{partitions}", LagAssignor(), REFERENCES["lag"], lag_problem))
    for clients, subtopologies, tasks in ([(20, 20, 200)] if quick else [(100, 20, 1000), (1000, 50, 10_000)]):
        for previous in (True, False):
            problem = streams_problem(clients, subtopologies, tasks, seed=5, previous=previous)
            label = "rebalance" if previous else "fresh"
            rows.append(_compare(f"streams {tasks} tasks/{clients} clients {label}", StreamsStickyAssignor(),
                                 REFERENCES["streams"], problem))
    return rows
