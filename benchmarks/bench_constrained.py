"""Constrained sticky (both variants) against kafka-python 3.0.12's sticky assignor, same run, same problems.

Goals: 2100 consumers x 2100 partitions (1 topic), fresh and after 1 leaves + 1 joins:
<= 10 ms and >= 300x faster than kafka-python's sticky; 2000 consumers x 1 M partitions (500 topics x
2000), second round with owned: <= 2 s. The 1 M rows also time the two shared steps every assignor pays
for, `spec.ownership.valid_owned` and `Assignment(...)` construction, so the report says where time goes.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from assigncheck.spec.model import Assignment, Member, Problem
from assigncheck.spec.ownership import valid_owned
from assigncheck.spec.rounds import next_round
from assigncheck.targets import registry

from .harness import best_time, peak_mib, row

SUBJECTS = ("sticky-constrained", "sticky-constrained-4phase")


def uniform(consumers: int, topics: int, partitions: int) -> Problem:
    names = {f"topic{t:04d}": partitions for t in range(topics)}
    sub = frozenset(names)
    return Problem(names, tuple(Member(f"consumer{i:05d}", sub) for i in range(consumers)))


def churn(problem: Problem, out: Assignment) -> Problem:
    """The settled group (claims = `out`, next generation), then the first member leaves and one joins."""
    settled = next_round(problem, out)
    joiner = Member("consumer99999", settled.members[0].subscription)
    return settled.replace(members=settled.members[1:] + (joiner,))


def _small(quick: bool) -> list[dict[str, Any]]:
    size = 300 if quick else 2100
    fresh = uniform(size, 1, size)
    shapes = {f"{size}x{size} fresh": fresh,
              f"{size}x{size} 1 leaves + 1 joins": churn(fresh, registry.get("sticky-constrained").assign(fresh))}
    peer = registry.load_target("kafka-python:sticky")
    rows = []
    for scenario, problem in shapes.items():
        peer_s, _ = best_time(partial(peer.assign, problem), repeat=1)
        for name in SUBJECTS:
            assignor = registry.get(name)
            s, _ = best_time(partial(assignor.assign, problem), repeat=5)
            ok = s <= 0.010 and peer_s / s >= 300
            rows.append(row(scenario, name, s, peer=peer.name, peer_seconds=peer_s, goal="<=10 ms, >=300x",
                            ok=ok, peak=peak_mib(partial(assignor.assign, problem))))
        rows += _shared_steps(scenario, problem, registry.get("sticky-constrained").assign(problem))
    return rows


def _shared_steps(scenario: str, problem: Problem, out: Assignment) -> list[dict[str, Any]]:
    """`valid_owned` and building the output: what every sticky assignor pays before and after its own work."""
    vo_s, _ = best_time(partial(valid_owned, problem), repeat=3)
    rows_of = [(i, *out.get(m).rows()) for i, m in enumerate(problem.member_ids)]
    member_row = np.concatenate([np.full(len(ix), i) for i, _, ix in rows_of])
    topic_row = np.concatenate([c for _, c, _ in rows_of])
    index_row = np.concatenate([ix for _, _, ix in rows_of])
    table = out.get(problem.member_ids[0]).table
    build = partial(Assignment.from_rows, problem.member_ids, member_row, table, topic_row, index_row)
    build_s, _ = best_time(build, repeat=3)
    return [row(scenario, "spec.ownership.valid_owned", vo_s, note="inside every sticky assign"),
            row(scenario, "Assignment.from_rows", build_s, note=f"{len(index_row)} rows, {len(rows_of)} members")]


def _large(quick: bool) -> list[dict[str, Any]]:
    consumers, topics = (200, 50) if quick else (2000, 500)
    fresh = uniform(consumers, topics, 2000)
    scenario = f"{consumers}x{topics * 2000} second round with owned"
    rows = []
    for name in SUBJECTS:
        assignor = registry.get(name)
        first = assignor.assign(fresh)
        second = next_round(fresh, first)
        s, out = best_time(partial(assignor.assign, second), repeat=1)
        rows.append(row(scenario, name, s, goal="<=2 s", ok=s <= 2.0, note="fixpoint" if out == first else "CHANGED"))
    rows += _shared_steps(scenario, second, first)
    rows.append(row(scenario, "sticky-constrained (peak memory)", 0.0,
                    peak=peak_mib(partial(registry.get("sticky-constrained").assign, second))))
    return rows


def run(quick: bool) -> list[dict[str, Any]]:
    return _small(quick) + _large(quick)
