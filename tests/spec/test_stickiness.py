"""Stickiness measures and promises (docs/SPEC.md §5), KAFKA-16277 included, on hand-made outputs."""

from assigncheck.spec.model import Assignment, Member, Problem
from assigncheck.spec.stickiness import (
    max_retained_violations,
    moves,
    per_topic_spread,
    per_topic_spread_violations,
    retained,
    withheld,
)


def group(topics, members, protocol="eager"):
    return Problem(topics, tuple(Member(m, frozenset(s), o, g) for m, s, o, g in members), protocol)


def test_retained_moves_withheld_count_valid_ownership_only():
    prob = group({"t0": 4, "t1": 1}, [
        ("a", {"t0"}, {"t0": [0, 1, 1]}, 2),  # the repeat counts once
        ("b", {"t0"}, {"t0": [1, 9]}, 1),  # t0-1: a's (higher generation); t0-9 does not exist
        ("c", {"t0"}, {"t1": [0]}, 3),  # c no longer subscribes to t1: not a valid claim, not a move
    ])
    out = Assignment.of({"a": {"t0": [0]}, "b": {"t0": [1, 2]}, "c": {}})
    assert retained(prob, out) == 1
    assert moves(prob, out) == 1  # t0-1 went from a to b
    assert withheld(prob, out) == 1  # t0-3
    assert per_topic_spread(prob, out) == 2


def kafka_16277(kept_by_c0):
    """c0 owned all of topic1 and topic2; c1 joins (KAFKA-16277)."""
    prob = group({"topic1": 2, "topic2": 2}, [
        ("c0", {"topic1", "topic2"}, {"topic1": [0, 1], "topic2": [0, 1]}, 1),
        ("c1", {"topic1", "topic2"}, {}, -1),
    ])
    rest = {"topic1": [i for i in (0, 1) if i not in kept_by_c0.get("topic1", [])],
            "topic2": [i for i in (0, 1) if i not in kept_by_c0.get("topic2", [])]}
    return prob, Assignment.of({"c0": kept_by_c0, "c1": rest})


def test_kafka_16277_one_consumer_keeps_a_topic_the_other_gets_the_other():
    prob, bug = kafka_16277({"topic1": [0, 1]})
    [v] = per_topic_spread_violations(prob, bug)
    assert v.invariant == "per_topic_spread"
    assert v.members == ("c0",)
    assert v.partitions == (("topic2", 0), ("topic2", 1))
    assert "c0 kept 2 of topic1 but only 0 of topic2" in v.message
    assert per_topic_spread(prob, bug) == 2
    prob, fixed = kafka_16277({"topic1": [0], "topic2": [0]})
    assert per_topic_spread_violations(prob, fixed) == []


def test_kept_counts_may_differ_when_nothing_of_the_lower_topic_was_given_up():
    prob = group({"t1": 3, "t2": 1}, [("a", {"t1", "t2"}, {"t1": [0, 1, 2], "t2": [0]}, 1),
                                      ("b", {"t1", "t2"}, {}, -1)])
    out = Assignment.of({"a": {"t1": [0, 1], "t2": [0]}, "b": {"t1": [2]}})  # gave up t1, kept all of t2
    assert per_topic_spread_violations(prob, out) == []


def test_fresh_problem_wants_each_topic_split_evenly():
    prob = group({"t1": 2, "t2": 2}, [("a", {"t1", "t2"}, {}, -1), ("b", {"t1", "t2"}, {}, -1)])
    [v] = per_topic_spread_violations(prob, Assignment.of({"a": {"t1": [0, 1]}, "b": {"t2": [0, 1]}}))
    assert v.invariant == "per_topic_spread" and set(v.members) == {"a", "b"}
    assert per_topic_spread_violations(prob, Assignment.of({"a": {"t1": [0], "t2": [1]},
                                                            "b": {"t1": [1], "t2": [0]}})) == []
    # unequal subscriptions: part (a) does not apply
    uneq = group({"t1": 2, "t2": 2}, [("a", {"t1", "t2"}, {}, -1), ("b", {"t2"}, {}, -1)])
    assert per_topic_spread_violations(uneq, Assignment.of({"a": {"t1": [0, 1]}, "b": {"t2": [0, 1]}})) == []


def test_max_retained_fires_on_a_needless_swap():
    prob = group({"t0": 4}, [("a", {"t0"}, {"t0": [0, 1]}, 1), ("b", {"t0"}, {"t0": [2, 3]}, 1)])
    swapped = Assignment.of({"a": {"t0": [2, 3]}, "b": {"t0": [0, 1]}})
    [v] = max_retained_violations(prob, swapped, "perfect")
    assert v.invariant == "stickiness.max_retained"
    assert "retained 0" in v.message and "4 can be kept under perfect balance" in v.message
    assert max_retained_violations(prob, Assignment.of({"a": {"t0": [0, 1]}, "b": {"t0": [2, 3]}}), "perfect") == []


def test_max_retained_is_taken_under_the_balance_promise():
    # a owns everything: keeping it all is unbalanced, so perfect balance allows only 2 kept.
    prob = group({"t0": 4}, [("a", {"t0"}, {"t0": [0, 1, 2, 3]}, 1), ("b", {"t0"}, {}, -1)])
    half = Assignment.of({"a": {"t0": [0, 1]}, "b": {"t0": [2, 3]}})
    assert max_retained_violations(prob, half, "perfect") == []
    [v] = max_retained_violations(prob, half, "none")
    assert "4 can be kept" in v.message
