"""General `sticky` (impl/sticky.py) on its goal scenarios, and at 200 x 2000 against kafka-python 3.0.12's
StickyPartitionAssignor in the same run.

CPU time (`time.process_time`), min of the repeats, a fresh `Problem` per repeat (`harness.best_time`).
franz-go, the speed peer these shapes come from, runs in the same run in `bench_franz_go`, Kafka's Java
StickyAssignor in `bench_java` (kafka-python takes seconds already at 200 x 2000). Every output is checked
against the spec's oracle: Σcount² equal to `spec.oracle.optimal_sum_squares` and, with claims, retained equal to
`max_retained(problem, "optimal")`.

Shapes (seeded, `benchmarks/sticky_shapes.py`):
- 1000 consumers x 10 000 partitions over 100 topics, each consumer 1-20 random topics: fresh, then after 10%
  re-subscribe and 5% leave (owned := the fresh output, generation 1); the same at 200 x 2000;
- the same 1000 x 10 000 after a membership change only (5% leave; or 5% join), the common rebalance: the flow
  (impl/min_cost_flow.py) starts from every claim kept and only moves what the change forces;
- 5000 x 1 M over 500 topics, each consumer 1-20 random topics, fresh and churned the same way;
- 2100 x 2100 on one topic (equal subscriptions) and 2100 x 2101 forcing the general path;
- 2000 x 1 M (500 topics x 2000), second round: each member owns partition i of every topic (the shape
  Kafka's first round leaves), from the JSON document (parse included) and from the model.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from functools import partial

import numpy as np

from assigncheck.formats.documents import problem_from_json, problem_to_json
from assigncheck.formats.json_input import parse_json
from assigncheck.impl.sticky import StickyAssignor
from assigncheck.spec import balance, oracle, stickiness
from assigncheck.spec.model import Assignment, Member, Problem, index_array
from benchmarks.harness import best_time, row
from benchmarks.sticky_shapes import churn, forcing_general, random_subscriptions

KEEP_RUNS = 3
KEEP_WHY = "the docs report each figure as the range over the last three runs"

STICKY = StickyAssignor()


def _kafka_python() -> Callable[[Problem], Assignment]:
    from assigncheck.targets.python_libs import load

    return load("kafka-python", "sticky").assign


def _optimal(problem: Problem, out: Assignment, sticky: bool, oracle_ok: bool = True) -> tuple[bool, str]:
    got = balance.sum_squares(problem, out)
    if not oracle_ok:
        return True, f"sum_squares {got}, spread {balance.spread(problem, out)} (oracle skipped at this size)"
    best = oracle.optimal_sum_squares(problem)
    note = f"sum_squares {got} (optimum {best}), spread {balance.spread(problem, out)}"
    ok = got == best
    if sticky:
        kept, most = stickiness.retained(problem, out), oracle.max_retained(problem, "optimal")
        note += f", retained {kept} (max {most})"
        ok = ok and kept == most
    return ok, note


def _shapes(members: int, topics: int, partitions: int) -> list[tuple[str, Problem, bool]]:
    fresh = random_subscriptions(members, topics, partitions, 20, seed=1)
    after = churn(fresh, STICKY.assign(fresh), resubscribe=0.10, leave=0.05, seed=2, max_topics=20)
    return [(f"{members}x{partitions} fresh", fresh, False), (f"{members}x{partitions} churn", after, True)]


def membership_shapes(members: int, topics: int, partitions: int) -> list[tuple[str, Problem, bool]]:
    """After 5% leave, and after 5% join, with nobody re-subscribing."""
    fresh = random_subscriptions(members, topics, partitions, 20, seed=1)
    out = STICKY.assign(fresh)
    return [(f"{members}x{partitions} {label}", churn(fresh, out, resubscribe=0.0, seed=2, max_topics=20, **change),
             True) for label, change in (("5% leave", {"leave": 0.05}), ("5% join", {"leave": 0.0, "join": 0.05}))]


def one_partition_of_every_topic(members: int, topics: int, per_topic: int) -> Problem:
    """Round 2 after Kafka's first round at this size: member i owns partition i of every topic (generation 1)."""
    names = [f"topic{t:04d}" for t in range(topics)]
    sub = frozenset(names)
    group = []
    for i in range(members):
        mine = index_array(np.arange(i, per_topic, members))
        group.append(Member(f"consumer{i:05d}", sub, {n: mine for n in names}, 1))
    return Problem({n: per_topic for n in names}, tuple(group))


def _timed(scenario: str, problem: Problem, sticky: bool, repeat: int = 3, oracle_ok: bool = True) -> dict:
    seconds, out = best_time(partial(STICKY.assign, problem), repeat=repeat)
    ok, note = _optimal(problem, out, sticky, oracle_ok)
    return row(scenario, "sticky", seconds, goal="optimal", ok=ok, note=note)


def _second_round(quick: bool) -> list[dict]:
    members, topics = (200, 50) if quick else (2000, 500)
    problem = one_partition_of_every_topic(members, topics, 2000)
    text = json.dumps(problem_to_json(problem))
    start = time.process_time()
    parsed = problem_from_json(parse_json(text))  # what the CLI does with a file
    parse = time.process_time() - start
    seconds, out = best_time(partial(STICKY.assign, parsed), repeat=3)
    fixpoint = all(out.count(m.member_id) == m.owned.count for m in parsed.members)
    scenario = f"{members}x{topics * 2000} second round, one partition of every topic"
    return [row(scenario, "parse_json + problem_from_json", parse, note=f"{len(text) / 2**20:.0f} MiB of JSON"),
            row(scenario, "sticky", seconds, goal="every member keeps its partitions", ok=fixpoint,
                note="every member keeps its partitions" if fixpoint else "CHANGED")]


def run(quick: bool) -> list[dict]:
    rows = []
    for scenario, problem, sticky in _shapes(*((200, 100, 2000) if quick else (1000, 100, 10_000))):
        rows.append(_timed(scenario, problem, sticky, repeat=5))
    for scenario, problem, sticky in membership_shapes(*((200, 100, 2000) if quick else (1000, 100, 10_000))):
        rows.append(_timed(scenario, problem, sticky, repeat=5))
    if not quick:
        for scenario, problem, sticky in _shapes(5000, 500, 1_000_000):
            rows.append(_timed(scenario, problem, sticky, repeat=2, oracle_ok=False))
    one_topic = Problem({"big": 2100}, tuple(Member(f"consumer-{k:05d}", frozenset({"big"})) for k in range(2100)))
    rows.append(_timed("2100x2100 one topic", one_topic, False, repeat=5))
    rows.append(_timed("2100x2101 forcing general", forcing_general(), False, repeat=5))
    rows += _second_round(quick)
    peer = _kafka_python()
    for scenario, problem, sticky in _shapes(*((60, 100, 600) if quick else (200, 100, 2000))):
        seconds, out = best_time(partial(STICKY.assign, problem), repeat=5)
        peer_seconds, peer_out = best_time(partial(peer, problem), repeat=1)
        ok, note = _optimal(problem, out, sticky)
        _, peer_note = _optimal(problem, peer_out, sticky)
        rows.append(row(scenario, "sticky", seconds, peer="kafka-python sticky", peer_seconds=peer_seconds,
                        goal="faster, optimal", ok=ok and seconds < peer_seconds,
                        note=f"{note}; kafka-python: {peer_note}"))
    return rows
