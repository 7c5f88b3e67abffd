"""A real Kafka broker for live groups: a single-node KRaft broker (combined broker and controller) from Kafka's
pinned jars on Maven Central, on 127.0.0.1 only.

`Broker()` formats its storage with Kafka's own `kafka.tools.StorageTool` in a temporary directory and starts
`kafka.Kafka` in a process group of its own, on ports the OS hands out; `stop()` kills the group and removes
the directory. A live run holds one in a `with` block, and `live.cleanup` also stops every broker still running
when the process exits or takes SIGTERM/SIGINT, so Ctrl-C leaves nothing behind.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from assigncheck.live import cleanup
from assigncheck.spec.errors import TargetUnavailable
from assigncheck.toolchains import java_build, maven

START_S = 120.0  # a cold JVM on a busy 2-core machine
# Short timeouts so a schedule's crashes and joins settle in seconds; both rebalance protocols on.
SETTINGS = {
    "process.roles": "broker,controller",
    "node.id": "1",
    "controller.listener.names": "CONTROLLER",
    "inter.broker.listener.name": "PLAINTEXT",
    "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
    "offsets.topic.replication.factor": "1",
    "offsets.topic.num.partitions": "1",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
    "share.coordinator.state.topic.replication.factor": "1",
    "share.coordinator.state.topic.min.isr": "1",
    "num.partitions": "1",
    "auto.create.topics.enable": "false",
    "group.initial.rebalance.delay.ms": "0",
    "group.coordinator.rebalance.protocols": "classic,consumer",
    "group.min.session.timeout.ms": "2000",
    "group.consumer.min.session.timeout.ms": "2000",
    "group.consumer.session.timeout.ms": "6000",
    "group.consumer.min.heartbeat.interval.ms": "200",
    "group.consumer.heartbeat.interval.ms": "500",
}


def jars() -> tuple[str, ...]:
    """The broker's jars (fetched once into the Maven cache)."""
    return maven.jars(maven.BROKER, flag="--bootstrap-server")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


class Broker:
    """A running single-node KRaft broker; `bootstrap` is `127.0.0.1:PORT`."""

    def __init__(self, *, start_s: float = START_S) -> None:
        java, _ = java_build.jdk()
        classpath = os.pathsep.join(jars())
        self.directory = Path(tempfile.mkdtemp(prefix="assigncheck-broker-"))
        self.process: subprocess.Popen[bytes] | None = None
        cleanup.register(self)
        try:
            port, controller = free_port(), free_port()
            settings = dict(SETTINGS, **{
                "listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller}",
                "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
                "controller.quorum.voters": f"1@127.0.0.1:{controller}",
                "log.dirs": str(self.directory / "logs"),
            })
            config = self.directory / "server.properties"
            config.write_text("".join(f"{k}={v}\n" for k, v in settings.items()), encoding="utf-8")
            self.log = self.directory / "broker.log"
            jvm = [java, "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classpath]
            cluster = uuid.uuid4().hex[:22]
            formatted = subprocess.run([*jvm, "kafka.tools.StorageTool", "format", "--config", str(config),
                                        "--cluster-id", cluster, "--ignore-formatted"],
                                       capture_output=True, text=True, timeout=start_s, stdin=subprocess.DEVNULL)
            if formatted.returncode != 0:
                raise TargetUnavailable("--bootstrap-server", "Kafka's StorageTool failed: "
                                        + (formatted.stderr or formatted.stdout).strip()[-300:])
            with open(self.log, "wb") as out:
                self.process = subprocess.Popen([*jvm, "kafka.Kafka", str(config)], stdout=out,
                                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                                start_new_session=True)
            self.bootstrap = f"127.0.0.1:{port}"
            deadline = time.monotonic() + start_s
            while not _listening(port):
                if self.process.poll() is not None or time.monotonic() > deadline:
                    tail = self.log.read_text(encoding="utf-8", errors="replace").strip()[-300:]
                    raise TargetUnavailable("--bootstrap-server", f"the Kafka broker did not start: {tail}")
                time.sleep(0.2)
        except BaseException:
            self.stop()
            raise

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        """Kill the broker's process group and remove its storage (idempotent)."""
        process, self.process = self.process, None
        if process is not None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)
        cleanup.forget(self)

    def __enter__(self) -> Broker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
