"""The checker: `Report`, `check_assignment` (promises, withheld rounds, domain, quality table)."""

import json

from assigncheck.spec.assignment_check import Report, check_assignment, oracle_affordable
from assigncheck.spec.model import Assignment, Client, Member, Problem, StreamsProblem
from assigncheck.spec.promises import Promises
from assigncheck.spec.violations import Violation


def group(topics, members, protocol="eager"):
    return Problem(topics, tuple(Member(m, frozenset(s), o, g) for m, s, o, g in members), protocol)


STICKY = group({"t0": 4, "t1": 2}, [
    ("a", {"t0", "t1"}, {"t0": [0, 1, 2, 3]}, 1),
    ("b", {"t0", "t1"}, {"t1": [0, 1]}, 1),
    ("c", {"t0", "t1"}, {}, -1),
])
KEEPS_MOST = Assignment.of({"a": {"t0": [0, 1]}, "b": {"t1": [0, 1]}, "c": {"t0": [2, 3]}})
MOVES_ALL = Assignment.of({"a": {"t1": [0, 1]}, "b": {"t0": [0, 1]}, "c": {"t0": [2, 3]}})


def test_report_ok_merge_and_json():
    v1, v2 = Violation("H4", "twice", ("a",), (("t0", 1),)), Violation("fixpoint", "moves")
    r = Report((v1,), {"spread": 1, "rounds": None}).merge(Report((v2,), {"rounds": 2}), Report())
    assert not r.ok and Report().ok
    assert r.violations == (v1, v2)
    assert r.quality == {"spread": 1, "rounds": 2}
    doc = json.loads(json.dumps(r.to_json()))
    assert doc["ok"] is False
    assert doc["violations"][0] == {"invariant": "H4", "message": "twice", "members": ["a"], "partitions": [["t0", 1]]}


def test_quality_table_measures_everything():
    report = check_assignment(STICKY, MOVES_ALL, Promises())
    assert report.ok  # nothing promised, and the hard invariants hold
    assert report.quality == {
        "members": 3, "partitions": 6, "spread": 0, "sum_squares": 12, "optimal_sum_squares": 12,
        "retained": 0, "max_retained": 6, "moves": 6, "withheld": 0, "per_topic_spread": 2, "rack_mismatches": 0,
        "promises_enforced": 1,
    }
    assert oracle_affordable(STICKY)
    blind = check_assignment(STICKY, MOVES_ALL, Promises(), oracle=False).quality
    assert blind["optimal_sum_squares"] is None and blind["max_retained"] is None


def test_promised_stickiness_and_balance_are_enforced():
    promises = Promises(balance="perfect", stickiness="max_retained")
    assert check_assignment(STICKY, KEEPS_MOST, promises).ok
    report = check_assignment(STICKY, MOVES_ALL, promises)
    assert [v.invariant for v in report.violations] == ["stickiness.max_retained"]
    assert report.quality["max_retained"] == 4 and report.quality["retained"] == 0
    lopsided = Assignment.of({"a": {"t0": [0, 1, 2, 3]}, "b": {"t1": [0, 1]}, "c": {}})
    assert [v.invariant for v in check_assignment(STICKY, lopsided, promises).violations] == ["balance.perfect"]
    # without the oracle, the stickiness promise cannot be judged and is left out
    assert check_assignment(STICKY, MOVES_ALL, promises, oracle=False).ok


def test_hard_invariants_come_first_and_always():
    out = Assignment.of({"a": {"t0": [0, 1, 1]}, "b": {"t1": [0, 1]}, "c": {"t0": [2, 3]}})
    report = check_assignment(STICKY, out, Promises(balance="per-topic"))
    assert [v.invariant for v in report.violations] == ["H4", "balance.per-topic"]


def test_promises_wait_until_nothing_is_withheld():
    coop = STICKY.replace(protocol="cooperative")
    # round 1: c may not get a's partitions yet; a still holds 2 too many
    round1 = Assignment.of({"a": {"t0": [0, 1]}, "b": {"t1": [0, 1]}, "c": {}})
    report = check_assignment(coop, round1, Promises(balance="perfect", per_topic_spread=True))
    assert report.ok
    assert report.quality["withheld"] == 2 and report.quality["promises_enforced"] == 0
    assert not check_assignment(coop, round1, Promises(balance="perfect")).violations  # H5 allows it
    unclaimed = check_assignment(STICKY, round1, Promises(balance="perfect"))  # eager: H5 fires
    assert [v.invariant for v in unclaimed.violations] == ["H5"]


def test_promises_outside_the_domain_are_skipped():
    unequal = group({"t0": 4, "t1": 1}, [("a", {"t0"}, {}, -1), ("b", {"t0", "t1"}, {}, -1)])
    out = Assignment.of({"a": {"t0": [0, 1, 2, 3]}, "b": {"t1": [0]}})
    promises = Promises(balance="local", equal_subscriptions_only=True)
    report = check_assignment(unequal, out, promises)
    assert report.ok and report.quality["promises_enforced"] == 0
    [v] = check_assignment(unequal, out, Promises(balance="local")).violations
    assert v.invariant == "balance.local"


def test_streams_problems_go_to_the_streams_checks():
    problem = StreamsProblem({"s0": 2}, (Client("A", 1), Client("B", 1)))
    good = check_assignment(problem, Assignment.of({"A": {"s0": [0]}, "B": {"s0": [1]}}))
    assert good.ok
    bad = check_assignment(problem, Assignment.of({"A": {"s0": [0, 1]}, "B": {"s0": [1]}}))
    assert not bad.ok and all(v.invariant.startswith("streams.") for v in bad.violations)
