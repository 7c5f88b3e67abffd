"""The fast Streams sticky task assignor (`impl/streams.py`) reproduces the spec's reference exactly and
meets `spec.streams_checks` on hypothesis problems and on seeded larger ones."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings

from assigncheck.generate.strategies import streams_problems
from assigncheck.impl.streams import StreamsStickyAssignor, client_quotas
from assigncheck.run.assignor_check import check_assignor
from assigncheck.spec.errors import InputError
from assigncheck.spec.model import Client, Member, Problem, StreamsProblem
from assigncheck.spec.reference import REFERENCES
from assigncheck.spec.streams_checks import check_streams

STREAMS = StreamsStickyAssignor()
REFERENCE = REFERENCES["streams"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams_problems(max_clients=8, max_subtopologies=5, max_tasks_per_subtopology=10))
def test_every_promise_holds(problem):
    out, report = check_assignor(STREAMS, problem, budget_s=None)
    assert out is not None
    assert report.ok, [v.message for v in report.violations]


def _larger(seed: int, clients: int, subtopologies: int, max_tasks: int) -> StreamsProblem:
    """Previous actives for most tasks (some disputed, some junk), standbys, clients joining and leaving."""
    rng = random.Random(seed)
    sizes = {f"s{i:02d}": rng.randint(1, max_tasks) for i in range(subtopologies)}
    active: list[dict[str, list[int]]] = [{} for _ in range(clients)]
    standby: list[dict[str, list[int]]] = [{} for _ in range(clients)]
    for s, n in sizes.items():
        for task in range(n + 1):  # task n is out of range: junk
            if rng.random() < 0.8:
                active[rng.randrange(clients)].setdefault(s, []).append(task)
            if rng.random() < 0.05:
                active[rng.randrange(clients)].setdefault(s, []).append(task)  # maybe disputed
            if rng.random() < 0.4:
                standby[rng.randrange(clients)].setdefault(s, []).append(task)
    group = tuple(Client(f"c{k:03d}", rng.randint(1, 4), active[k], standby[k]) for k in range(clients))
    return StreamsProblem(sizes, group)


@pytest.mark.parametrize("shape", [(5, 3, 20), (30, 8, 40), (60, 12, 25)])
def test_equals_the_reference_on_larger_problems(shape):
    for seed in range(3):
        problem = _larger(seed, *shape)
        out = STREAMS.assign(problem)
        assert out == REFERENCE.assign(problem)
        assert check_streams(problem, out, STREAMS.promises).ok  # every promise of streams-sticky


def test_quotas_follow_capacity():
    problem = StreamsProblem({"s": 10}, (Client("a", 1), Client("b", 2), Client("c", 2)))
    # 10 tasks over capacity 5: floors 2, 4, 4, nothing left over.
    assert client_quotas(problem) == [2, 4, 4]
    problem = StreamsProblem({"s": 4}, (Client("b", 3), Client("a", 3)))
    assert client_quotas(problem) == [2, 2]


def test_kafka_7203_example_gives_up_the_overrepresented_subtopology():
    # KAFKA-7203's example (docs/SPEC.md §7.4): previous st0:4, st2:2 with mix 1:1:2, quota 3: keep st0:1 and st2:2.
    sizes = {"st0": 4, "st1": 4, "st2": 8}
    mine = Client("a", 3, {"st0": [0, 1, 2, 3], "st2": [0, 1]})
    problem = StreamsProblem(sizes, (mine, Client("b", 13)))
    kept = STREAMS.assign(problem).get("a")
    assert kept["st0"].tolist() == [0] and kept["st2"].tolist() == [0, 1] and "st1" not in kept


def test_bad_capacity_and_consumer_problems_are_input_errors():
    with pytest.raises(InputError, match=r"clients\[0\].capacity"):
        STREAMS.assign(StreamsProblem({"s": 1}, (Client("a", 0),)))
    with pytest.raises(InputError):
        STREAMS.assign(Problem({"t": 1}, (Member("a", frozenset({"t"})),)))
