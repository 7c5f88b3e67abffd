"""Cooperative sticky (`impl/cooperative.py`): withholding per ALGORITHMS.md (H6), the eager pass-through,
convergence within 2 rounds for one membership change, and every promise through the spec's checker."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assigncheck.generate.strategies import problems as spec_problems
from assigncheck.generate.strategies import sticky_rounds
from assigncheck.impl import cooperative
from assigncheck.impl.cooperative import CooperativeStickyAssignor, withhold
from assigncheck.run.assignor_check import check_assignor
from assigncheck.spec import invariants, rounds, stickiness
from assigncheck.spec.model import Assignment, Member, Problem, partitions_of
from assigncheck.spec.rounds import next_round, unassigned
from assigncheck.targets import registry

from .problems import next_problems, problems

COOP = CooperativeStickyAssignor()


def run_rounds(assignor, problem, max_rounds=2):
    """Each round's output, until nothing is withheld or `max_rounds` rounds have run."""
    return [out for _, out in rounds.run_rounds(assignor.assign, problem, max_rounds)]
SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_promises_are_the_wrapped_ones_plus_two_rounds():
    assert COOP.promises.max_rounds == 2
    general = registry.get("sticky").promises
    assert (COOP.promises.balance, COOP.promises.stickiness) == (general.balance, general.stickiness)
    assert not COOP.promises.equal_subscriptions_only


def test_a_join_withholds_the_moving_partitions_then_hands_them_out():
    # KAFKA-12464's example (docs/SPEC.md §8.3), cooperative: C2 joins; C0 and C1 must revoke first.
    problem = Problem({"t1": 10}, (
        Member("C0", frozenset({"t1"}), partitions_of({"t1": range(0, 5)}), 1),
        Member("C1", frozenset({"t1"}), partitions_of({"t1": range(5, 10)}), 1),
        Member("C2", frozenset({"t1"})),
    ), "cooperative")
    first, second = run_rounds(COOP, problem)
    assert first.as_lists() == {"C0": {"t1": [0, 1, 2, 3]}, "C1": {"t1": [5, 6, 7]}, "C2": {}}
    assert invariants.h6_cooperative_safety(problem, first) == []
    assert second.as_lists() == {"C0": {"t1": [0, 1, 2, 3]}, "C1": {"t1": [5, 6, 7]}, "C2": {"t1": [4, 8, 9]}}


def test_withhold_drops_what_another_member_still_consumes():
    problem = Problem({"t": 6}, (
        Member("a", frozenset({"t"}), partitions_of({"t": [0, 0, 7]}), 1),
        Member("b", frozenset(), partitions_of({"t": [1]}), -1),  # unsubscribed now, still consuming t-1
        Member("c", frozenset({"t"}), partitions_of({"t": [2]}), 9),
        Member("d", frozenset({"t"}), partitions_of({"t": [4, 5]}), 1),  # stale: e owns t-4 in generation 2
        Member("e", frozenset({"t"}), partitions_of({"t": [4]}), 2),
    ), "cooperative")
    eager = Assignment.of({"a": {"t": [0, 1]}, "b": {}, "c": {"t": [2, 3]}, "d": {"t": [4, 5]}, "e": {}})
    # a keeps its own t-0 but not t-1 (b consumes it); t-3 is nobody's; d's stale claim of t-4 does not
    # make it the consumer (KAFKA-14639), its sole valid claim t-5 stays.
    assert withhold(problem, eager).as_lists() == {"a": {"t": [0]}, "b": {}, "c": {"t": [2, 3]}, "d": {"t": [5]},
                                                   "e": {}}


claimed_or_fed_back = st.one_of(sticky_rounds(), spec_problems(racks=None),
                                sticky_rounds().map(lambda p: next_round(p, registry.get("sticky").assign(p))))


@settings(max_examples=300, deadline=None)
@given(claimed_or_fed_back)
def test_handing_back_the_claimed_sets_withholds_what_the_rules_withhold(problem):
    """An eager output that is every member's very claimed set (what a settled round returns): `withhold`'s shortcut
    for it agrees with the rules, whether every claim is valid (fed back rounds) or not (junk, stale, double)."""
    problem = problem.with_protocol("cooperative")
    eager = Assignment.of_sets({m.member_id: m.owned.sorted() for m in problem.members})
    assert withhold(problem, eager) == cooperative._withhold_rows(problem, eager)


def test_the_claimed_sets_handed_back_lose_what_a_double_claim_leaves_unowned_kafka_12984():
    both, mine = partitions_of({"t": [0, 1]}).sorted(), partitions_of({"t": [1]}).sorted()
    problem = Problem({"t": 2}, (Member("a", {"t"}, both, 3), Member("b", {"t"}, mine, 3)), "cooperative")
    eager = Assignment.of_sets({"a": both, "b": mine})
    assert withhold(problem, eager).as_lists() == {"a": {"t": [0]}, "b": {}}


def test_same_generation_double_claims_are_withheld_kafka_12984():
    claims = partitions_of({"t": [0, 1]})
    problem = Problem({"t": 2}, (Member("a", {"t"}, claims, 3), Member("b", {"t"}, claims, 3)), "cooperative")
    first, second = run_rounds(COOP, problem)
    assert first.as_lists() == {"a": {}, "b": {}}  # both still consume both: nobody may be handed one
    assert invariants.h6_cooperative_safety(problem, first) == []
    assert second.as_lists() == {"a": {"t": [0]}, "b": {"t": [1]}}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(protocol="eager", max_members=5, max_partitions=6))
def test_an_eager_problem_gets_the_wrapped_eager_output(problem):
    wrapped = registry.get("sticky-constrained" if problem.subscriptions_equal() else "sticky")
    assert COOP.assign(problem) == wrapped.assign(problem)


@SETTINGS
@given(problems(protocol="cooperative", max_members=5, max_partitions=6))
def test_every_promise_and_h6_hold_on_junk_claims(problem):
    out, report = check_assignor(COOP, problem, oracle=True, budget_s=None, seed=3)
    assert out is not None
    assert report.ok, [v.message for v in report.violations]


@SETTINGS
@given(st.data())
def test_one_membership_change_converges_within_two_rounds(data):
    equal = data.draw(st.booleans())
    problem = data.draw(next_problems(COOP, equal=equal, protocol="cooperative", max_members=5, max_partitions=6))
    outs = run_rounds(COOP, problem)
    assert len(outs) <= 2
    current = problem
    for out in outs:
        assert invariants.h4_exclusivity(current, out) == []
        assert invariants.h6_cooperative_safety(current, out) == []
        current = next_round(current, out)
    last_problem = problem if len(outs) == 1 else next_round(problem, outs[0])
    assert unassigned(last_problem, outs[-1]) == []
    # Nothing withheld in the end, and the final result is the eager one of the final round.
    assert stickiness.withheld(last_problem, outs[-1]) == 0
    assert outs[-1] == COOP.assign(last_problem.replace(protocol="eager"))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(spec_problems(protocol="cooperative", min_partitions_per_topic=0, racks=None, max_members=6),
                 sticky_rounds(protocol="cooperative", max_members=6)))
def test_every_promise_holds_on_the_spec_strategies(problem):
    out, report = check_assignor(COOP, problem, oracle=True, budget_s=None, seed=5)
    assert out is not None
    assert report.ok, [v.message for v in report.violations]
