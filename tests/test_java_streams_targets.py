"""Kafka Streams' task assignors as `java:` targets, on the real jars from Maven Central: KIP-924's (kafka-streams),
whose ApplicationState the bridge builds as Streams does, every error Kafka's own validation names being a fault
the spec names from the same assignment; and KIP-1071's (kafka-group-coordinator), driven as the streams group
coordinator drives it, in both of its API packages (4.1-4.3 and 4.4+)."""

from __future__ import annotations

import subprocess

import pytest

from assigncheck.formats.reproducer import TargetRef
from assigncheck.generate.seeded import generate_streams
from assigncheck.impl import registry
from assigncheck.impl.targets import java_build, maven
from assigncheck.impl.targets.java import KAFKA_ERRORS
from assigncheck.run.checks import check_assignor
from assigncheck.spec.errors import TargetUnavailable
from assigncheck.spec.model import Client, StreamsProblem
from assigncheck.spec.promises import Promises, problem_kind
from assigncheck.spec.streams_checks import check_streams

STICKY = "java:org.apache.kafka.streams.processor.assignment.assignors.StickyTaskAssignor"
NEWEST = maven.STREAMS
# What Kafka's validation leaves to the rest of Streams: the spec also holds these, and Kafka's assignor may miss
# them (the README's Streams findings); here only the faults that would break the rebalance or the bridge.
HARD = {"streams.clients", "streams.active_once", "streams.standby_replicas", "streams.standby_apart",
        "streams.standby_stateful", "H7"}

PROBLEM = StreamsProblem(
    {"st0": 4, "st1": 3},
    (Client("A", 2, active={"st0": [0, 1]}, standby={"st0": [2]}), Client("B", 1, active={"st1": [0]}),
     Client("C", 1)),
    num_standby_replicas=1, stateless=frozenset({"st1"}))


@pytest.fixture(scope="module")
def sticky():
    target = registry.load(TargetRef(STICKY))  # no --maven: the pinned kafka-streams
    yield target
    target.close()


def test_the_bridge_finds_the_streams_api(sticky):
    assert sticky.ready == {"class": STICKY[5:], "name": "StickyTaskAssignor", "api": "streams",
                            "kafka": NEWEST[0].rsplit(":", 1)[1]}
    assert problem_kind(sticky) == "streams"
    # what Kafka documents and asserts for it (impl.targets.java.STREAMS_PROMISES): no sub-topology mix
    assert sticky.promises == Promises(task_balance="capacity", active_stickiness=True, claims="real")


def test_actives_and_standbys_come_back_per_client(sticky):
    out, report = check_assignor(sticky, PROBLEM, budget_s=None)
    assert out is not None and sticky.kafka_error == ""
    assert not {v.invariant for v in report.violations} & HARD, report.violations
    actives = sorted((st, i) for tasks in out.by_member.values() for st, i in _pairs(tasks))
    assert actives == [("st0", i) for i in range(4)] + [("st1", i) for i in range(3)]
    standbys = [(c, st, i) for c, tasks in out.standby.items() for st, i in _pairs(tasks)]
    # one standby of each stateful (st0) task, never of the stateless st1, never on the task's active client
    assert sorted((st, i) for _, st, i in standbys) == [("st0", i) for i in range(4)]
    assert all(("st0", i) not in set(_pairs(out.by_member[c])) for c, _, i in standbys)


def test_generated_problems_meet_what_kafka_validates(sticky):
    for k in range(6):
        problem = generate_streams(36, 0, k)
        out, report = check_assignor(sticky, problem, budget_s=None)
        assert out is not None and sticky.kafka_error == "", (k, sticky.kafka_error)
        assert not {v.invariant for v in report.violations} & HARD, (k, report.violations)


def _pairs(tasks) -> list[tuple[str, int]]:
    return [(st, int(i)) for st, indices in dict(tasks).items() for i in list(indices)]


