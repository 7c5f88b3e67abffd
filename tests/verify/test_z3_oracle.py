"""verify.z3_oracle on hand-checked cases (its agreement with spec.oracle is in test_oracle.py)."""

import inspect

import numpy as np
import pytest

from assigncheck.spec import oracle
from assigncheck.spec.errors import InputError
from assigncheck.spec.invariants import check_hard
from assigncheck.spec.model import LagInfo, Member, Problem, TopicOffsets, partitions_of
from assigncheck.spec.reference import REFERENCES
from assigncheck.spec.reference.lag import lag_spread
from assigncheck.verify import z3_oracle


def lag_problem(lags, n_members):
    n = len(lags)
    offsets = TopicOffsets(np.zeros(n, dtype=np.int64), np.array(lags, dtype=np.int64), np.zeros(n, dtype=np.int64))
    members = tuple(Member(f"m{i}", frozenset({"t"})) for i in range(n_members))
    return Problem({"t": n}, members, lag=LagInfo({"t": offsets}))


@pytest.mark.parametrize("figure", ["optimal_sum_squares", "max_retained", "min_mismatches", "optimal_assignment"])
def test_a_figure_both_oracles_name_has_one_signature(figure):
    """A name means one idea: each figure Z3 recomputes is called exactly as `spec.oracle`'s."""
    assert inspect.signature(getattr(z3_oracle, figure)) == inspect.signature(getattr(oracle, figure))


def test_lag_greedy_can_miss_the_optimum():
    problem = lag_problem([3, 3, 2, 2, 2], 2)
    # greedy: 3->m0, 3->m1, 2->m0, 2->m1, 2->m0: totals 7 and 5; best: {2, 2, 2} and {3, 3}
    assert lag_spread(problem, REFERENCES["lag"].assign(problem)) == {"t": 2}
    assert z3_oracle.lag_spread_optimum(problem) == {"t": 0}


def test_lag_optimum_respects_count_balance():
    # without count balance one member could take the 10 alone: spread 0; with it, 10+0 vs 0+0
    problem = lag_problem([10, 0, 0, 0], 2)
    assert z3_oracle.lag_spread_optimum(problem) == {"t": 10}
    assert z3_oracle.lag_spread_optimum(lag_problem([7, 5, 4, 6], 2)) == {"t": 0}


def test_optimal_assignment_and_retained():
    problem = Problem(
        {"t0": 3, "t1": 1},
        (
            Member("a", frozenset({"t0", "t1"}), partitions_of({"t0": [0, 1, 2], "t1": [0]}), 2),
            Member("b", frozenset({"t0"}), partitions_of({"t0": [2]}), 1),  # loses t0-2 to a (generation)
        ),
    )
    out = z3_oracle.optimal_assignment(problem)
    assert check_hard(problem, out) == []
    assert sorted(out.counts().values()) == [2, 2]
    assert z3_oracle.optimal_sum_squares(problem) == 8
    assert z3_oracle.max_retained(problem, "optimal") == 2
    assert z3_oracle.max_retained(problem, "none") == 4
    assert z3_oracle.max_retained(problem, "perfect") == 2


def test_perfect_balance_can_be_impossible():
    problem = Problem({"t0": 4}, (Member("a", frozenset({"t0"})), Member("b", frozenset({"x"}))))
    assert z3_oracle.max_retained(problem, "perfect") is None


def test_large_problems_are_refused():
    problem = Problem({"t": 2000}, tuple(Member(f"m{i}", frozenset({"t"})) for i in range(3)))
    with pytest.raises(InputError, match="too large"):
        z3_oracle.optimal_sum_squares(problem)
    with pytest.raises(InputError, match="balance"):
        z3_oracle.max_retained(lag_problem([1], 1), "per-topic")
