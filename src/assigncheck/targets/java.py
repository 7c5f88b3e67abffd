"""`java:CLASS` targets: a Java assignor, unmodified, driven as Kafka drives it.

`--target java:CLASS [--classpath JARS] [--maven G:A:V,...] [--config k=v]`. Our bridge (package
`io.assigncheck.bridge`, in `drivers/java`; compiled once against the target's classpath by `java_bridge.py`) finds
which of Kafka's assignor APIs the class implements and speaks `cmd:` protocol 2:
- a classic `ConsumerPartitionAssignor` as Kafka's consumers drive it: each member's Subscription built by a
  member-side instance of the class (onAssignment, then subscriptionUserData), sent through Kafka's wire codec, and
  a fresh leader instance assigning the group;
- a KIP-848 `ConsumerGroupPartitionAssignor` or a KIP-932 `ShareGroupPartitionAssignor` as the broker's group
  coordinator drives it (`AssigncheckGroupBridge.java`): one instance for the target's life, the coordinator's
  GroupSpec and SubscribedTopicDescriber; its promises then carry that `group_type` (`spec.groups`);
- a KIP-924 Streams `TaskAssignor` (kafka-streams 3.8+) as Streams' leader drives one configured with
  `task.assignor.class` (`AssigncheckStreamsBridge.java`): a fresh instance per problem, the `ApplicationState`
  built from a `StreamsProblem` as DefaultApplicationState holds it, the `TaskAssignment` read back as actives and
  standbys per client; the target is then a Streams one (`problem_kind`). What Kafka's own validation
  (`TaskAssignmentUtils.validateTaskAssignment`) names is kept in `kafka_error`; the spec names the same fault
  from the assignment (`KAFKA_ERRORS`);
- a KIP-1071 streams-group `TaskAssignor` (kafka-group-coordinator 4.1+) as the group coordinator drives it
  (`AssigncheckStreamsGroupBridge.java`): one instance for the target's life, a GroupSpec of one member per stream
  thread built with the coordinator's own classes, a TopologyDescriber of the problem's sub-topologies; also a
  Streams target.
Without a classpath holding Kafka's API, the pinned jars from Maven Central are used (`maven.py`): the group
coordinator 4.4.0 for Kafka's own `org.apache.kafka.coordinator` classes, kafka-streams 4.4.0 for
`org.apache.kafka.streams` ones, kafka-clients 3.9.1 otherwise.

Kafka versions: the classic bridge needs the `ConsumerPartitionAssignor` API (kafka-clients 2.4 and later, including
4.x, whose classic consumer still uses it). Subscription's `generationId` (KIP-792) and `rackId` (KIP-881) and
the wire codec are found by reflection: with a kafka-clients that lacks them, generations reach the assignor
only through its userData and member racks are not sent, and the answer's `adapted` note says so. The group bridge
compiles against every kafka-group-coordinator-api 4.x.

Promises: Kafka's four client assignors are held to what Kafka documents for them (range per-topic balance,
round-robin perfect balance on equal subscriptions, both equal to the spec's references; sticky local balance
and a fixpoint; cooperative-sticky the same in at most 2 cooperative rounds), with `claims=real`: their members'
claims come from a previous assignment, so a problem whose claims no assignment contains (negative indices,
repeats) is reported apart as unreachable. Kafka 4's broker-side assignors are held to their Javadoc
(`KAFKA4_PROMISES`, `kafka4_promises`). Every Streams task assignor gets `claims=real` (Streams' leader or the
streams-group coordinator builds its input, whatever the class: `spec.groups.streams_unreal`), and Kafka's two
sticky ones what Kafka documents and asserts for them (`STREAMS_PROMISES`). Any other class promises only H1-H8
unless `--promises` says more; one that supports only the cooperative protocol is checked in it, within the 4
rounds Kafka's own test allows.
"""

from __future__ import annotations

import os
import subprocess
from typing import Any

from assigncheck.formats.json_input import parse_json
from assigncheck.spec.errors import FormatError, InputError, TargetUnavailable
from assigncheck.spec.model import Assignment
from assigncheck.spec.promises import Promises
from assigncheck.targets import java_bridge
from assigncheck.targets.command import CommandTarget, TargetError
from assigncheck.toolchains import java_build