# A TaskAssignor that makes, for a problem of n tasks, the n-th kind of result Kafka's validation rejects.
FAULTY = """
import java.util.*;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.*;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;

public class FaultyTaskAssignor implements TaskAssignor {
    public TaskAssignment assign(ApplicationState state) {
        List<ProcessId> ids = new ArrayList<>(new TreeSet<>(state.kafkaStreamsStates(false).keySet()));
        Set<TaskId> tasks = new TreeSet<>(state.allTasks().keySet());
        Map<ProcessId, Set<AssignedTask>> out = new TreeMap<>();
        for (ProcessId id : ids) out.put(id, new HashSet<>());
        for (TaskId t : tasks) out.get(ids.get(0)).add(new AssignedTask(t, AssignedTask.Type.ACTIVE));
        switch (tasks.size()) {
            case 1:  // ACTIVE_TASK_ASSIGNED_MULTIPLE_TIMES
                for (TaskId t : tasks) out.get(ids.get(1)).add(new AssignedTask(t, AssignedTask.Type.ACTIVE));
                break;
            case 2:  // INVALID_STANDBY_TASK: the tasks are stateless
                for (TaskId t : tasks) out.get(ids.get(1)).add(new AssignedTask(t, AssignedTask.Type.STANDBY));
                break;
            case 3:  // MISSING_PROCESS_ID
                out.remove(ids.get(1));
                break;
            case 4:  // UNKNOWN_PROCESS_ID
                out.put(new ProcessId(new UUID(0, 36)), new HashSet<>());
                break;
            default:  // UNKNOWN_TASK_ID
                out.get(ids.get(1)).add(new AssignedTask(new TaskId(99, 0), AssignedTask.Type.ACTIVE));
        }
        List<KafkaStreamsAssignment> result = new ArrayList<>();
        for (Map.Entry<ProcessId, Set<AssignedTask>> e : out.entrySet()) {
            result.add(KafkaStreamsAssignment.of(e.getKey(), e.getValue()));
        }
        return new TaskAssignment(result);
    }
}
"""
FAULTS = ["ACTIVE_TASK_ASSIGNED_MULTIPLE_TIMES", "INVALID_STANDBY_TASK", "MISSING_PROCESS_ID", "UNKNOWN_PROCESS_ID",
          "UNKNOWN_TASK_ID"]


def test_each_error_kafka_names_is_the_matching_streams_violation(tmp_path):
    (tmp_path / "FaultyTaskAssignor.java").write_text(FAULTY)
    _, javac = java_build.jdk()
    subprocess.run([javac, "-d", str(tmp_path), "-cp", ":".join(maven.jars(NEWEST)),
                    str(tmp_path / "FaultyTaskAssignor.java")], check=True, capture_output=True)
    target = registry.load(TargetRef("java:FaultyTaskAssignor", classpath=(str(tmp_path),), maven=NEWEST))
    try:
        assert target.promises == Promises(claims="real")  # any class: Streams builds its input
        assert set(FAULTS) == set(KAFKA_ERRORS)
        for n, fault in enumerate(FAULTS, start=1):
            problem = StreamsProblem({"st0": n}, (Client("A", 1), Client("B", 1)),
                                     stateless=frozenset({"st0"}) if fault == "INVALID_STANDBY_TASK" else frozenset())
            out = target.assign(problem)
            assert target.kafka_error == fault
            named = {v.invariant for v in check_streams(problem, out, measure=False).violations}
            assert KAFKA_ERRORS[fault] in named, (fault, named)
    finally:
        target.close()


GROUP_STICKY = "java:org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor"


@pytest.mark.parametrize("coordinates", [maven.COORDINATOR, maven.STREAMS_GROUP_FIRST],
                         ids=["4.4-api", "4.1-api"])
def test_the_streams_group_assignor_of_both_api_packages(coordinates):
    target = registry.load(TargetRef(GROUP_STICKY, maven=coordinates))
    try:
        assert (target.ready["api"], target.ready["kip"], target.ready["name"]) == ("streams", "1071", "sticky")
        assert target.ready["kafka"] == coordinates[0].rsplit(":", 1)[1] and problem_kind(target) == "streams"
        # KIP-1071's per-member quota, in a streams group (its topology never changes: docs/SPEC.md §7.4)
        assert target.promises == Promises(task_balance="ceiling", claims="real", group_type="streams")
        out, report = check_assignor(target, PROBLEM, budget_s=None)
        assert out is not None and not {v.invariant for v in report.violations} & HARD, report.violations
        actives = sorted((st, i) for tasks in out.by_member.values() for st, i in _pairs(tasks))
        assert actives == [("st0", i) for i in range(4)] + [("st1", i) for i in range(3)]
        standbys = sorted((st, i) for tasks in out.standby.values() for st, i in _pairs(tasks))
        assert standbys == [("st0", i) for i in range(4)]  # one each, of the stateful sub-topology only
    finally:
        target.close()


def test_a_streams_group_assignor_takes_no_config():
    with pytest.raises(TargetUnavailable, match="--config: a streams group's TaskAssignor takes no configuration"):
        registry.load(TargetRef(GROUP_STICKY, config=(("num.standby.replicas", "1"),)))
