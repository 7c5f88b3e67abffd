"""spec.oracle (OR-Tools min-cost flow) against Z3 Optimize, a closed form, and hand-checked cases."""

import random
import subprocess
import sys

import pytest
from hypothesis import given, settings

from assigncheck.generate import strategies
from assigncheck.spec import oracle
from assigncheck.spec.errors import InputError
from assigncheck.spec.invariants import check_hard
from assigncheck.spec.model import Member, Problem, iter_pairs, partitions_of
from assigncheck.spec.ownership import valid_owned
from assigncheck.spec.stickiness import retained
from assigncheck.verify import z3_oracle


def random_problem(rng: random.Random) -> Problem:
    """Small, messy problems: unequal subscriptions, absent topics, junk claims, mixed generations."""
    topics = {f"t{i}": rng.randint(0, 5) for i in range(rng.randint(1, 3))}
    names = sorted(topics) + ["gone"]
    members = []
    for j in range(rng.randint(1, 5)):
        subscription = frozenset(t for t in names if rng.random() < 0.6) or frozenset([rng.choice(names)])
        claims = []
        for t in names:
            for i in range(topics.get(t, 2) + 1):  # one past the end: out-of-range junk
                if rng.random() < 0.3:
                    claims.append((t, i))
        if claims and rng.random() < 0.2:
            claims.append(claims[0])  # a repeat
        members.append(Member(f"m{j}", subscription, partitions_of(claims), rng.choice([-1, 1, 2, 2, 3])))
    return Problem(topics, tuple(members))


def closed_form_max_retained(problem: Problem) -> int:
    """Equal subscriptions, perfect balance: Σ min(v_m, f) + min(r, #{m: v_m >= c}) when c > f."""
    total = sum(problem.topics[t] for t in problem.subscribed_topics())
    n = len(problem.members)
    f, r = divmod(total, n)
    c = f + (1 if r else 0)
    v = [sum(len(a) for a in p.values()) for p in valid_owned(problem).values()]
    return sum(min(x, f) for x in v) + (min(r, sum(1 for x in v if x >= c)) if c > f else 0)


def test_min_cost_flow_agrees_with_z3_on_150_random_problems():
    rng = random.Random(20261121)
    infeasible_perfect = unequal = disputed = 0
    for _ in range(150):
        problem = random_problem(rng)
        unequal += not problem.subscriptions_equal()
        disputed += _has_same_generation_double_claim(problem)
        best = oracle.optimal_sum_squares(problem)
        assert best == z3_oracle.optimal_sum_squares(problem), problem
        for balance in ("none", "perfect", "optimal"):
            expected = z3_oracle.max_retained(problem, balance)
            assert oracle.max_retained(problem, balance) == expected, (balance, problem)
        infeasible_perfect += oracle.max_retained(problem, "perfect") is None
        chosen = oracle.optimal_assignment(problem)
        assert check_hard(problem, chosen) == []
        assert sum(c * c for c in chosen.counts().values()) == best
        assert retained(problem, chosen) == oracle.max_retained(problem, "optimal")
    assert 0 < infeasible_perfect < 150  # the sample exercises both outcomes
    assert unequal > 75 and disputed > 15  # and really is messy


def _has_same_generation_double_claim(problem):
    seen = {}
    for m in problem.members:
        for tp in set(iter_pairs(m.owned)):
            if seen.get(tp) == m.generation:
                return True
            seen[tp] = max(seen.get(tp, m.generation), m.generation)
    return False


@settings(max_examples=60, deadline=None)
@given(strategies.problems(max_members=4, max_topics=3, max_partitions_per_topic=4))
def test_min_cost_flow_agrees_with_z3_on_strategy_problems(problem):
    assert oracle.optimal_sum_squares(problem) == z3_oracle.optimal_sum_squares(problem)
    for balance in ("perfect", "optimal"):
        assert oracle.max_retained(problem, balance) == z3_oracle.max_retained(problem, balance)


def test_closed_form_for_equal_subscriptions():
    rng = random.Random(7)
    checked = 0
    for _ in range(200):
        topics = {f"t{i}": rng.randint(0, 9) for i in range(rng.randint(1, 3))}
        pairs = [(t, i) for t in sorted(topics) for i in range(topics[t])]
        members = []
        for j in range(rng.randint(1, 6)):
            claims = [p for p in pairs if rng.random() < 0.4]
            members.append(Member(f"m{j}", frozenset(topics), partitions_of(claims), rng.choice([1, 2, 3])))
        problem = Problem(topics, tuple(members))
        expected = closed_form_max_retained(problem)
        assert oracle.max_retained(problem, "perfect") == expected
        # with equal subscriptions the optimal balance is perfect balance
        assert oracle.max_retained(problem, "optimal") == expected
        checked += expected > 0
    assert checked > 100


