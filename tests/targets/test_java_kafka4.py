"""Kafka 4's broker-side assignors as `java:` targets, on the real kafka-group-coordinator jars from Maven Central:
the bridge finds the API, drives one instance as the group coordinator does, and each class meets the promises
Kafka documents for it; a user's own group assignor, compiled here against the real API, is checked the same way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from assigncheck.formats.reproducer import TargetRef
from assigncheck.run.assignor_check import check_assignor
from assigncheck.spec.model import Member, Problem
from assigncheck.targets import registry
from assigncheck.toolchains import java_build, maven

ASSIGNORS = "java:org.apache.kafka.coordinator.group.assignor."
FIRST, NEWEST = maven.COORDINATOR_FIRST, maven.COORDINATOR
ASSIGNCHECK = [sys.executable, "-m", "assigncheck.ci.cli"]


@pytest.fixture(scope="module")
def load():
    opened = []

    def get(spec: str, coordinates: tuple[str, ...] = NEWEST):
        target = registry.load(TargetRef(spec, maven=coordinates))
        opened.append(target)
        return target

    yield get
    for t in opened:
        t.close()


def test_the_bridge_finds_the_api_and_the_version(load):
    uniform = load(ASSIGNORS + "UniformAssignor")
    assert uniform.ready == {"class": ASSIGNORS[5:] + "UniformAssignor", "name": "uniform", "api": "consumer",
                             "kafka": "4.4.0"}
    assert (uniform.promises.group_type, uniform.promises.balance) == ("consumer", "uniform")
    simple = load(ASSIGNORS + "SimpleAssignor", FIRST)
    assert (simple.ready["api"], simple.ready["kafka"]) == ("share", "4.0.0")
    assert simple.promises.group_type == "share" and simple.promises.balance == "none"  # 4.0: all to everyone
    assert load(ASSIGNORS + "SimpleAssignor").promises.balance == "perfect"  # documented from 4.2


def test_share_groups_give_a_partition_several_owners(load):
    problem = Problem({"t": 2}, (Member("a", {"t"}), Member("b", {"t"}), Member("c", {"t"})))
    simple = load(ASSIGNORS + "SimpleAssignor", FIRST)
    out, report = check_assignor(simple, problem, budget_s=None)
    assert out is not None and out.as_lists() == {m: {"t": [0, 1]} for m in "abc"}
    assert report.ok, report.violations
    out, report = check_assignor(load(ASSIGNORS + "SimpleAssignor"), problem, budget_s=None)
    assert report.ok, report.violations
    assert sorted(out.counts().values()) == [1, 1, 2]  # 4.4: each partition shared by at most two of the three


def test_a_static_member_keeps_its_target_and_missing_topics_are_not_subscribed(load):
    # A member that left t1 still holds t1-0 in the previous target; 'gone' is subscribed but not in the metadata.
    problem = Problem({"t0": 4, "t1": 1}, (
        Member("new-id", {"t0", "gone"}, {"t0": [0, 1], "t1": [0]}, instance_id="i0"),
        Member("b", {"t0", "t1"}, {"t0": [2, 3]}),
    ), group_type="consumer")
    for spec in ("UniformAssignor", "RangeAssignor"):
        out, report = check_assignor(load(ASSIGNORS + spec), problem, budget_s=None)
        assert report.ok, (spec, report.violations)
        assert "t1" not in out.as_lists()["new-id"]


STATEFUL = """
import java.util.*;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.*;

