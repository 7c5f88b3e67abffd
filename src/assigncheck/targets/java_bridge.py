"""The `java:` bridge's build: against which Kafka jars, from which of its sources, started as which class.

- `kafka_classpath(classpath, class_name)`: the user's entries (checked), plus Kafka's pinned jars from Maven Central
  (`toolchains/maven.py`) when no entry holds a Kafka assignor API: the group coordinator's for a class of Kafka's
  `org.apache.kafka.coordinator` packages, kafka-streams for one of `org.apache.kafka.streams`, kafka-clients
  otherwise.
- `sources(classpath)`: the bridge's sources (package `io.assigncheck.bridge`, `drivers/java`) for the APIs the
  classpath holds: the classic client API always; the broker-side group API, Streams' KIP-924 TaskAssignor and the
  KIP-1071 streams-group TaskAssignor when present. A user's Kafka decides which bridges compile; the others are
  left out, and the bridge finds the ones present by name.
- `compiled(classpath)`: those sources through the javac cache (`toolchains/java_build.py`), started as `MAIN`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from assigncheck.drivers import BRIDGE_MAIN, JAVA_BRIDGE, JAVA_JSON
from assigncheck.toolchains import java_build

MAIN = BRIDGE_MAIN
CLASSIC_SOURCES = (JAVA_BRIDGE / "AssigncheckBridge.java", JAVA_JSON)
GROUP_SOURCE = JAVA_BRIDGE / "AssigncheckGroupBridge.java"
STREAMS_SOURCE = JAVA_BRIDGE / "AssigncheckStreamsBridge.java"
STREAMS_GROUP_SOURCE = JAVA_BRIDGE / "AssigncheckStreamsGroupBridge.java"
ASSIGNOR_CLASS_FILE = "org/apache/kafka/clients/consumer/ConsumerPartitionAssignor.class"
GROUP_ASSIGNOR_CLASS_FILE = "org/apache/kafka/coordinator/group/api/assignor/PartitionAssignor.class"
TASK_ASSIGNOR_CLASS_FILE = "org/apache/kafka/streams/processor/assignment/TaskAssignor.class"  # KIP-924, 3.8+
# KIP-1071's broker-side streams TaskAssignor: in the coordinator in 4.1-4.3, in its API jar from 4.4
GROUP_TASK_ASSIGNOR_CLASS_FILES = ("org/apache/kafka/coordinator/group/api/streams/assignor/TaskAssignor.class",
                                   "org/apache/kafka/coordinator/group/streams/assignor/TaskAssignor.class")
COORDINATOR_PACKAGE = "org.apache.kafka.coordinator."
STREAMS_PACKAGE = "org.apache.kafka.streams."


def kafka_classpath(classpath: Sequence[str], class_name: str) -> tuple[str, ...]:
    """Absolute entries, each checked to exist, and Kafka's pinned jars when no entry holds an assignor API."""
    from assigncheck.toolchains import maven

    entries = java_build.resolve_classpath(classpath)
    if java_build.holds(entries, ASSIGNOR_CLASS_FILE) or java_build.holds(entries, GROUP_ASSIGNOR_CLASS_FILE):
        return entries
    pinned = (maven.COORDINATOR if class_name.startswith(COORDINATOR_PACKAGE)
              else maven.STREAMS if class_name.startswith(STREAMS_PACKAGE) else maven.CLIENTS)
    return entries + maven.jars(pinned, flag="--classpath")  # the option that would have named them


def sources(classpath: Sequence[str]) -> tuple[Path, ...]:
    """The bridge's sources that compile against `classpath`: the group and Streams bridges only where their APIs
    are (the KIP-1071 one needs no API to compile, only to run: it drives the API by reflection)."""
    return (CLASSIC_SOURCES
            + ((GROUP_SOURCE,) if java_build.holds(classpath, GROUP_ASSIGNOR_CLASS_FILE) else ())
            + ((STREAMS_SOURCE,) if java_build.holds(classpath, TASK_ASSIGNOR_CLASS_FILE) else ())
            + ((STREAMS_GROUP_SOURCE,) if any(java_build.holds(classpath, f) for f in GROUP_TASK_ASSIGNOR_CLASS_FILES)
               else ()))


def compiled(classpath: Sequence[str]) -> Path:
    """The directory of the bridge's classes for `classpath` (compiled on first use, then reused)."""
    return java_build.compiled(sources(classpath), classpath)


__all__ = [
    "ASSIGNOR_CLASS_FILE", "CLASSIC_SOURCES", "COORDINATOR_PACKAGE", "GROUP_ASSIGNOR_CLASS_FILE", "GROUP_SOURCE",
    "GROUP_TASK_ASSIGNOR_CLASS_FILES", "MAIN", "STREAMS_GROUP_SOURCE", "STREAMS_PACKAGE", "STREAMS_SOURCE",
    "TASK_ASSIGNOR_CLASS_FILE", "compiled", "kafka_classpath", "sources"
]
