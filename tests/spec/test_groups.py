"""Kafka 4's group types in the spec: the coordinator's form of a group, what it cannot hold, share groups' H4/H5,
the `uniform` balance, and the format and promises that carry them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from assigncheck.findings.signature import unreachable
from assigncheck.formats.documents import problem_from_json, problem_to_json
from assigncheck.generate import strategies
from assigncheck.run.assignor_check import check_assignor
from assigncheck.spec.assignment_check import check_assignment
from assigncheck.spec.errors import FormatError
from assigncheck.spec.groups import coordinator_form, coordinator_unreal
from assigncheck.spec.model import Assignment, Member, Problem
from assigncheck.spec.promises import Promises


def _owned(problem: Problem) -> dict[str, dict[str, list[int]]]:
    return {m.member_id: {t: a.tolist() for t, a in m.owned.items()} for m in problem.members}


def test_the_coordinator_holds_the_previous_target_assignment():
    classic = Problem({"t": 3, "u": 1}, (
        Member("a", {"t"}, {"t": [0, 0, 5, -1], "u": [0], "gone": [2]}, generation=4),
        Member("b", {"t"}, {"t": [1, 2]}, generation=3),
        Member("c", {"t"}, {"t": [1, 2]}, generation=3),
        Member("d", {"t"}, {"t": [2]}, generation=4),
    ), protocol="cooperative")
    consumer = coordinator_form(classic, "consumer")
    assert consumer.group_type == "consumer" and consumer.protocol == "eager"
    assert {m.generation for m in consumer.members} == {-1}
    # a's repeat, out-of-range and negative claims go; u-0 of a topic it left and 'gone' (deleted) stay; t-1 is
    # disputed at one generation (nobody keeps it), t-2 goes to the highest generation (d).
    assert _owned(consumer) == {"a": {"t": [0], "u": [0], "gone": [2]}, "b": {}, "c": {}, "d": {"t": [2]}}
    assert coordinator_unreal(consumer) == []
    share = coordinator_form(classic, "share")
    assert _owned(share)["b"] == {"t": [1, 2]} and _owned(share)["c"] == {"t": [1, 2]}  # several owners
    assert coordinator_form(consumer, "consumer") is consumer  # a coordinator's group is taken as it is
    assert coordinator_form(classic, "classic") is classic


def test_what_no_coordinator_holds_is_unreachable():
    bad = Problem({"t": 2}, (Member("a", {"t"}, {"t": [1, 1, 2]}), Member("b", {"t"}, {"t": [1, -1]})),
                  group_type="consumer")
    reasons = coordinator_unreal(bad)
    assert len(reasons) == 4 and any("two members" in r for r in reasons)
    assert unreachable(bad, Promises(group_type="consumer")) == reasons
    shared = bad.replace(members=(Member("a", {"t"}, {"t": [1]}), Member("b", {"t"}, {"t": [1]})),
                         group_type="share")
    assert coordinator_unreal(shared) == []  # a share group's partition may have several owners
    # A classic problem judged for a broker-side target is judged as its coordinator holds it: reachable.
    classic = bad.replace(group_type="classic")
    assert unreachable(classic, Promises(group_type="consumer")) == []


def test_share_groups_allow_several_owners_but_not_a_member_holding_one_twice():
    problem = Problem({"t": 2}, (Member("a", {"t"}), Member("b", {"t"})), group_type="share")
    everyone = Assignment.of({"a": {"t": [0, 1]}, "b": {"t": [0, 1]}})
    assert check_assignment(problem, everyone).ok
    assert [v.invariant for v in check_assignment(problem.replace(group_type="consumer"), everyone).violations] \
        == ["H4"]
    twice = Assignment.of({"a": {"t": [0, 0, 1]}, "b": {}})
    assert [v.invariant for v in check_assignment(problem, twice).violations] == ["H4"]
    missing = Assignment.of({"a": {"t": [0]}, "b": {"t": [0]}})
    assert [v.invariant for v in check_assignment(problem, missing).violations] == ["H5"]


def test_uniform_balance_is_perfect_on_equal_subscriptions_and_local_elsewhere():
    equal = Problem({"t": 4}, (Member("a", {"t"}), Member("b", {"t"})), group_type="consumer")
    lopsided = Assignment.of({"a": {"t": [0, 1, 2]}, "b": {"t": [3]}})
    uniform = Promises(balance="uniform", group_type="consumer")
    assert [v.invariant for v in check_assignment(equal, lopsided, uniform).violations] == ["balance.uniform"]
    unequal = Problem({"t": 4, "u": 1}, (Member("a", {"t", "u"}), Member("b", {"t"})), group_type="consumer")
    # a holds 3 of t and b 2: no partition can move to a subscriber holding two fewer, so locally balanced.
    fine = Assignment.of({"a": {"t": [0, 1], "u": [0]}, "b": {"t": [2, 3]}})
    assert check_assignment(unequal, fine, uniform).ok
    skewed = Assignment.of({"a": {"t": [0, 1, 2, 3], "u": [0]}, "b": {}})
    assert [v.invariant for v in check_assignment(unequal, skewed, uniform).violations] == ["balance.uniform"]


def test_a_broker_side_target_meets_the_coordinators_form():
    seen: list[Problem] = []

    class Keeper:
        """Keeps every current assignment: H4-safe only because the coordinator never double-assigns."""
        name = "keeper"
        promises = Promises(group_type="consumer")

        def assign(self, problem: Problem) -> Assignment:
            seen.append(problem)
            out = {m.member_id: {t: [i for i in a.tolist() if t in m.subscription] for t, a in m.owned.items()}
                   for m in problem.members}
            free = [i for i in range(problem.topics["t"]) if all(i not in o.get("t", []) for o in out.values())]
            out[problem.members[0].member_id].setdefault("t", []).extend(free)
            return Assignment.of(out)

    classic = Problem({"t": 2}, (Member("a", {"t"}, {"t": [0, 1]}, generation=2),
                                 Member("b", {"t"}, {"t": [1]}, generation=1)))
    _, report = check_assignor(Keeper(), classic, budget_s=None)
    assert report.ok, report.violations
    assert seen and all(p.group_type == "consumer" for p in seen)
    # The same keeper as a classic assignor keeps b's stale claim too: H4.
    Keeper.promises = Promises()
    _, report = check_assignor(Keeper(), classic, budget_s=None)
    assert "H4" in [v.invariant for v in report.violations]


def test_the_format_carries_the_group_type():
    doc = {"format": 1, "group_type": "share", "topics": {"t": 1},
           "members": [{"id": "a", "subscription": ["t"], "owned": {"t": [0]}}]}
    problem = problem_from_json(doc)
    assert problem.group_type == "share" and problem.protocol == "eager"
    assert problem_from_json(problem_to_json(problem)) == problem
    assert "protocol" not in problem_to_json(problem)
    with pytest.raises(FormatError, match="group_type"):
        problem_from_json({**doc, "group_type": "streams"})
    with pytest.raises(FormatError, match="protocol"):
        problem_from_json({**doc, "protocol": "cooperative"})


def test_promises_carry_the_group_type_and_uniform_balance():
    p = Promises.parse("balance=uniform,stickiness=max_retained,group_type=consumer")
    assert (p.balance, p.group_type) == ("uniform", "consumer")
    assert Promises.parse(p.to_text()) == p


@settings(max_examples=60, deadline=None)
@given(strategies.problems(group_type="consumer"))
def test_generated_consumer_groups_are_ones_a_coordinator_holds(problem):
    assert problem.group_type == "consumer" and coordinator_unreal(problem) == []
