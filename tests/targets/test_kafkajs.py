"""The JavaScript package (`js/`) and KafkaJS's round-robin through it (`cmd2:node js/targets/kafkajs-roundrobin.js`):
the package's own `node --test` suite passes, and the target answers as KafkaJS 2.2.4's group leader runs its
`PartitionAssigners.roundRobin`: the first member (the first to join) leads and deals the partitions of its own
subscribed topics, in its subscription's order, over every member sorted by id, whatever each subscribes to. On
equal subscriptions without static members that is Kafka's round-robin, the spec's reference."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from assigncheck.generate import strategies
from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.reference import REFERENCES
from assigncheck.targets.command import CommandTarget
from tests.paths import ROOT

ROUND_ROBIN = ["node", str(ROOT / "js" / "targets" / "kafkajs-roundrobin.js")]


def test_the_packages_own_node_tests_pass(js_installed):
    env = {**os.environ, "ASSIGNCHECK": str(Path(sys.executable).with_name("assigncheck"))}
    done = subprocess.run(["node", "--test", "js/"], cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout


@pytest.fixture(scope="module")
def round_robin(js_installed):
    target = CommandTarget(ROUND_ROBIN, protocol=2, hang_s=30)
    yield target
    target.close()


def kafkajs_round_robin(problem: Problem) -> Assignment:
    """KafkaJS 2.2.4's RoundRobinAssigner as its leader runs it (consumerGroup.js, roundRobinAssigner/index.js),
    restated: the leader's own topics (its subscription in order: sorted, as a document lists it) that the
    metadata has, every partition of each in turn, to the members sorted by id, one each in a cycle."""
    leader = problem.members[0]
    ids = sorted(m.member_id for m in problem.members)
    out: dict[str, dict[str, list[int]]] = {m: {} for m in ids}
    deal = [(t, p) for t in sorted(leader.subscription) if t in problem.topics for p in range(problem.topics[t])]
    for i, (topic, partition) in enumerate(deal):
        out[ids[i % len(ids)]].setdefault(topic, []).append(partition)
    return Assignment.of(out)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(problem=strategies.problems(racks=False, protocol="eager", min_members=1))
def test_the_leader_deals_its_own_topics_to_every_member(round_robin, problem):
    assert round_robin.assign(problem) == kafkajs_round_robin(problem)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(problem=strategies.problems(equal_subscriptions=True, racks=False, protocol="eager", static_members=False,
                                   min_members=1))
def test_on_equal_subscriptions_it_is_kafkas_round_robin(round_robin, problem):
    assert round_robin.assign(problem) == REFERENCES["roundrobin"].assign(problem)
