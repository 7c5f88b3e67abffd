"""One member of a live group, in a process of its own: a real client (kafka-python, aiokafka, or librdkafka through
confluent-kafka) subscribed to a group, writing a JSON-lines timeline of its rebalance callbacks.

    python -m assigncheck.live.member SETTINGS_JSON

SETTINGS_JSON: `{"client", "protocol": "classic"|"consumer", "assignor", "name", "group", "bootstrap", "log",
"topics": [...], "instance_id": str|null}`. Each line of the log: `{"t": CLOCK_MONOTONIC seconds, "event":
"started"|"assigned"|"revoked"|"lost"|"closed", "partitions": [[topic, index], ...], "generation": int|null,
"member_id": str|null}`; an `assigned`/`revoked`/`lost` line is what the callback was handed (the whole set under
the eager protocol, the increment under the cooperative and KIP-848 ones), written as the callback is entered
(assigned) or as it returns (revoked, lost: the member may still use the partitions inside the callback).
Commands on standard input, one a line: `subscribe TOPIC,TOPIC`, `slow SECONDS` (every later callback sleeps that
long), `leave` (close the consumer, then exit; also when standard input closes).
The Java consumer's twin is `io.assigncheck.live.LiveMember` (`drivers/java`).
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from assigncheck.formats.json_input import parse_json

KAFKA_PYTHON = {
    "range": "kafka.coordinator.assignors.range:RangePartitionAssignor",
    "roundrobin": "kafka.coordinator.assignors.roundrobin:RoundRobinPartitionAssignor",
    "sticky": "kafka.coordinator.assignors.sticky.sticky_assignor:StickyPartitionAssignor",
    "cooperative-sticky": "kafka.coordinator.assignors.cooperative_sticky:CooperativeStickyAssignor",
}
AIOKAFKA = {
    "range": "aiokafka.coordinator.assignors.range:RangePartitionAssignor",
    "roundrobin": "aiokafka.coordinator.assignors.roundrobin:RoundRobinPartitionAssignor",
    "sticky": "aiokafka.coordinator.assignors.sticky.sticky_assignor:StickyPartitionAssignor",
}
SESSION_MS = 6000
HEARTBEAT_MS = 500
METADATA_MS = 1000  # a topic's new partitions reach the group within a second


class Timeline:
    """The member's log, one flushed line per event."""

    def __init__(self, path: str) -> None:
        self._out = open(path, "a", encoding="utf-8")  # noqa: SIM115 (open for the process's life)
        self.slow_s = 0.0
        self.generation: Any = lambda: None
        self.member_id: Any = lambda: None

    def write(self, event: str, partitions: Any = ()) -> None:
        t = time.monotonic()
        pairs = sorted([tp.topic, tp.partition] for tp in partitions)
        try:
            generation, member_id = self.generation(), self.member_id()
        except Exception:  # noqa: BLE001 (a closed client has none)
            generation = member_id = None
        line = {"t": t, "event": event, "partitions": pairs, "generation": generation, "member_id": member_id}
        self._out.write(json.dumps(line) + "\n")
        self._out.flush()

    def assigned(self, partitions: Any) -> None:
        self.write("assigned", partitions)
        time.sleep(self.slow_s)

    def revoked(self, partitions: Any, event: str = "revoked") -> None:
        time.sleep(self.slow_s)
        self.write(event, partitions)


def _commands() -> queue.Queue[dict[str, Any]]:
    commands: queue.Queue[dict[str, Any]] = queue.Queue()

    def read() -> None:
        for line in sys.stdin:
            op, _, arg = line.strip().partition(" ")
            if op == "subscribe":
                commands.put({"op": op, "topics": arg.split(",")})
            elif op == "slow":
                commands.put({"op": op, "seconds": float(arg)})
            elif op == "leave":
                commands.put({"op": op})
        commands.put({"op": "leave"})  # the harness closed our stdin: leave as a member does on shutdown

    threading.Thread(target=read, daemon=True).start()
    return commands


def _act(commands: queue.Queue[dict[str, Any]], log: Timeline, subscribe: Callable[[list[str]], Any]) -> bool:
    """Act on the next command between two polls, if there is one: False when the member is to leave (its loop
    then closes the consumer)."""
    try:
        command = commands.get_nowait()
    except queue.Empty:
        return True
    if command["op"] == "subscribe":
        subscribe(command["topics"])
    elif command["op"] == "slow":
        log.slow_s = float(command["seconds"])
    return command["op"] != "leave"


def _class(path: str) -> Any:
    import importlib

    module, name = path.split(":")
    return getattr(importlib.import_module(module), name)


