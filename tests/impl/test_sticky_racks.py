"""KIP-881 in every sticky assignor (spec.racks, docs/ALGORITHMS.md): on rack-aware problems the fewest rack
mismatches the balance promise allows, then the most retained. Kafka's rack tests (AbstractPartitionAssignorTest's
`useRackAwareAssignment`, AbstractStickyAssignorTest's rack variants, CooperativeStickyAssignorTest's
`testUniformSubscriptionTransferOwnershipListIsRight`; librdkafka's `ut_testRackAware*` are ports of the same
shapes) ported: Kafka's greedy builders and our flow pick different partitions, so a port asserts the balance,
Kafka's mismatch count as an upper bound and the oracle's minimum as the exact figure, not Kafka's lists."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings

from assigncheck.generate.strategies import problems
from assigncheck.run.assignor_check import check_assignor
from assigncheck.spec import oracle, racks, stickiness
from assigncheck.spec.balance import spread
from assigncheck.spec.model import Member, Problem, partitions_of
from assigncheck.spec.ownership import valid_owned
from assigncheck.spec.rounds import run_rounds
from assigncheck.targets import registry

from .rack_shapes import kafka_problem, null_racks
from .rack_shapes import racks as rack_list

STICKY = ["sticky", "sticky-constrained", "sticky-constrained-4phase", "cooperative-sticky"]
GENERAL = ["sticky", "cooperative-sticky"]
ALL3 = ["t1", "t2", "t3"]


def test_use_rack_aware_assignment_as_kafka():
    """AbstractPartitionAssignorTest.testUseRackAwareAssignment, without the test-only preferRackAwareLogic."""
    def problem(consumer_racks, partition_racks):
        members = tuple(Member(f"c{i}", frozenset({"topic"}), rack=r) for i, r in enumerate(consumer_racks))
        return Problem({"topic": len(partition_racks)}, members, partition_racks={"topic": partition_racks})

    on_all = [frozenset("abc")] * 10
    on_one = [frozenset(("abc")[i % 3]) for i in range(10)]
    assert not racks.rack_aware(problem([None, None], on_all))
    assert not racks.rack_aware(problem(["d"], on_all))
    assert not racks.rack_aware(problem(["a", "b", "c"], on_all))
    assert not racks.rack_aware(problem(["a", "b"], on_all))
    assert not racks.rack_aware(problem(["a", "d"], on_all))
    assert racks.rack_aware(problem(["a", "b", "c"], on_one))
    assert racks.rack_aware(problem(["a", "b"], on_one))
    assert racks.rack_aware(problem(["a", "d"], on_one))
    assert not racks.rack_aware(problem(["d", "e"], on_one))  # disjoint racks
    assert not racks.rack_aware(problem(["", None], on_one))  # "" is no rack
    assert not racks.rack_aware(Problem({"topic": 2}, (Member("c", frozenset({"topic"}), rack="a"),)))


def _judge(name: str, problem: Problem, kafka_mismatches: int) -> None:
    out = registry.get(name).assign(problem)
    if racks.rack_aware(problem):
        got = racks.mismatches(problem, out)
        best = oracle.min_mismatches(problem, "optimal")
        assert got == best <= kafka_mismatches, (name, got, best, kafka_mismatches)
    assert spread(problem, out) <= 1 or not problem.subscriptions_equal()
    _, report = check_assignor(registry.get(name), problem, oracle=True, budget_s=None)
    assert report.ok, (name, [v.message for v in report.violations])


# (replication factor, broker racks, consumer racks, Kafka's mismatch count); -1: Kafka does not check
UNIFORM = [
    (3, null_racks(3), rack_list(3), -1), (3, rack_list(3), null_racks(3), -1), (3, rack_list(3), rack_list(3), 0),
    (4, rack_list(4), rack_list(3), 0), (3, rack_list(3), ["d", "e", "f"], -1), (3, rack_list(3), [None, "e", "f"], -1),
    (1, rack_list(3), rack_list(3), 0), (2, rack_list(3), rack_list(3), 0), (3, rack_list(2), rack_list(3), 5),
]


@pytest.mark.parametrize("name", STICKY)
@pytest.mark.parametrize("rf,brokers,consumers,kafka", UNIFORM)
def test_rack_aware_assignment_with_uniform_subscription(name, rf, brokers, consumers, kafka):
    """AbstractStickyAssignorTest.testRackAwareAssignmentWithUniformSubscription: fresh, then fed Kafka's own
    assignment back as owned (verifyUniformSubscription runs both)."""
    topics = {"t1": 6, "t2": 7, "t3": 2}
    kafka_out = ["t1-0, t1-3, t2-0, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t3-0", "t1-2, t1-5, t2-2, t2-5, t3-1"]
    bound = 15 if kafka < 0 else kafka
    for owned in (None, kafka_out):
        _judge(name, kafka_problem(topics, rf, brokers, consumers, [ALL3] * 3, owned), bound)


@pytest.mark.parametrize("name", STICKY)
def test_misaligned_owned_partitions_move_to_their_racks(name):
    """'Verify that rack-awareness is improved if already owned partitions are misaligned': rack matching ranks
    above stickiness, and the result has no mismatch."""
    topics = {"t1": 6, "t2": 7, "t3": 2}
    owned = ["t1-0, t1-1, t1-2, t1-3, t1-4", "t1-5, t2-0, t2-1, t2-2, t2-3", "t2-4, t2-5, t2-6, t3-0, t3-1"]
    problem = kafka_problem(topics, 1, rack_list(3), rack_list(3), [ALL3] * 3, owned)
    out = registry.get(name).assign(problem)
    assert racks.mismatches(problem, out) == 0
    assert stickiness.retained(problem, out) < 15  # rack matching cost stickiness here
    assert stickiness.retained(problem, out) == oracle.max_retained(problem, "optimal", racks=True)


@pytest.mark.parametrize("name", STICKY)
def test_stickiness_is_retained_when_racks_match(name):
    """'Verify that stickiness is retained when racks match': replication 3 over 3 racks puts every partition
    on every rack, so racks change nothing and a balanced previous assignment is kept whole."""
    topics = {"t1": 6, "t2": 7, "t3": 2}
    owned = ["t1-0, t1-3, t2-0, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t3-0", "t1-2, t1-5, t2-2, t2-5, t3-1"]
    problem = kafka_problem(topics, 3, rack_list(3), rack_list(3), [ALL3] * 3, owned)
    assert not racks.rack_aware(problem)
    assert stickiness.retained(problem, registry.get(name).assign(problem)) == 15


NON_EQUAL = [
    (3, null_racks(3), rack_list(3), -1), (3, rack_list(3), null_racks(3), -1), (3, rack_list(3), rack_list(3), 0),
    (4, rack_list(4), rack_list(3), 0), (3, rack_list(3), ["d", "e", "f"], -1), (3, rack_list(3), [None, "e", "f"], -1),
    (1, rack_list(3), rack_list(3), 4), (2, rack_list(3), rack_list(3), 0), (3, rack_list(2), rack_list(3), 5),
]


@pytest.mark.parametrize("name", GENERAL)
@pytest.mark.parametrize("rf,brokers,consumers,kafka", NON_EQUAL)
def test_rack_aware_assignment_with_non_equal_subscription(name, rf, brokers, consumers, kafka):
    """AbstractStickyAssignorTest.testRackAwareAssignmentWithNonEqualSubscription (consumer2 subscribes to t1 and
    t3 only): at most Kafka's mismatches (its RF-1 case leaves 4, 'best-effort'), exactly the oracle's minimum."""
    topics = {"t1": 6, "t2": 7, "t3": 2}
    subs = [ALL3, ALL3, ["t1", "t3"]]
    kafka_out = ["t1-5, t2-0, t2-2, t2-4, t2-6", "t1-3, t2-1, t2-3, t2-5, t3-0", "t1-0, t1-1, t1-2, t1-4, t3-1"]
    bound = 15 if kafka < 0 else kafka
    for owned in (None, kafka_out):
        _judge(name, kafka_problem(topics, rf, brokers, consumers, subs, owned), bound)
    misaligned = ["t1-0, t1-1, t1-2, t1-3, t1-4", "t1-5, t2-0, t2-1, t2-2, t2-3", "t2-4, t2-5, t2-6, t3-0, t3-1"]
    _judge(name, kafka_problem(topics, rf, brokers, consumers, subs, misaligned), bound)


def test_uniform_subscription_transfer_ownership_list_is_right():
    """CooperativeStickyAssignorTest.testUniformSubscriptionTransferOwnershipListIsRight: one topic of 4 on 2 racks
    (replication 1: partitions 0, 2 on rack a, 1, 3 on b); c0 (rack a) owns 0, 1 and c1 (rack b) owns 2, 3. Two
    partitions change owner: the first cooperative round withholds exactly them, the second hands them out, and
    nothing ends on a foreign rack."""
    problem = kafka_problem({"topic1": 4}, 1, rack_list(2), rack_list(2), [["topic1"]] * 2,
                            ["topic1-0, topic1-1", "topic1-2, topic1-3"], generation=1, protocol="cooperative")
    rounds = run_rounds(registry.get("cooperative-sticky").assign, problem, 2)
    (first_problem, first), (last_problem, last) = rounds[0], rounds[-1]
    assert stickiness.withheld(first_problem, first) == 2
    assert first.as_lists() == {"consumer0": {"topic1": [0]}, "consumer1": {"topic1": [3]}}
    assert last.as_lists() == {"consumer0": {"topic1": [0, 2]}, "consumer1": {"topic1": [1, 3]}}
    assert racks.mismatches(last_problem, last) == 0
    eager = registry.get("sticky-constrained").assign(problem.replace(protocol="eager"))
    assert racks.mismatches(problem, eager) == 0


def test_a_rack_without_partitions_takes_mismatches_to_keep_balance():
    """'One consumer on a rack with no partitions. We allocate with misaligned rack to this consumer to maintain
    balance': balance ranks above racks."""
    problem = kafka_problem({"t": 6}, 1, rack_list(2), rack_list(3), [["t"]] * 3)
    out = registry.get("sticky").assign(problem)
    assert out.counts() == {"consumer0": 2, "consumer1": 2, "consumer2": 2}
    assert racks.mismatches(problem, out) == 2 == oracle.min_mismatches(problem, "optimal")


