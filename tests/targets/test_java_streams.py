"""Kafka Streams' task assignors as `java:` targets, on the real jars from Maven Central: KIP-924's (kafka-streams),
whose ApplicationState the bridge builds as Streams does, every error Kafka's own validation names being a fault
the spec names from the same assignment; and KIP-1071's (kafka-group-coordinator), driven as the streams group
coordinator drives it, in both of its API packages (4.1-4.3 and 4.4+)."""

from __future__ import annotations

import subprocess

import pytest

from assigncheck.formats.reproducer import TargetRef
from assigncheck.generate.seeded import generate_streams
from assigncheck.run.assignor_check import check_assignor
from assigncheck.spec.errors import TargetUnavailable
from assigncheck.spec.model import Client, StreamsProblem
from assigncheck.spec.promises import Promises, problem_kind
from assigncheck.spec.streams_checks import check_streams
from assigncheck.targets import registry
from assigncheck.targets.command import TargetError
from assigncheck.targets.java import KAFKA_ERRORS
from assigncheck.toolchains import java_build, maven

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
    # what Kafka documents and asserts for it (targets.java.STREAMS_PROMISES): no sub-topology mix
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


# ---- the inputs Streams clients report (lags, rack, client tags) and the configs that go with them --------------

INPUTS = StreamsProblem(
    {"st0": 2, "st1": 1},
    (Client("A", 1, active={"st0": [0]}, lags={("st0", 0): 0, ("st0", 1): 7}, rack="r1", client_tags={"zone": "a"}),
     Client("B", 1, standby={"st0": [1]}, rack="r2", client_tags={"zone": "b"})),
    num_standby_replicas=1, stateless=frozenset({"st1"}), acceptable_recovery_lag=250,
    rack_aware_assignment_tags=("zone",))

# A KIP-924 TaskAssignor that answers with what it read: an error whose message is the ApplicationState's inputs.
ECHO = """
import java.util.*;
import org.apache.kafka.streams.processor.assignment.*;

public class EchoTaskAssignor implements TaskAssignor {
    public TaskAssignment assign(ApplicationState state) {
        AssignmentConfigs c = state.assignmentConfigs();
        Set<String> clients = new TreeSet<>();
        for (KafkaStreamsState s : state.kafkaStreamsStates(true).values()) {
            clients.add(s.rackId().orElse("-") + " " + new TreeMap<>(s.clientTags()) + " "
                    + new TreeMap<>(s.statefulTasksToLagSums()));
        }
        throw new IllegalStateException("recovery=" + c.acceptableRecoveryLag() + " tags="
                + c.rackAwareAssignmentTags() + " " + clients);
    }
}
"""


def _compiled(tmp_path, name: str, source: str, coordinates) -> str:
    (tmp_path / f"{name}.java").write_text(source)
    _, javac = java_build.jdk()
    subprocess.run([javac, "-d", str(tmp_path), "-cp", ":".join(maven.jars(coordinates)),
                    str(tmp_path / f"{name}.java")], check=True, capture_output=True)
    return str(tmp_path)


@pytest.mark.slow  # javac and a JVM: about 11 s
def test_the_streams_bridge_passes_lags_racks_tags_and_their_configs(tmp_path):
    target = registry.load(TargetRef("java:EchoTaskAssignor", classpath=(_compiled(tmp_path, "EchoTaskAssignor",
                                                                                   ECHO, NEWEST),), maven=NEWEST))
    try:
        with pytest.raises(TargetError) as seen:
            target.assign(INPUTS)
        # A reports 0 and 7; B reports nothing: caught up on st0_1, which it held as standby, the whole changelog
        # behind on st0_0; st1 is stateless (no lag). Sub-topology st0 is TaskId subtopology 0.
        assert ("recovery=250 tags=[zone] [r1 {zone=a} {0_0=0, 0_1=7}, r2 {zone=b} {0_0=1000000, 0_1=0}]"
                in str(seen.value)), str(seen.value)
        with pytest.raises(TargetError) as seen:  # nothing reported: Streams' defaults; A ran st0_0 and st0_1
            target.assign(PROBLEM)  # (running: Task.LATEST_OFFSET, -2) and held st0_2 as standby (caught up)
        assert "recovery=10000 tags=[] [- {} {0_0=-2, 0_1=-2, 0_2=0, 0_3=1000000}, - {} {0_0=1000000" in str(seen.value)
    finally:
        target.close()


# The same for KIP-1071 (4.4 API): what each member of the group spec carries.
GROUP_ECHO = """
import java.util.*;
import org.apache.kafka.coordinator.group.api.streams.assignor.*;

public class EchoGroupAssignor implements TaskAssignor {
    public String name() { return "echo"; }
    public GroupAssignment assign(GroupSpec spec, TopologyDescriber topology) {
        Set<String> members = new TreeSet<>();
        for (String m : spec.memberIds()) {
            MemberAssignmentMetadata md = spec.memberMetadata(m);
            MemberAssignmentState st = spec.memberAssignmentState(m);
            members.add(m + " " + md.rackId().orElse("-") + " " + new TreeMap<>(md.clientTags()) + " "
                    + sorted(st.taskOffsets()) + " " + sorted(st.taskEndOffsets()));
        }
        throw new IllegalStateException("tags=" + spec.configs().rackAwareAssignmentTags() + " " + members);
    }

    static Map<String, Map<Integer, Long>> sorted(Map<String, Map<Integer, Long>> offsets) {
        Map<String, Map<Integer, Long>> out = new TreeMap<>();
        for (Map.Entry<String, Map<Integer, Long>> e : offsets.entrySet()) {
            out.put(e.getKey(), new TreeMap<>(e.getValue()));
        }
        return out;
    }
}
"""


@pytest.mark.slow  # javac and a JVM: about 11 s
def test_the_streams_group_bridge_passes_racks_tags_and_lags_as_task_offsets(tmp_path):
    classes = _compiled(tmp_path, "EchoGroupAssignor", GROUP_ECHO, maven.COORDINATOR)
    target = registry.load(TargetRef("java:EchoGroupAssignor", classpath=(classes,), maven=maven.COORDINATOR))
    try:
        with pytest.raises(TargetError) as seen:
            target.assign(INPUTS)
        # A's lags as offsets against each task's end offset sum (1000000: no lag is larger), on its one member.
        assert ("tags=[zone] [A-1 r1 {zone=a} {st0={0=1000000, 1=999993}} {st0={0=1000000, 1=1000000}}, "
                "B-1 r2 {zone=b} {} {}]") in str(seen.value), str(seen.value)
    finally:
        target.close()


def test_task_offsets_steer_the_4_4_sticky_standby():
    """Kafka 4.4's streams-group sticky assignor offers a standby to the members that report offsets for the task
    (KAFKA-19661): a lag reported by C, and not by B, moves the standby from B to C."""
    target = registry.load(TargetRef(GROUP_STICKY, maven=maven.COORDINATOR))
    try:
        def standby_of(lagged: str | None) -> list[str]:
            clients = tuple(Client(n, 1, active={"st0": [0]} if n == "A" else {},
                                   lags={("st0", 0): 0} if n == lagged else {}) for n in "ABC")
            out = target.assign(StreamsProblem({"st0": 1}, clients, num_standby_replicas=1))
            return sorted(c for c, tasks in out.standby.items() if _pairs(tasks))
        assert standby_of(None) == ["B"] and standby_of("C") == ["C"] and standby_of("B") == ["B"]
    finally:
        target.close()
