"""Constrained sticky, both variants (`impl/constrained.py`, `impl/constrained_kip615.py`): KAFKA-12464's example
(docs/SPEC.md §8.3) under ALGORITHMS.md's tie-breaks, every promise through the spec's checker (oracle max_retained,
fixpoint, per-topic spread, order independence), the fallback to general sticky, and junk claims."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assigncheck.generate.strategies import problems as spec_problems
from assigncheck.generate.strategies import sticky_rounds
from assigncheck.impl.constrained import ConstrainedStickyAssignor, deal
from assigncheck.impl.constrained_kip615 import FourPhaseConstrainedAssignor
from assigncheck.run.assignor_check import check_assignor
from assigncheck.spec import balance, oracle, stickiness
from assigncheck.spec.model import Assignment, Member, Problem, partitions_of
from assigncheck.spec.rounds import next_round
from assigncheck.targets import registry

from .problems import next_problems, problems

TWO, FOUR = ConstrainedStickyAssignor(), FourPhaseConstrainedAssignor()
BOTH = pytest.mark.parametrize("assignor", [TWO, FOUR], ids=lambda a: a.name)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def kafka_12464() -> Problem:
    """docs/SPEC.md §8.3: C0 owns t1p0..p4, C1 owns t1p5..p9 (generation 1), C2 joins."""
    return Problem({"t1": 10}, (
        Member("C0", frozenset({"t1"}), partitions_of({"t1": range(0, 5)}), 1),
        Member("C1", frozenset({"t1"}), partitions_of({"t1": range(5, 10)}), 1),
        Member("C2", frozenset({"t1"})),
    ))


def test_kafka_12464_example_two_phase_keeps_the_ceiling_for_the_first_owner_only():
    # f=3, c=4, r=1: C0 (first by id) keeps 4, C1 keeps 3, U = {4, 8, 9} is dealt to C2.
    out = TWO.assign(kafka_12464())
    assert out.as_lists() == {"C0": {"t1": [0, 1, 2, 3]}, "C1": {"t1": [5, 6, 7]}, "C2": {"t1": [4, 8, 9]}}
    # 7, not 8: with counts (4, 3, 3) the two owners can keep at most 4 + 3.
    assert stickiness.retained(kafka_12464(), out) == 7 == oracle.max_retained(kafka_12464(), "perfect")


def test_kafka_12464_example_four_phase_matches_the_jira_text():
    # Phase 1 keeps 4 each, phase 2 gives C2 t1p4 and t1p9, phase 3 steals C0's last kept (t1p3).
    out = FOUR.assign(kafka_12464())
    assert out.as_lists() == {"C0": {"t1": [0, 1, 2]}, "C1": {"t1": [5, 6, 7, 8]}, "C2": {"t1": [3, 4, 9]}}
    assert stickiness.retained(kafka_12464(), out) == 7


def test_phase_four_hands_the_surplus_to_the_first_members_not_at_max():
    # 7 partitions, 3 members, nobody owns anything: f=2, c=3, r=1; U is dealt to f, then t0p6 to m0.
    problem = Problem({"t0": 7}, tuple(Member(f"m{i}", frozenset({"t0"})) for i in range(3)))
    assert FOUR.assign(problem).as_lists() == {"m0": {"t0": [0, 3, 6]}, "m1": {"t0": [1, 4]}, "m2": {"t0": [2, 5]}}
    # Two-phase: targets are (3, 2, 2) from the start and U is dealt lap by lap in M order.
    assert TWO.assign(problem).as_lists() == {"m0": {"t0": [0, 3, 6]}, "m1": {"t0": [1, 4]}, "m2": {"t0": [2, 5]}}


@BOTH
def test_a_member_giving_up_partitions_keeps_its_topics_even_kafka_16277(assignor):
    # m0 owns all of t0 and t1 (4 each); m1 joins. Keep order (rank, topic) keeps 2 of each topic.
    problem = Problem({"t0": 4, "t1": 4}, (
        Member("m0", frozenset({"t0", "t1"}), partitions_of({"t0": range(4), "t1": range(4)}), 1),
        Member("m1", frozenset({"t0", "t1"})),
    ))
    out = assignor.assign(problem)
    assert out.as_lists()["m0"] == {"t0": [0, 1], "t1": [0, 1]}
    assert out.as_lists()["m1"] == {"t0": [2, 3], "t1": [2, 3]}


def test_deal_visits_members_lap_by_lap():
    assert deal(__import__("numpy").array([2, 0, 3, 1])).tolist() == [0, 2, 3, 0, 2, 2]


@BOTH
@FAST
@given(problems(equal=True, max_members=6, max_partitions=8))
def test_every_promise_holds_on_equal_subscriptions_with_junk_claims(assignor, problem):
    out, report = check_assignor(assignor, problem, oracle=True, budget_s=None, seed=1)
    assert out is not None
    assert report.ok, [v.message for v in report.violations]


@BOTH
@FAST
@given(st.data())
def test_every_promise_holds_after_one_membership_change(assignor, data):
    problem = data.draw(next_problems(assignor, equal=True))
    out, report = check_assignor(assignor, problem, oracle=True, budget_s=None, seed=2)
    assert out is not None
    assert report.ok, [v.message for v in report.violations]


@BOTH
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(equal=False, max_members=5, max_partitions=5))
def test_unequal_subscriptions_fall_back_to_general_sticky(assignor, problem):
    out = assignor.assign(problem)
    if problem.subscriptions_equal():
        assert balance.perfect(problem, out) == []
    else:
        assert out == registry.get("sticky").assign(problem)


@BOTH
def test_same_generation_double_claims_are_dropped_not_raised_kafka_12984(assignor):
    # m0 and m1 both claim t0p0..p2 in generation 5; nobody validly owns them; m2 is new.
    claims = partitions_of({"t0": [0, 1, 2]})
    problem = Problem({"t0": 6}, (
        Member("m0", frozenset({"t0"}), claims, 5),
        Member("m1", frozenset({"t0"}), claims, 5),
        Member("m2", frozenset({"t0"}), partitions_of({"t0": [3, 3, 99, -1], "gone": [0]}), 5),
    ))
    out = assignor.assign(problem)
    assert sorted(out.counts().values()) == [2, 2, 2]
    assert set(out.as_lists()["m2"]["t0"]) >= {3}  # its one valid claim survives the junk around it


@BOTH
def test_empty_and_degenerate_groups(assignor):
    assert assignor.assign(Problem({"t0": 3}, ())) == Assignment({})
    nothing = Problem({"t0": 0}, (Member("a", frozenset({"t0"})), Member("b", frozenset({"t0"}))))
    assert assignor.assign(nothing) == Assignment({"a": {}, "b": {}})
    ghost = Problem({}, (Member("a", frozenset({"ghost"}), partitions_of({"ghost": [0]}), 3),))
    assert assignor.assign(ghost) == Assignment({"a": {}})


@BOTH
def test_more_members_than_partitions_is_a_fixpoint(assignor):
    problem = Problem({"t0": 3, "t1": 2}, tuple(Member(f"m{i}", frozenset({"t0", "t1"})) for i in range(8)))
    out = assignor.assign(problem)
    assert sorted(out.counts().values()) == [0, 0, 0, 1, 1, 1, 1, 1]
    assert assignor.assign(next_round(problem, out)) == out


@BOTH
def test_a_thousand_members_churn_keeps_balance_and_the_maximum(assignor):
    topics = {f"t{i}": 97 for i in range(11)}
    sub = frozenset(topics)
    problem = Problem(topics, tuple(Member(f"c{i:04d}", sub) for i in range(1000)))
    settled = next_round(problem, assignor.assign(problem))
    churned = settled.replace(members=settled.members[1:] + (Member("zz", sub),))
    out = assignor.assign(churned)
    assert balance.perfect(churned, out) == []
    assert stickiness.per_topic_spread_violations(churned, out) == []
    assert stickiness.retained(churned, out) == oracle.max_retained(churned, "perfect")


@BOTH
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(spec_problems(equal_subscriptions=True, min_partitions_per_topic=0, racks=None, max_members=6),
                 sticky_rounds(equal_subscriptions=True, max_members=6)))
def test_every_promise_holds_on_the_spec_strategies(assignor, problem):
    out, report = check_assignor(assignor, problem, oracle=True, budget_s=None, seed=4)
    assert out is not None
    assert report.ok, [v.message for v in report.violations]
