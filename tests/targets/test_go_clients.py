"""The Go module's drivers of sarama's and kafka-go's balancers (`go/cmd/sarama-driver` over package
`saramabalance`, `go/cmd/kafka-go-driver` over package `kafkago`): each runs its library's own code as that
library's group leader does, bad usage is one line and exit 2."""

from __future__ import annotations

import subprocess

import pytest

from assigncheck.spec.assignment_check import check_assignment
from assigncheck.spec.model import Assignment, Member, Problem
from assigncheck.spec.reference import REFERENCES
from assigncheck.spec.stickiness import retained, withheld
from assigncheck.targets.command import CommandTarget, TargetError
from tests import go_drivers


@pytest.fixture(scope="module")
def drivers():
    return go_drivers.build()  # fails, with make's one line, where Go is missing: never skipped


@pytest.fixture(scope="module")
def targets(drivers):
    made = {(family, name): CommandTarget([str(drivers[family]), name], protocol=2, hang_s=30)
            for family, promises in go_drivers.PROMISES.items() for name in promises}
    yield made
    for target in made.values():
        target.close()


def _group(counts: dict[str, int], members: dict[str, set[str]], **kw) -> Problem:
    return Problem(counts, tuple(Member(m, topics) for m, topics in members.items()), **kw)


def test_sarama_range_and_round_robin_give_kafkas_plans_on_dynamic_members(targets):
    problem = _group({"t": 5, "u": 3, "v": 1}, {"c0": {"t", "u"}, "c1": {"t", "u", "v"}, "c2": {"t"}})
    assert targets["sarama", "range"].assign(problem) == REFERENCES["range"].assign(problem)
    assert targets["sarama", "roundrobin"].assign(problem) == REFERENCES["roundrobin"].assign(problem)


def test_sarama_sticky_reads_eager_claims_from_user_data_and_cooperative_ones_from_owned_partitions(targets):
    owned = {"a": [2, 3], "b": [0, 1], "c": [4, 5]}
    settled = Problem({"t": 6}, tuple(Member(m, {"t"}, {"t": ps}, 3) for m, ps in owned.items()))
    for name, protocol in (("sticky", "eager"), ("cooperative-sticky", "cooperative")):
        assert targets["sarama", name].assign(settled.replace(protocol=protocol)) == Assignment.of(
            {m: {"t": ps} for m, ps in owned.items()}), name
    # range reads no claims: the plan of a fresh group
    fresh = settled.replace(members=tuple(Member(m.member_id, m.subscription) for m in settled.members))
    assert targets["sarama", "range"].assign(settled) == targets["sarama", "range"].assign(fresh)


def test_sarama_cooperative_sticky_withholds_what_moves_until_its_owner_revoked_it(targets):
    grown = Problem({"t": 4}, (Member("a", {"t"}, {"t": [0, 1, 2, 3]}, 1), Member("b", {"t"})), "cooperative")
    first = targets["sarama", "cooperative-sticky"].assign(grown)
    assert check_assignment(grown, first).ok  # H6: nothing a still claims is handed to b
    assert (first.count("a"), first.count("b"), withheld(grown, first), retained(grown, first)) == (2, 0, 2, 2)


def test_a_topic_the_metadata_lacks_fails_saramas_leader(drivers):
    line = ('{"format": 2, "id": 1, "problem": {"format": 1, "topics": {"t": 2}, "members": '
            '[{"id": "a", "subscription": ["t", "gone"]}]}}\n')
    done = subprocess.run([str(drivers["sarama"]), "range"], input=line, capture_output=True, text=True, check=True)
    assert '"exception":"sarama.KError","frame":"consumerGroup.balance"' in done.stdout
    assert 'Partitions(\\"gone\\")' in done.stdout


def test_kafka_go_range_and_round_robin_deal_each_topic_from_the_first_member(targets):
    problem = _group({"t": 5, "u": 1}, {"c0": {"t", "u"}, "c1": {"t", "u"}})
    assert targets["kafka-go", "range"].assign(problem) == Assignment.of(
        {"c0": {"t": [0, 1], "u": []}, "c1": {"t": [2, 3, 4], "u": [0]}})
    assert targets["kafka-go", "roundrobin"].assign(problem) == Assignment.of(
        {"c0": {"t": [0, 2, 4], "u": [0]}, "c1": {"t": [1, 3]}})


def test_kafka_go_rack_affinity_matches_each_member_to_its_partition_leaders_rack(targets):
    racks = Problem({"t": 4}, (Member("a", {"t"}, rack="r0"), Member("b", {"t"}, rack="r1")),
                    partition_racks={"t": tuple(frozenset({f"r{p % 2}"}) for p in range(4))})
    assert targets["kafka-go", "rack-affinity"].assign(racks) == Assignment.of({"a": {"t": [0, 2]}, "b": {"t": [1, 3]}})
    targets["kafka-go", "range"].assign(racks)
    assert "rack-blind" in targets["kafka-go", "range"].adapted


def test_a_topic_the_metadata_lacks_leaves_every_kafka_go_member_without_partitions(targets):
    problem = _group({"t": 3}, {"a": {"t"}, "b": {"t", "gone"}})
    for name in go_drivers.PROMISES["kafka-go"]:
        assert targets["kafka-go", name].assign(problem) == Assignment.of({"a": {}, "b": {}}), name


def test_a_kafka_go_balancer_in_a_cooperative_group_says_it_leads_it_eagerly(targets):
    target = targets["kafka-go", "range"]
    target.assign(_group({"t": 2}, {"a": {"t"}}, protocol="cooperative"))
    assert "the group runs the eager protocol" in target.adapted


def test_a_problem_neither_can_read_is_an_error_answer_naming_the_field(drivers):
    line = '{"format": 2, "id": 1, "problem": {"format": 1, "topics": {"t": 1}, "members": [], "extra": 1}}\n'
    for family, balancer in (("sarama", "sticky"), ("kafka-go", "range")):
        done = subprocess.run([str(drivers[family]), balancer], input=line, capture_output=True, text=True,
                              check=True)
        assert '"error":"problem: json: unknown field \\"extra\\""' in done.stdout
        with pytest.raises(TargetError, match="reported an error"):
            CommandTarget([str(drivers[family]), balancer], protocol=2).assign(
                Problem({"t": 1}, (Member("a", {"t"}),), group_type="consumer"))


@pytest.mark.parametrize(("family", "args", "expected"), [
    ("sarama", [], "no strategy named"),
    ("sarama", ["stiky"], 'unknown strategy "stiky"'),
    ("sarama", ["-version"], "-version needs a Kafka version"),
    ("sarama", ["-version", "x", "range"], "-version: invalid version `x`"),
    ("sarama", ["-fast"], "unknown flag -fast"),
    ("sarama", ["range", "sticky"], "one strategy, got 2 arguments"),
    ("kafka-go", [], "no balancer named"),
    ("kafka-go", ["sticky"], 'unknown balancer "sticky"'),
    ("kafka-go", ["-v"], "unknown flag -v"),
])
def test_bad_usage_is_one_line_and_exit_2(drivers, family, args, expected):
    done = subprocess.run([str(drivers[family]), *args], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1 and expected in done.stderr
