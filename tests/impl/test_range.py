"""Range (`impl/range.py`): Kafka's documented examples (plain, static members, KIP-881 rack-aware from
Kafka's RangeAssignorTest) and the exact promise: identical to the spec's reference on every problem."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from assigncheck.generate.strategies import problems as spec_problems
from assigncheck.impl.range import RangeAssignor
from assigncheck.run.assignor_check import check_assignor
from assigncheck.spec.model import Member, Problem
from assigncheck.spec.reference import REFERENCES

from .problems import problems

RANGE = ASSIGNOR = RangeAssignor()
RACKS = ("a", "b", "c")


def as_strings(problem: Problem, ids: list[str]) -> list[str]:
    """Kafka's test notation: one 't1-0, t1-1, ...' string per member."""
    lists = RANGE.assign(problem).as_lists()
    return [", ".join(f"{t}-{i}" for t, indices in sorted(lists[m].items()) for i in indices) for m in ids]


def test_javadoc_example_two_consumers_two_topics():
    problem = Problem({"t0": 3, "t1": 3}, (Member("C1", {"t0", "t1"}), Member("C0", {"t0", "t1"})))
    assert RANGE.assign(problem).as_lists() == {"C0": {"t0": [0, 1], "t1": [0, 1]}, "C1": {"t0": [2], "t1": [2]}}


def test_static_members_come_first_by_instance_id():
    members = (Member("a", {"t"}), Member("b", {"t"}, instance_id="z"), Member("c", {"t"}, instance_id="y"))
    assert RANGE.assign(Problem({"t": 5}, members)).as_lists() == {
        "c": {"t": [0, 1]}, "b": {"t": [2, 3]}, "a": {"t": [4]}}


def test_topics_missing_from_metadata_or_empty_are_skipped_kafka_3661():
    problem = Problem({"t": 0, "u": 2}, (Member("a", {"t", "ghost", "u"}), Member("b", {"ghost"})))
    assert RANGE.assign(problem).as_lists() == {"a": {"u": [0, 1]}, "b": {}}


def _kafka_racks(topics: dict[str, int], replication: int) -> dict[str, tuple[frozenset[str], ...]]:
    """AbstractPartitionAssignorTest.partitionInfos with 3 broker racks: broker k is on rack k % 3, partition
    i of a topic is on brokers (i + j + next) % brokers for j < replication, `next` counting earlier partitions."""
    brokers, seen, out = 3 * replication, 0, {}
    for topic, n in topics.items():
        out[topic] = tuple(frozenset(RACKS[(i + j + seen) % brokers % 3] for j in range(replication))
                           for i in range(n))
        seen += n
    return out


def test_rack_aware_uniform_subscription_matches_kafka():
    # RangeAssignorTest.testRackAwareAssignmentWithUniformSubscription, replication 1 and 2, racks(3).
    topics = {"t1": 6, "t2": 7, "t3": 2}
    members = tuple(Member(f"consumer{i}", set(topics), rack=RACKS[i]) for i in range(3))
    ids = [m.member_id for m in members]
    one = Problem(topics, members, partition_racks=_kafka_racks(topics, 1))
    assert as_strings(one, ids) == ["t1-0, t1-3, t2-0, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t3-0",
                                    "t1-2, t1-5, t2-2, t2-5, t3-1"]
    two = Problem(topics, members, partition_racks=_kafka_racks(topics, 2))
    assert as_strings(two, ids) == ["t1-0, t1-2, t2-0, t2-2, t2-3, t3-1", "t1-1, t1-3, t2-1, t2-4, t3-0",
                                    "t1-4, t1-5, t2-5, t2-6"]


def test_rack_aware_co_partitioned_topics_match_kafka():
    # RangeAssignorTest.testRackAwareAssignmentWithCoPartitioning, replication 1, racks(2): even partitions on a.
    topics = {"t1": 6, "t2": 6, "t3": 2, "t4": 2}
    racks = {t: tuple(frozenset({"ab"[i % 2]}) for i in range(n)) for t, n in topics.items()}
    subs = [{"t1", "t2"}, {"t1", "t2"}, {"t3", "t4"}, {"t3", "t4"}]
    members = tuple(Member(f"consumer{i}", subs[i], rack="abba"[i]) for i in range(4))
    assert as_strings(Problem(topics, members, partition_racks=racks), [m.member_id for m in members]) == [
        "t1-0, t1-2, t1-4, t2-0, t2-2, t2-4", "t1-1, t1-3, t1-5, t2-1, t2-3, t2-5", "t3-1, t4-1", "t3-0, t4-0"]


def test_same_rack_everywhere_is_plain_range():
    topics = {"t": 5}
    racks = {"t": tuple(frozenset(RACKS) for _ in range(5))}
    members = tuple(Member(f"c{i}", {"t"}, rack=RACKS[i]) for i in range(3))
    assert RANGE.assign(Problem(topics, members, partition_racks=racks)).as_lists() == {
        "c0": {"t": [0, 1]}, "c1": {"t": [2, 3]}, "c2": {"t": [4]}}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(equal=None, protocol=None, max_members=6, max_topics=4, max_partitions=8, racks=True))
def test_identical_to_the_reference_and_every_promise_holds(problem):
    assert RANGE.assign(problem) == REFERENCES["range"].assign(problem)
    out, report = check_assignor(RANGE, problem, budget_s=None, oracle=False)
    assert out is not None and report.ok, [v.message for v in report.violations]


def test_large_problem_identical_to_the_reference():
    import random

    rng = random.Random(7)
    topics = {f"t{i:03d}": rng.randint(0, 60) for i in range(40)}
    names = sorted(topics) + ["ghost"]
    members = tuple(Member(f"m{k:03d}", set(rng.sample(names, rng.randint(1, 8))),
                           instance_id=f"i{k}" if k % 7 == 0 else None) for k in range(150))
    problem = Problem(topics, members)
    assert RANGE.assign(problem) == REFERENCES["range"].assign(problem)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec_problems(min_partitions_per_topic=0, racks=None, max_members=7))
def test_identical_to_the_reference_on_the_spec_strategies(problem):
    assert ASSIGNOR.assign(problem) == REFERENCES[ASSIGNOR.name].assign(problem)
