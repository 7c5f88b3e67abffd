"""Round-robin (`impl/roundrobin.py`): Kafka's javadoc examples and the exact promise: identical to the
spec's reference on every problem."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings

from assigncheck.generate.strategies import problems as spec_problems
from assigncheck.impl.roundrobin import RoundRobinAssignor
from assigncheck.run.assignor_check import check_assignor
from assigncheck.spec.model import Member, Problem
from assigncheck.spec.reference import REFERENCES

from .problems import problems

RR = ASSIGNOR = RoundRobinAssignor()


def test_javadoc_example_unequal_subscriptions():
    # C0{t0}, C1{t0,t1}, C2{t0,t1,t2}; t0:1, t1:2, t2:3 (RoundRobinAssignor javadoc).
    problem = Problem({"t0": 1, "t1": 2, "t2": 3}, (
        Member("C2", {"t0", "t1", "t2"}), Member("C0", {"t0"}), Member("C1", {"t0", "t1"})))
    assert RR.assign(problem).as_lists() == {
        "C0": {"t0": [0]}, "C1": {"t1": [0]}, "C2": {"t1": [1], "t2": [0, 1, 2]}}


def test_javadoc_example_equal_subscriptions():
    problem = Problem({"t0": 3, "t1": 3}, (Member("C0", {"t0", "t1"}), Member("C1", {"t0", "t1"})))
    assert RR.assign(problem).as_lists() == {"C0": {"t0": [0, 2], "t1": [1]}, "C1": {"t0": [1], "t1": [0, 2]}}


def test_cursor_carries_over_topics_and_skips_empty_and_missing_ones_kafka_3661():
    problem = Problem({"a": 2, "b": 0, "c": 3}, (
        Member("m0", {"a", "c", "ghost"}), Member("m1", {"a", "b"}), Member("m2", {"c"})))
    # a0->m0, a1->m1, then c from m2: c0->m2, c1->m0, c2->m2.
    assert RR.assign(problem).as_lists() == {"m0": {"a": [0], "c": [1]}, "m1": {"a": [1]}, "m2": {"c": [0, 2]}}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(equal=None, protocol=None, max_members=6, max_topics=4, max_partitions=9))
def test_identical_to_the_reference_and_every_promise_holds(problem):
    assert RR.assign(problem) == REFERENCES["roundrobin"].assign(problem)
    out, report = check_assignor(RR, problem, budget_s=None, oracle=False)
    assert out is not None and report.ok, [v.message for v in report.violations]


def test_large_problem_identical_to_the_reference():
    rng = random.Random(11)
    topics = {f"t{i:03d}": rng.randint(0, 60) for i in range(40)}
    names = sorted(topics) + ["ghost"]
    members = tuple(Member(f"m{k:03d}", set(rng.sample(names, rng.randint(1, 8))),
                           instance_id=f"i{k}" if k % 5 == 0 else None) for k in range(150))
    problem = Problem(topics, members)
    assert RR.assign(problem) == REFERENCES["roundrobin"].assign(problem)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec_problems(min_partitions_per_topic=0, racks=None, max_members=7))
def test_identical_to_the_reference_on_the_spec_strategies(problem):
    assert ASSIGNOR.assign(problem) == REFERENCES[ASSIGNOR.name].assign(problem)