# ---- the oracle against brute force, and every promise on random rack problems -------------------------------


def _brute(problem: Problem) -> tuple[int, int, int]:
    """(min Σcount², then fewest mismatches, then most retained) over every complete assignment."""
    vo = {m: {(t, i) for t, a in p.items() for i in a.tolist()} for m, p in valid_owned(problem).items()}
    parts = [(t, i) for t in problem.subscribed_topics() for i in range(problem.topics[t])]
    choices = [[m for m in problem.members if t in m.subscription] for t, _ in parts]
    aware = racks.rack_aware(problem)
    known = problem.partition_racks or {}
    best = None
    for combo in itertools.product(*choices):
        counts = dict.fromkeys(problem.member_ids, 0)
        kept = bad = 0
        for (t, i), m in zip(parts, combo):
            counts[m.member_id] += 1
            kept += (t, i) in vo[m.member_id]
            on = known.get(t, ())[i] if i < len(known.get(t, ())) else frozenset()
            bad += bool(m.rack) and m.rack not in on
        key = (sum(c * c for c in counts.values()), bad if aware else 0, -kept)
        best = key if best is None or key < best else best
    return (0, 0, 0) if best is None else (best[0], best[1], -best[2])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(racks=True, max_members=4, max_topics=2, max_partitions_per_topic=4, claims="valid"))
