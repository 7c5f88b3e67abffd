"""The round-robin reference: Kafka's javadoc example, static members, and spec properties."""

from hypothesis import given, settings

from assigncheck.generate import strategies
from assigncheck.spec.balance import perfect
from assigncheck.spec.invariants import check_hard
from assigncheck.spec.model import Member, Problem
from assigncheck.spec.reference import REFERENCES

ROUND_ROBIN = REFERENCES["roundrobin"]


def test_kafka_javadoc_unequal_subscriptions():
    problem = Problem(
        {"t0": 1, "t1": 2, "t2": 3},
        (
            Member("C0", frozenset({"t0"})),
            Member("C1", frozenset({"t0", "t1"})),
            Member("C2", frozenset({"t0", "t1", "t2"})),
        ),
    )
    assert ROUND_ROBIN.assign(problem).as_lists() == {
        "C0": {"t0": [0]},
        "C1": {"t1": [0]},
        "C2": {"t1": [1], "t2": [0, 1, 2]},
    }


def test_spec_example_two_topics_interleave():
    problem = Problem({"t0": 5, "T1": 4}, tuple(Member(f"C{i}", frozenset({"t0", "T1"})) for i in range(3)))
    # (topic, index) order puts "T1" before "t0": T1p0 C0, T1p1 C1, T1p2 C2, T1p3 C0,
    # then t0p0 C1, t0p1 C2, t0p2 C0, t0p3 C1, t0p4 C2
    assert ROUND_ROBIN.assign(problem).as_lists() == {
        "C0": {"T1": [0, 3], "t0": [2]},
        "C1": {"T1": [1], "t0": [0, 3]},
        "C2": {"T1": [2], "t0": [1, 4]},
    }


def test_static_members_lead_the_circle():
    problem = Problem(
        {"t": 4}, (Member("a", frozenset({"t"})), Member("b", frozenset({"t"}), instance_id="x"))
    )
    assert ROUND_ROBIN.assign(problem).as_lists() == {"b": {"t": [0, 2]}, "a": {"t": [1, 3]}}


@settings(max_examples=150, deadline=None)
@given(strategies.problems(max_members=6, protocol="eager"))
def test_properties(problem):
    out = ROUND_ROBIN.assign(problem)
    assert check_hard(problem, out) == []
    if problem.subscriptions_equal():
        assert perfect(problem, out) == []
    assert ROUND_ROBIN.assign(problem.replace(members=tuple(reversed(problem.members)))) == out


@settings(max_examples=50, deadline=None)
@given(strategies.problems(max_members=6, protocol="eager", equal_subscriptions=True))
def test_equal_subscriptions_are_perfectly_balanced(problem):
    counts = ROUND_ROBIN.assign(problem).counts().values()
    assert max(counts) - min(counts) <= 1