def test_chain_needs_a_global_view():
    # a: {t0}, b: {t0, t1}, c: {t1}; t0 has 4, t1 has 2 -> best counts 2/2/2 (b takes from t0, c all of t1)
    problem = Problem(
        {"t0": 4, "t1": 2},
        (
            Member("a", frozenset({"t0"}), partitions_of({"t0": [0, 1, 2, 3]}), 1),
            Member("b", frozenset({"t0", "t1"}), partitions_of({"t1": [0, 1]}), 1),
            Member("c", frozenset({"t1"})),
        ),
    )
    assert oracle.optimal_sum_squares(problem) == 12
    # a keeps 2 of t0; b must take 2 of t0 so it keeps none of t1; c takes t1: 2 retained
    assert oracle.max_retained(problem, "optimal") == 2
    assert oracle.max_retained(problem, "none") == 6
    assert oracle.max_retained(problem, "perfect") == 2
    assert oracle.optimal_assignment(problem).as_lists() == {
        "a": {"t0": [0, 1]}, "b": {"t0": [2, 3]}, "c": {"t1": [0, 1]},
    }


def test_perfect_balance_can_be_impossible():
    problem = Problem({"t0": 4}, (Member("a", frozenset({"t0"})), Member("b", frozenset({"other"}))))
    assert oracle.max_retained(problem, "perfect") is None
    assert oracle.optimal_sum_squares(problem) == 16


def test_no_members_and_no_partitions():
    assert oracle.optimal_sum_squares(Problem({"t0": 3}, ())) == 0
    assert oracle.optimal_assignment(Problem({"t0": 3}, ())).as_lists() == {}
    empty = Problem({"t0": 0}, (Member("a", frozenset({"t0"})),))
    assert oracle.optimal_assignment(empty).as_lists() == {"a": {}}
    assert oracle.max_retained(empty, "perfect") == 0


def test_each_answer_is_kept_by_its_problem_and_a_settled_one_is_not_solved_again():
    problem = Problem({"t0": 4}, (Member("a", frozenset({"t0"}), partitions_of({"t0": [0, 1, 2]}), 1),
                                  Member("b", frozenset({"t0"}))))
    assert oracle.max_retained(problem, "perfect") == 2
    oracle.settle_max_retained(problem, "perfect", False, 5)  # an answer already there stays
    assert oracle.max_retained(problem, "perfect") == 2
    told = problem.replace()
    oracle.settle_max_retained(told, "perfect", False, 5)  # deliberately wrong: only a flow that ran would see it
    oracle.settle_min_mismatches(told, "perfect", 7)
    assert oracle.max_retained(told, "perfect") == 5 and oracle.min_mismatches(told, "perfect") == 7
    assert oracle.max_retained(told, "perfect", racks=True) == 2  # another question: answered by the flow


def test_only_a_check_that_needs_an_optimum_imports_or_tools():
    """The checker and the oracle's module load without OR-Tools; the first flow imports it."""
    code = ("import sys\n"
            "from assigncheck.spec import oracle\n"
            "from assigncheck.spec.assignment_check import check_assignment\n"
            "from assigncheck.spec.model import Assignment, Member, Problem\n"
            "problem = Problem({'t': 3}, (Member('a', frozenset({'t'})), Member('b', frozenset({'t'}))))\n"
            "report = check_assignment(problem, Assignment.of({'a': {'t': [0, 1]}, 'b': {'t': [2]}}), oracle=False)\n"
            "print(report.ok, 'ortools' in sys.modules)\n"
            "print(oracle.max_retained(problem, 'perfect'), 'ortools' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["True False", "0 True"]


def test_unknown_balance_is_an_input_error():
    with pytest.raises(InputError, match="balance"):
        oracle.max_retained(Problem({"t0": 1}, (Member("a", frozenset({"t0"})),)), "local")


def test_optimal_assignment_ignores_member_order():
    rng = random.Random(3)
    for _ in range(50):
        problem = random_problem(rng)
        reordered = problem.replace(members=tuple(reversed(problem.members)))
        assert oracle.optimal_assignment(problem) == oracle.optimal_assignment(reordered)