KAFKA = "org.apache.kafka.clients.consumer."
KAFKA_PROMISES: dict[str, Promises] = {
    KAFKA + "RangeAssignor": Promises(balance="per-topic", exact="range", claims="real"),
    KAFKA + "RoundRobinAssignor": Promises(balance="perfect", exact="roundrobin", claims="real"),
    KAFKA + "StickyAssignor": Promises(balance="local", fixpoint=True, claims="real"),
    KAFKA + "CooperativeStickyAssignor": Promises(balance="local", fixpoint=True, max_rounds=2, eager=False,
                                                  claims="real"),
}
# Kafka 4's broker-side assignors (kafka-group-coordinator), held to what their Javadoc documents.
COORDINATOR = "org.apache.kafka.coordinator.group.assignor."
KAFKA4_PROMISES: dict[str, Promises] = {
    # "balance then stickiness" on equal subscriptions (the homogeneous builder), local balance elsewhere (the
    # heterogeneous one); an unchanged group keeps its assignment.
    COORDINATOR + "UniformAssignor": Promises(balance="uniform", stickiness="max_retained", fixpoint=True,
                                              group_type="consumer"),
    # Ranges per topic: each subscriber's count within one of the others'.
    COORDINATOR + "RangeAssignor": Promises(balance="per-topic", fixpoint=True, group_type="consumer"),
}
# Kafka's Streams task assignors, held to what Kafka documents and its own tests of the class assert.
STREAMS_PROMISES: dict[str, Promises] = {
    # KIP-924's port of the pre-KIP-441 default: it "minimizes task movement" (config-streams.html,
    # task.assignor.class); CustomStickyTaskAssignorTest asserts tasks by capacity (shouldAssignBasedOnCapacity,
    # shouldAssignMoreTasksToClientWithMoreCapacity) and kept actives (shouldNotMigrateActiveTaskToOtherProcess,
    # shouldKeepActiveTaskStickinessWhenMoreClientThanActiveTasks). Its sub-topology spread is asserted on one
    # group only (assertActiveTaskTopicGroupIdsEvenlyDistributed), never stated: no mix promise.
    "org.apache.kafka.streams.processor.assignment.assignors.StickyTaskAssignor":
        Promises(task_balance="capacity", active_stickiness=True, claims="real"),
    # KIP-1071's "sticky": StickyTaskAssignorFuzzTest asserts only that no member (stream thread) goes above
    # ceil(tasks / members) actives, and grades stickiness as a fraction kept, never a requirement.
    "org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor":
        Promises(task_balance="ceiling", claims="real", group_type="streams"),
}
# SimpleAssignor: 4.0 and 4.1 document "each member all partitions of the subscribed topics"; 4.2 (KIP-932 ready for
# production) documents counts at most one apart, balance above stickiness.
SHARE_SIMPLE = COORDINATOR + "SimpleAssignor"
SHARE_BALANCED_FROM = (4, 2)
# Each error KIP-924's validateTaskAssignment names -> the invariant that names the same fault in the assignment.
KAFKA_ERRORS = {
    "ACTIVE_TASK_ASSIGNED_MULTIPLE_TIMES": "streams.active_once",
    "INVALID_STANDBY_TASK": "streams.standby_stateful",  # a standby of a stateless task
    "MISSING_PROCESS_ID": "streams.clients",  # a client left out
    "UNKNOWN_PROCESS_ID": "streams.clients",  # a client the problem does not have
    "UNKNOWN_TASK_ID": "streams.active_once",  # or streams.standby_replicas, for a standby
}
COOPERATIVE_ONLY_ROUNDS = 4  # Kafka's CooperativeStickyAssignorTest allows 4 rebalances
READY_S = 120.0  # wall clock for the JVM to start and load the class, on a busy machine
# One GC thread and no perf-data files: the target shares 2 cores with the checker, and /tmp with everyone.
JVM_OPTIONS = ("-XX:+UseSerialGC", "-XX:-UsePerfData", "-Xss16m")