def _run_kafka_python(s: dict[str, Any], log: Timeline, commands: queue.Queue[dict[str, Any]]) -> None:
    from kafka import ConsumerRebalanceListener, KafkaConsumer

    consumer = KafkaConsumer(bootstrap_servers=s["bootstrap"], group_id=s["group"], client_id=s["name"],
                             group_instance_id=s["instance_id"], enable_auto_commit=False,
                             partition_assignment_strategy=[_class(KAFKA_PYTHON[s["assignor"]])],
                             session_timeout_ms=SESSION_MS, heartbeat_interval_ms=HEARTBEAT_MS,
                             metadata_max_age_ms=METADATA_MS)
    coordinator = consumer._coordinator  # the generation is not public API
    log.generation = lambda: coordinator._generation.generation_id
    log.member_id = lambda: coordinator._generation.member_id

    class Listener(ConsumerRebalanceListener):
        def on_partitions_assigned(self, assigned: Any) -> None:
            log.assigned(assigned)

        def on_partitions_revoked(self, revoked: Any) -> None:
            log.revoked(revoked)

        def on_partitions_lost(self, lost: Any) -> None:
            log.revoked(lost, "lost")

    listener = Listener()
    consumer.subscribe(s["topics"], listener=listener)
    log.write("started")
    while True:
        consumer.poll(timeout_ms=100)
        if not _act(commands, log, partial(consumer.subscribe, listener=listener)):
            break
    consumer.close()


def _run_aiokafka(s: dict[str, Any], log: Timeline, commands: queue.Queue[dict[str, Any]]) -> None:
    import asyncio

    from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener

    async def main() -> None:
        consumer = AIOKafkaConsumer(bootstrap_servers=s["bootstrap"], group_id=s["group"], client_id=s["name"],
                                    group_instance_id=s["instance_id"], enable_auto_commit=False,
                                    partition_assignment_strategy=[_class(AIOKAFKA[s["assignor"]])],
                                    session_timeout_ms=SESSION_MS, heartbeat_interval_ms=HEARTBEAT_MS,
                                    metadata_max_age_ms=METADATA_MS)

        class Listener(ConsumerRebalanceListener):
            async def on_partitions_assigned(self, assigned: Any) -> None:
                log.write("assigned", assigned)
                await asyncio.sleep(log.slow_s)

            async def on_partitions_revoked(self, revoked: Any) -> None:
                await asyncio.sleep(log.slow_s)
                log.write("revoked", revoked)

        listener = Listener()
        consumer.subscribe(s["topics"], listener=listener)
        # The generation is not public API; the coordinator exists from start(), whose first rebalance calls back.
        log.generation = lambda: consumer._coordinator.generation
        log.member_id = lambda: consumer._coordinator.member_id
        await consumer.start()
        log.write("started")
        while True:
            await consumer.getmany(timeout_ms=100)
            if not _act(commands, log, partial(consumer.subscribe, listener=listener)):
                break
        await consumer.stop()

    asyncio.run(main())


def _run_confluent(s: dict[str, Any], log: Timeline, commands: queue.Queue[dict[str, Any]]) -> None:
    from confluent_kafka import Consumer

    config: dict[str, Any] = {"bootstrap.servers": s["bootstrap"], "group.id": s["group"], "client.id": s["name"],
                              "enable.auto.commit": False, "group.protocol": s["protocol"], "log_level": 3,
                              "topic.metadata.refresh.interval.ms": METADATA_MS}
    if s["protocol"] == "classic":
        config.update({"partition.assignment.strategy": s["assignor"], "session.timeout.ms": SESSION_MS,
                       "heartbeat.interval.ms": HEARTBEAT_MS})
    elif s["assignor"]:
        config["group.remote.assignor"] = s["assignor"]
    if s["instance_id"]:
        config["group.instance.id"] = s["instance_id"]
    consumer = Consumer(config)
    log.member_id = consumer.memberid  # librdkafka exposes no generation or epoch

    def on_assign(c: Any, partitions: Any) -> None:
        log.assigned(partitions)

    def on_revoke(c: Any, partitions: Any) -> None:
        log.revoked(partitions)

    def on_lost(c: Any, partitions: Any) -> None:
        log.revoked(partitions, "lost")

    def subscribe(topics: list[str]) -> None:
        consumer.subscribe(topics, on_assign=on_assign, on_revoke=on_revoke, on_lost=on_lost)

    subscribe(s["topics"])
    log.write("started")
    while True:
        consumer.poll(0.1)
        if not _act(commands, log, subscribe):
            break
    consumer.close()


RUNNERS = {"kafka-python": _run_kafka_python, "aiokafka": _run_aiokafka, "confluent-kafka": _run_confluent}


def main(argv: list[str]) -> int:
    settings = parse_json(argv[0], "member settings")
    log = Timeline(settings["log"])
    RUNNERS[settings["client"]](settings, log, _commands())
    log.write("closed")
    sys.stdout.flush()
    os._exit(0)  # a client's non-daemon threads must not keep a member that left alive


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
