"""The range reference: docs/SPEC.md §7.1's and Kafka's examples, KIP-881 rack cases, and spec properties."""

import random

from hypothesis import given, settings

from assigncheck.generate import strategies
from assigncheck.spec.balance import per_topic
from assigncheck.spec.invariants import check_hard
from assigncheck.spec.model import Member, Problem
from assigncheck.spec.reference import REFERENCES
from assigncheck.spec.reference.range import plain_range

RANGE = REFERENCES["range"]


def members(*ids, topics, racks=None):
    return tuple(Member(m, frozenset(topics), rack=(racks or {}).get(m)) for m in ids)


def test_spec_example_one_topic_three_consumers():
    problem = Problem({"T": 5}, members("C0", "C1", "C2", topics={"T"}))
    assert RANGE.assign(problem).as_lists() == {"C0": {"T": [0, 1]}, "C1": {"T": [2, 3]}, "C2": {"T": [4]}}
    # C0 leaves
    problem = Problem({"T": 5}, members("C1", "C2", topics={"T"}))
    assert RANGE.assign(problem).as_lists() == {"C1": {"T": [0, 1, 2]}, "C2": {"T": [3, 4]}}


def test_spec_example_two_topics_favour_the_first_consumer():
    problem = Problem({"t0": 5, "T1": 4}, members("C0", "C1", "C2", topics={"t0", "T1"}))
    assert RANGE.assign(problem).as_lists() == {
        "C0": {"T1": [0, 1], "t0": [0, 1]},
        "C1": {"T1": [2], "t0": [2, 3]},
        "C2": {"T1": [3], "t0": [4]},
    }


def test_kafka_javadoc_example():
    problem = Problem({"t0": 3, "t1": 3}, members("C0", "C1", topics={"t0", "t1"}))
    assert RANGE.assign(problem).as_lists() == {"C0": {"t0": [0, 1], "t1": [0, 1]}, "C1": {"t0": [2], "t1": [2]}}


def test_static_members_first_by_instance_id_and_absent_topics_skipped():
    problem = Problem(
        {"t": 4, "empty": 0},
        (
            Member("a", frozenset({"t", "gone", "empty"})),
            Member("z", frozenset({"t"}), instance_id="i1"),
            Member("y", frozenset({"t"}), instance_id="i2"),
        ),
    )
    assert RANGE.assign(problem).as_lists() == {"z": {"t": [0, 1]}, "y": {"t": [2]}, "a": {"t": [3]}}


def test_rack_aware_single_topic_matches_racks():
    problem = Problem(
        {"t": 6},
        members("c0", "c1", "c2", topics={"t"}, racks={"c0": "a", "c1": "b", "c2": "c"}),
        partition_racks={"t": [{"a"}, {"b"}, {"c"}, {"a"}, {"b"}, {"c"}]},
    )
    assert RANGE.assign(problem).as_lists() == {"c0": {"t": [0, 3]}, "c1": {"t": [1, 4]}, "c2": {"t": [2, 5]}}


def test_rack_aware_off_when_every_partition_has_the_same_racks():
    problem = Problem(
        {"t": 6},
        members("c0", "c1", "c2", topics={"t"}, racks={"c0": "a", "c1": "b", "c2": "c"}),
        partition_racks={"t": [{"a", "b", "c"}] * 6},
    )
    assert RANGE.assign(problem) == plain_range(problem)


def test_rack_aware_balance_beats_rack_alignment():
    # every partition is on rack a: c0 (rack a) may still take only its quota of 2
    problem = Problem(
        {"t": 5},
        members("c0", "c1", "c2", topics={"t"}, racks={"c0": "a", "c1": "b", "c2": "b"}),
        partition_racks={"t": [{"a"}, {"a"}, {"a"}, {"a"}, {"a", "b"}]},
    )
    # rack pass: c0 takes [0, 1]; c1 takes [4] (the only b partition); c2 none. Fill: c1 +[2], c2 [3]
    assert RANGE.assign(problem).as_lists() == {"c0": {"t": [0, 1]}, "c1": {"t": [2, 4]}, "c2": {"t": [3]}}


def test_co_partitioned_topics_move_together():
    # t1 alone would give c0 partition 0; co-partitioned with t2, partition 0 must go where both match
    problem = Problem(
        {"t1": 2, "t2": 2},
        members("c0", "c1", topics={"t1", "t2"}, racks={"c0": "a", "c1": "b"}),
        partition_racks={"t1": [{"a", "b"}, {"a"}], "t2": [{"b"}, {"a", "b"}]},
    )
    assert RANGE.assign(problem).as_lists() == {"c0": {"t1": [1], "t2": [1]}, "c1": {"t1": [0], "t2": [0]}}
    # without t2 the lone-topic pass runs instead
    alone = Problem({"t1": 2}, members("c0", "c1", topics={"t1"}, racks={"c0": "a", "c1": "b"}),
                    partition_racks={"t1": [{"a", "b"}, {"a"}]})
    assert RANGE.assign(alone).as_lists() == {"c0": {"t1": [0]}, "c1": {"t1": [1]}}


def test_member_without_rack_matches_everything():
    problem = Problem(
        {"t": 4},
        members("c0", "c1", topics={"t"}, racks={"c1": "b"}),
        partition_racks={"t": [{"b"}, {"b"}, {"a"}, {"a"}]},
    )
    # rack pass: c0 (no rack) takes [0, 1] first; c1 finds no b partition left; fill gives it [2, 3]
    assert RANGE.assign(problem).as_lists() == {"c0": {"t": [0, 1]}, "c1": {"t": [2, 3]}}


@settings(max_examples=150, deadline=None)
@given(strategies.problems(racks=None, max_members=6, protocol="eager"))
def test_properties(problem):
    out = RANGE.assign(problem)
    assert check_hard(problem, out) == []
    assert per_topic(problem, out) == []
    if problem.partition_racks is None or not any(m.rack for m in problem.members):
        assert out == plain_range(problem)
    shuffled = list(problem.members)
    random.Random(len(shuffled)).shuffle(shuffled)
    assert RANGE.assign(problem.replace(members=tuple(reversed(shuffled)))) == out


def test_rack_aware_runs_keep_per_topic_balance():
    rng = random.Random(881)
    rack_aware = 0
    for _ in range(300):
        topics = {f"t{i}": rng.randint(1, 6) for i in range(rng.randint(1, 3))}
        racks = {t: [frozenset(r for r in "ab" if rng.random() < 0.6) for _ in range(n)] for t, n in topics.items()}
        ms = tuple(
            Member(f"c{j}", frozenset(t for t in topics if rng.random() < 0.8) or frozenset(topics),
                   rack=rng.choice([None, "", "a", "b", "c"]))
            for j in range(rng.randint(1, 4))
        )
        problem = Problem(topics, ms, partition_racks=racks)
        out = RANGE.assign(problem)
        assert check_hard(problem, out) == []
        assert per_topic(problem, out) == []
        rack_aware += out != plain_range(problem)
    assert rack_aware > 30  # the sample really exercises the rack-aware path
