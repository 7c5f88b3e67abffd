"""Members of a live group as processes: which client runs them, how each is started, told what to do, killed, and
how its timeline (see `member.py`) is read back.

`CLIENTS` names every client and the group protocols it speaks: `java` (Kafka's consumer, kafka-clients of the
broker's version; classic with any `ConsumerPartitionAssignor` class, or KIP-848), `confluent-kafka` (librdkafka;
classic and KIP-848), `kafka-python` and `aiokafka` (classic only), `franz-go` (kgo, the version pinned in
go/go.mod; classic with kgo's balancers, and KIP-848 through its `ServerSideBalancer`, which asks the broker for
`range` or `uniform`).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assigncheck.drivers import JAVA_JSON, JAVA_LIVE, LIVE_MAIN
from assigncheck.formats.json_input import parse_json
from assigncheck.live import broker, cleanup
from assigncheck.spec.errors import InputError
from assigncheck.toolchains import java_build

CLIENTS: dict[str, tuple[str, ...]] = {
    "java": ("classic", "consumer"),
    "confluent-kafka": ("classic", "consumer"),
    "kafka-python": ("classic",),
    "aiokafka": ("classic",),
    "franz-go": ("classic", "consumer"),
}
# Each client's default assignor per protocol (KIP-848: the broker's, named by `group.remote.assignor`).
DEFAULT_ASSIGNOR = {
    ("java", "classic"): "org.apache.kafka.clients.consumer.RangeAssignor",
    ("java", "consumer"): "uniform",
    ("confluent-kafka", "classic"): "range",
    ("confluent-kafka", "consumer"): "uniform",
    ("kafka-python", "classic"): "range",
    ("aiokafka", "classic"): "range",
    ("franz-go", "classic"): "cooperative-sticky",  # kgo's default balancer
    ("franz-go", "consumer"): "uniform",
}
_SOURCES = (JAVA_LIVE / "LiveMember.java", JAVA_JSON)  # the member, and the JSON quoting it shares
# `make franz-go` builds go/cmd/franz-go-member into the virtual environment, beside its franz-go-driver.
FRANZ_GO_MEMBER = Path(sys.prefix) / "bin" / "franz-go-member"


def check_client(client: str, protocol: str) -> None:
    if client not in CLIENTS:
        raise InputError("--client", f"unknown client {client!r}; one of {', '.join(CLIENTS)}")
    if protocol not in CLIENTS[client]:
        raise InputError("--protocol", f"{client} speaks {' and '.join(CLIENTS[client])} only, not {protocol!r}")
    if client == "franz-go" and not FRANZ_GO_MEMBER.is_file():
        raise InputError("--client", f"franz-go members run {FRANZ_GO_MEMBER}, not built: run `make franz-go` "
                                     "(needs Go 1.26 or later)")


def java_command(classpath: tuple[str, ...] = ()) -> list[str]:
    """Kafka's consumer (the broker's kafka-clients) running `io.assigncheck.live.LiveMember`, with `classpath` first
    (the user's assignor class)."""
    java, _ = java_build.jdk()
    jars = broker.jars()
    built = java_build.compiled(_SOURCES, jars)
    entries = java_build.resolve_classpath(classpath)  # jars or directories, checked before anything reads them
    return [java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-cp", os.pathsep.join([*entries, str(built), *jars]), LIVE_MAIN]


@dataclass
class Member:
    """A running member process; `log` is its timeline file."""

    name: str
    process: subprocess.Popen[bytes]
    log: Path
    ended_at: float | None = None  # CLOCK_MONOTONIC when we killed it (a crash ends its ownership)

    def send(self, command: str) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write((command + "\n").encode())
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def kill(self) -> None:
        """SIGKILL, as a crash: no callback runs, the broker learns of it from the session timeout."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            self.ended_at = time.monotonic()
            with open(self.log, "a", encoding="utf-8") as out:  # the process is gone: its timeline ends here
                out.write("\n" + json.dumps({"t": self.ended_at, "event": "killed", "partitions": []}) + "\n")
        self.process.wait()

    def leave(self, timeout_s: float = 30.0) -> None:
        self.send("leave")
        try:
            self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        self.kill()
        cleanup.forget(self)

    def events(self) -> list[dict[str, Any]]:
        return timeline(self.log)


def timeline(path: Path) -> list[dict[str, Any]]:
    """A member's events so far (a line cut short by a SIGKILL is skipped)."""
    if not path.is_file():
        return []
    return [parse_json(line, str(path)) for line in path.read_text(encoding="utf-8").splitlines() if line.endswith("}")]


def start(client: str, protocol: str, assignor: str, name: str, group: str, bootstrap: str, topics: list[str],
          directory: Path, instance_id: str | None = None, java: list[str] | None = None) -> Member:
    """A member process, subscribed to `topics`; its timeline is `directory/NAME.jsonl` (appended to across restarts
    of one static member)."""
    log = directory / f"{name}.jsonl"
    if client == "java":
        command = [*(java or java_command()), protocol, assignor or "-", name, group, bootstrap, str(log),
                   ",".join(topics), instance_id or "-"]
    else:
        settings = {"client": client, "protocol": protocol, "assignor": assignor, "name": name, "group": group,
                    "bootstrap": bootstrap, "log": str(log), "topics": topics, "instance_id": instance_id}
        command = ([str(FRANZ_GO_MEMBER)] if client == "franz-go" else
                   [sys.executable, "-m", "assigncheck.live.member"]) + [json.dumps(settings)]
    with open(directory / f"{name}.stderr", "ab") as err:
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=err,
                                   start_new_session=True)
    member = Member(name, process, log)
    cleanup.register(member)
    return member
