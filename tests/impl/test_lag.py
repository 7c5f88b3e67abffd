"""The fast lag-based assignor (`impl/lag.py`) reproduces the spec's reference exactly, on hypothesis
problems and on seeded larger ones (both the per-lap Python sort and the numpy lap path)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from assigncheck.generate.strategies import problems
from assigncheck.impl.lag import LagAssignor, deal_topic
from assigncheck.run.assignor_check import check_assignor
from assigncheck.spec.errors import InputError
from assigncheck.spec.model import LagInfo, Member, Problem, StreamsProblem, TopicOffsets
from assigncheck.spec.reference import REFERENCES

LAG = LagAssignor()
REFERENCE = REFERENCES["lag"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(lag=None, max_members=8, protocol="eager"))  # eager: lag is not a cooperative assignor
def test_every_promise_holds(problem):
    out, report = check_assignor(LAG, problem, budget_s=None)
    assert out is not None
    assert report.ok, [v.message for v in report.violations]


def _large(seed: int, members: int, topics: int, max_partitions: int, reset: str) -> Problem:
    rng = random.Random(seed)
    sizes = {f"t{i}": rng.randint(0, max_partitions) for i in range(topics)}
    group = tuple(Member(f"m{k:03d}", frozenset(t for t in sizes if rng.random() < 0.7)) for k in range(members))
    top = 50  # few distinct lags: many ties
    offsets = {}
    for t, n in sizes.items():
        end = np.array([rng.randint(0, top) for _ in range(n)], dtype=np.int64)
        committed = np.array([rng.choice([-1, rng.randint(0, int(e))]) for e in end.tolist()], dtype=np.int64)
        offsets[t] = TopicOffsets(np.zeros(n, dtype=np.int64), end, committed)
    return Problem(sizes, group, lag=LagInfo(offsets, reset))


@pytest.mark.parametrize("members", [3, 31, 32, 90])
@pytest.mark.parametrize("reset", ["latest", "earliest"])
def test_equals_the_reference_on_larger_problems(members, reset):
    for seed in range(3):
        problem = _large(seed, members, 5, 300, reset)
        assert LAG.assign(problem) == REFERENCE.assign(problem)


def test_lags_near_int64_max_are_summed_exactly():
    # 40 subscribers (numpy lap size). Lap 1: each gets ~2**63; lap 2: half get 2**62 more (past int64),
    # half get 0. Lap 3 must go to the second half first; wrapped int64 totals would pick the first half.
    big = 2**63 - 1
    end = np.array([big - i for i in range(40)] + [2**62] * 20 + [0] * 20 + [0] * 40, dtype=np.int64)
    n = len(end)
    offsets = {"t": TopicOffsets(np.zeros(n, np.int64), end, np.full(n, -1, np.int64))}
    group = tuple(Member(f"m{k:02d}", frozenset({"t"})) for k in range(40))
    problem = Problem({"t": n}, group, lag=LagInfo(offsets, "earliest"))
    assert LAG.assign(problem) == REFERENCE.assign(problem)


def test_laps_give_the_biggest_lag_to_the_least_loaded():
    # lags 9, 8, 1, 1 over two members: lap 1 gives 9 to a, 8 to b; lap 2: b (8 < 9) takes the next.
    owner = deal_topic(np.array([1, 9, 1, 8]), 2)
    assert owner.tolist() == [1, 0, 0, 1]


def test_without_lag_information_it_deals_by_member_id():
    problem = Problem({"t": 5}, (Member("b", frozenset({"t"})), Member("a", frozenset({"t"}))))
    assert LAG.assign(problem).as_lists() == {"a": {"t": [0, 2, 4]}, "b": {"t": [1, 3]}}


def test_missing_offsets_and_streams_problems_are_input_errors():
    offsets = {"t": TopicOffsets(np.zeros(1, np.int64), np.ones(1, np.int64), np.full(1, -1, np.int64))}
    problem = Problem({"t": 1, "u": 1}, (Member("a", frozenset({"t", "u"})),), lag=LagInfo(offsets, "latest"))
    with pytest.raises(InputError, match="lag.offsets.u"):
        LAG.assign(problem)
    with pytest.raises(InputError):
        LAG.assign(StreamsProblem({"s": 1}, ()))
