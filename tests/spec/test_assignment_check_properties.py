"""Properties tying the checker to the oracle and to the literal definitions, on generated problems."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assigncheck.generate.strategies import problems
from assigncheck.spec.assignment_check import check_assignment
from assigncheck.spec.model import Assignment
from assigncheck.spec.oracle import optimal_assignment
from assigncheck.spec.promises import Promises
from assigncheck.spec.reference import REFERENCES

KNOWN = {"H1", "H2", "H3", "H4", "H5", "H6", "balance.perfect", "balance.per-topic", "balance.local",
         "balance.optimal", "stickiness.max_retained", "per_topic_spread"}
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(problems(protocol="eager", claims="junk"))
def test_the_oracles_optimum_meets_every_promise_it_is_built_for(problem):
    """An optimally balanced, maximally retaining assignment is valid, locally balanced, optimal, and
    retains max_retained("optimal"); perfectly balanced too when subscriptions are equal."""
    out = optimal_assignment(problem)
    promises = Promises(balance="optimal", stickiness="max_retained")
    report = check_assignment(problem, out, promises)
    assert report.ok, report.violations
    assert report.quality["sum_squares"] == report.quality["optimal_sum_squares"]
    assert report.quality["retained"] == report.quality["max_retained"]
    assert check_assignment(problem, out, Promises(balance="local")).ok
    if problem.subscriptions_equal():
        assert check_assignment(problem, out, Promises(balance="perfect")).ok


@SETTINGS
@given(problems(protocol="eager", claims="junk"))
def test_range_and_roundrobin_references_meet_their_balance(problem):
    assert check_assignment(problem, REFERENCES["range"].assign(problem), Promises(balance="per-topic")).ok
    rr = check_assignment(problem, REFERENCES["roundrobin"].assign(problem), Promises(balance="perfect"))
    assert rr.ok, rr.violations


@SETTINGS
@given(problems(claims="junk"), st.data())
def test_any_output_is_judged_without_raising(problem, data):
    names = [*problem.member_ids, "stranger"]
    topics = [*problem.topics, "gone"]
    pair = st.tuples(st.sampled_from(topics), st.integers(-2, 9))
    out = Assignment.of({m: data.draw(st.lists(pair, max_size=6)) for m in names if data.draw(st.booleans())})
    balance = data.draw(st.sampled_from(["none", "per-topic", "local", "perfect", "optimal"]))
    promises = Promises(balance=balance, stickiness="max_retained", per_topic_spread=True)
    report = check_assignment(problem, out, promises)
    assert {v.invariant for v in report.violations} <= KNOWN
    assert set(report.quality) >= {"members", "partitions", "spread", "sum_squares", "optimal_sum_squares",
                                   "retained", "max_retained", "moves", "withheld", "per_topic_spread"}