def test_oracle_matches_brute_force(problem):
    if sum(problem.topics[t] for t in problem.subscribed_topics()) > 7:
        return
    squares, fewest, kept = _brute(problem)
    assert oracle.optimal_sum_squares(problem) == squares
    assert oracle.min_mismatches(problem, "optimal") == fewest
    assert oracle.max_retained(problem, "optimal", racks=True) == kept


@pytest.mark.parametrize("name", STICKY)
def test_every_promise_on_random_rack_problems(name):
    assignor = registry.get(name)

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(problems(racks=True, max_members=6, max_partitions_per_topic=6, claims="junk"))
    def check(problem):
        _, report = check_assignor(assignor, problem, oracle=True, budget_s=None)
        assert report.ok, [v.message for v in report.violations]

    check()


def test_racks_promised_by_every_sticky_assignor():
    for name in STICKY:
        assert registry.get(name).promises.racks, name
    assert not registry.get("range").promises.racks  # range's KIP-881 rule is its exact reference


def test_member_rack_of_an_unknown_topic_claim_is_harmless():
    problem = Problem({"t": 2}, (Member("a", frozenset({"t"}), partitions_of({"gone": [0]}), 1, None, "x"),
                                 Member("b", frozenset({"t"}), rack="y")),
                      partition_racks={"t": (frozenset({"x"}), frozenset({"y"}))})
    out = registry.get("sticky").assign(problem)
    assert out.as_lists() == {"a": {"t": [0]}, "b": {"t": [1]}}