public class StatefulAssignor implements ConsumerGroupPartitionAssignor {
    private int calls;  // a broker keeps this instance: every other call, the group's last member gets it all
    public String name() { return "stateful"; }
    public GroupAssignment assign(GroupSpec spec, SubscribedTopicDescriber topics) {
        List<String> ids = new ArrayList<>(spec.memberIds());
        Collections.sort(ids);
        String taker = calls++ % 2 == 0 ? ids.get(0) : ids.get(ids.size() - 1);
        Map<String, MemberAssignment> out = new HashMap<>();
        for (String id : ids) {
            Map<Uuid, Set<Integer>> parts = new HashMap<>();
            if (id.equals(taker)) {
                for (Uuid t : spec.memberSubscription(id).subscribedTopicIds()) {
                    Set<Integer> ps = new HashSet<>();
                    for (int p = 0; p < topics.numPartitions(t); p++) ps.add(p);
                    parts.put(t, ps);
                }
            }
            final Map<Uuid, Set<Integer>> fixed = parts;
            out.put(id, () -> fixed);
        }
        return new GroupAssignment(out);
    }
}
"""


@pytest.fixture(scope="module")
def stateful(tmp_path_factory) -> str:
    """A user's own KIP-848 assignor, compiled against the real coordinator API."""
    root = tmp_path_factory.mktemp("stateful")
    (root / "StatefulAssignor.java").write_text(STATEFUL)
    _, javac = java_build.jdk()
    subprocess.run([javac, "-d", str(root), "-cp", ":".join(maven.jars(NEWEST)), str(root / "StatefulAssignor.java")],
                   check=True, capture_output=True)
    return str(root)


def test_the_one_instance_a_broker_keeps_is_what_is_checked(load, stateful):
    target = registry.load(TargetRef("java:StatefulAssignor", classpath=(stateful,), maven=NEWEST))
    try:
        assert target.ready["api"] == "consumer" and target.promises.group_type == "consumer"
        problem = Problem({"t": 3}, (Member("a", {"t"}), Member("b", {"t"})))
        _, report = check_assignor(target, problem, budget_s=None)
        assert [v.invariant for v in report.violations] == ["H8"]  # the second call differs: state was kept
    finally:
        target.close()


def test_what_cannot_run_is_one_line_and_exit_2(tmp_path):
    problem = tmp_path / "p.json"
    problem.write_text(json.dumps({"format": 1, "topics": {"t": 1}, "members": [{"id": "a", "subscription": ["t"]}]}))
    cases = [
        (["--target", "java:org.apache.kafka.common.Uuid", "--maven", NEWEST[0]],
         "implements none of Kafka's assignor APIs"),
        (["--target", ASSIGNORS + "UniformAssignor", "--maven", "org.apache.kafka:kafka-group-coordinator"],
         "--maven: 'org.apache.kafka:kafka-group-coordinator' is not group:artifact:version"),
        (["--assignor", "range", "--maven", NEWEST[0]], "--maven: applies to --target java:CLASS only"),
    ]
    for args, expected in cases:
        done = subprocess.run([*ASSIGNCHECK, "assign", *args, str(problem)], capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 2, done.stderr
        assert expected in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_the_pinned_jars_are_cached_and_listed():
    jars = maven.jars(FIRST)
    names = {Path(j).name for j in jars}
    assert {"kafka-group-coordinator-4.0.0.jar", "kafka-group-coordinator-api-4.0.0.jar",
            "kafka-clients-4.0.0.jar"} <= names
    assert maven.jars(FIRST) == jars  # from the cache, in the same order


def test_no_maven_is_one_line_and_exit_2(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool, path in zip(("java", "javac"), java_build.jdk()):
        (bin_dir / tool).symlink_to(path)
    problem = tmp_path / "p.json"
    problem.write_text(json.dumps({"format": 1, "topics": {"t": 1}, "members": [{"id": "a", "subscription": ["t"]}]}))
    env = {"PATH": str(bin_dir), "XDG_CACHE_HOME": str(tmp_path / "empty-cache"), "HOME": str(tmp_path)}
    done = subprocess.run([*ASSIGNCHECK, "assign", "--target", ASSIGNORS + "UniformAssignor", str(problem)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"assigncheck: error: --classpath: resolving {NEWEST[0]} needs Maven: install maven "
                                   "(mvn on PATH), or pass --classpath with the jars")
