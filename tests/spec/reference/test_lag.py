"""The lag reference (KAFKA-5337): a hand-checked example, lag rules, and properties against Z3's optimum."""

import numpy as np
from hypothesis import given, settings

from assigncheck.generate import strategies
from assigncheck.spec.balance import per_topic
from assigncheck.spec.invariants import check_hard
from assigncheck.spec.model import LagInfo, Member, Problem, TopicOffsets
from assigncheck.spec.reference import REFERENCES
from assigncheck.spec.reference.lag import lag_spread
from assigncheck.verify.z3_oracle import lag_spread_optimum

LAG = REFERENCES["lag"]


def offsets(begin, end, committed):
    return TopicOffsets(np.array(begin), np.array(end), np.array(committed))


def test_hand_checked_example():
    # lags 10, 50, 50, 0, 30; order p1, p2 (ties by index), p4, p0, p3
    lag = LagInfo({"t": offsets([0] * 5, [10, 50, 50, 5, 30], [0, 0, 0, 5, 0])})
    problem = Problem({"t": 5}, (Member("b", frozenset({"t"})), Member("a", frozenset({"t"}))), lag=lag)
    # p1 -> a (all tied: id); p2 -> b (fewer); p4 -> a (1/1, 50/50: id); p0 -> b (fewer); p3 -> b (2/2, 80 vs 60)
    assert LAG.assign(problem).as_lists() == {"a": {"t": [1, 4]}, "b": {"t": [0, 2, 3]}}
    assert lag_spread(problem, LAG.assign(problem)) == {"t": 20}


def test_no_commit_uses_auto_offset_reset():
    no_commit = {"t": offsets([5, 0, 0], [10, 100, 20], [-1, -1, 15])}
    members = (Member("a", frozenset({"t"})), Member("b", frozenset({"t"})), Member("c", frozenset({"t"})))
    earliest = Problem({"t": 3}, members, lag=LagInfo(no_commit, "earliest"))  # lags 5, 100, 5
    assert LAG.assign(earliest).as_lists() == {"a": {"t": [1]}, "b": {"t": [0]}, "c": {"t": [2]}}
    latest = Problem({"t": 3}, members, lag=LagInfo(no_commit, "latest"))  # lags 0, 0, 5
    assert LAG.assign(latest).as_lists() == {"a": {"t": [2]}, "b": {"t": [0]}, "c": {"t": [1]}}


def test_without_lag_information_every_lag_is_zero():
    problem = Problem({"t": 5, "u": 2}, (Member("a", frozenset({"t", "u"})), Member("b", frozenset({"t"}))))
    # all ties: partitions in index order alternate between the subscribers (fewest first, then id)
    assert LAG.assign(problem).as_lists() == {"a": {"t": [0, 2, 4], "u": [0, 1]}, "b": {"t": [1, 3]}}


@settings(max_examples=150, deadline=None)
@given(strategies.problems(max_members=6, protocol="eager", lag=None))
def test_properties(problem):
    out = LAG.assign(problem)
    assert check_hard(problem, out) == []
    assert per_topic(problem, out) == []
    assert LAG.assign(problem.replace(members=tuple(reversed(problem.members)))) == out


@settings(max_examples=40, deadline=None)
@given(strategies.problems(max_members=4, max_topics=2, max_partitions_per_topic=6, protocol="eager", lag=True))
def test_lag_spread_is_never_below_the_optimum(problem):
    achieved = lag_spread(problem, LAG.assign(problem))
    best = lag_spread_optimum(problem)
    assert achieved.keys() == best.keys()
    assert all(achieved[t] >= best[t] for t in best)