class JavaTarget(CommandTarget):
    """The bridge process for one class; `ready` is its self-description (class, name, protocols, kafka)."""

    def __init__(self, class_name: str, classpath: tuple[str, ...] = (),
                 config: tuple[tuple[str, str], ...] = ()) -> None:
        if not class_name.replace(".", "").replace("$", "").replace("_", "").isalnum() or class_name[0].isdigit():
            raise InputError("--target", f"java: needs a fully qualified class name, got {class_name!r}")
        java, _ = java_build.jdk()
        jars = java_bridge.kafka_classpath(classpath, class_name)
        classes = java_bridge.compiled(jars)
        argv = [java, *JVM_OPTIONS, "-cp", os.pathsep.join([str(classes), *jars]), java_bridge.MAIN, class_name,
                *(f"{k}={v}" for k, v in config)]
        self.class_name = class_name
        self.ready: dict[str, Any] = {}
        self.kafka_error = ""  # what Kafka's validation named in the last Streams answer ("" when nothing)
        super().__init__(argv, protocol=2, name=f"java:{class_name}")
        self._start()  # fails now, with one line, if the class cannot run at all
        if self.ready.get("api") == "streams":
            self.problem_kind = "streams"  # it assigns StreamsProblem tasks (`spec.promises.problem_kind`)
        self.promises = KAFKA_PROMISES.get(class_name) or self._own_promises()

    def _own_promises(self) -> Promises:
        api = self.ready.get("api", "classic")
        if api == "streams":
            own = STREAMS_PROMISES.get(self.class_name)
            if own is not None:
                return own
            # a streams group coordinator's (KIP-1071), or a Streams leader's (KIP-924)
            return Promises(claims="real", group_type="streams" if self.ready.get("kip") == "1071" else "classic")
        if api in ("consumer", "share"):
            return kafka4_promises(self.class_name, str(self.ready.get("kafka", "")), api)
        if "EAGER" not in self.ready.get("protocols", ["EAGER"]):
            return Promises(max_rounds=COOPERATIVE_ONLY_ROUNDS, eager=False)
        return Promises()

    def _result(self, doc: dict[str, Any]) -> Assignment:
        self.kafka_error = str(doc.get("kafka_error", ""))[:100]
        return super()._result(doc)

    def _start(self) -> subprocess.Popen[bytes]:
        """Start the JVM and read its first line: ready (the class loaded) or why it cannot run."""
        proc = super()._start()
        try:
            line = self._exchange(b"", READY_S, None)
        except TargetError as e:
            raise TargetUnavailable("--target", f"{self.name}: the Java bridge did not start: {e}") from None
        try:
            doc = parse_json(line, "the Java bridge's ready line")
        except FormatError:
            doc = None
        if isinstance(doc, dict) and isinstance(doc.get("ready"), dict):
            self.ready = doc["ready"]
            return proc
        self.close()
        why = doc.get("unavailable") if isinstance(doc, dict) else None
        raise TargetUnavailable("--target", f"{self.name}: {why or 'unexpected first line ' + repr(line[:200])}")


def kafka_version(text: str) -> tuple[int, ...]:
    """(4, 2, 0) of "4.2.0" (a suffix such as -SNAPSHOT ignored); () when unknown."""
    parts = []
    for part in text.split("-")[0].split("."):
        if not part.isdigit():
            break
        parts.append(int(part))
    return tuple(parts)


def kafka4_promises(class_name: str, version: str, api: str) -> Promises:
    """What a broker-side assignor promises: Kafka's own as documented in that version, others H1-H8 only."""
    if class_name == SHARE_SIMPLE:
        if kafka_version(version) >= SHARE_BALANCED_FROM:
            return Promises(balance="perfect", fixpoint=True, group_type="share")
        return Promises(group_type="share")
    return KAFKA4_PROMISES.get(class_name) or Promises(group_type=api)  # type: ignore[arg-type]  # consumer or share


def load(class_name: str, *, classpath: tuple[str, ...] = (), config: tuple[tuple[str, str], ...] = ()) -> JavaTarget:
    return JavaTarget(class_name, classpath, config)


__all__ = [
    "COOPERATIVE_ONLY_ROUNDS", "COORDINATOR", "JVM_OPTIONS", "JavaTarget", "KAFKA", "KAFKA4_PROMISES", "KAFKA_ERRORS",
    "KAFKA_PROMISES", "READY_S", "SHARE_BALANCED_FROM", "SHARE_SIMPLE", "STREAMS_PROMISES", "kafka4_promises",
    "kafka_version", "load"
]
