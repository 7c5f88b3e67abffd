"""A one-machine Spark standalone cluster (one master, one worker) from pyspark's own launcher, `bin/spark-class`:
what the cluster test and the campaign benchmark run `--master spark://127.0.0.1:P` against, with nothing to
install beyond the pyspark wheel.

    with standalone_cluster(work_dir) as cluster:
        ... assigncheck campaign diff --master {cluster.url} ...

Both daemons bind 127.0.0.1 on free ports. Every process of the cluster (daemons, executors, pyspark's Python
daemons, which make process groups of their own, and their workers) carries one environment token, so on
exit each is found by it and stopped by its pid: nothing outlives the block.
Executors run `python` (default: this interpreter), with `pythonpath` prepended to their PYTHONPATH so that
targets outside the installed packages load in the executors as they would on a real cluster's workers.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from assigncheck.formats.json_input import parse_json

TOKEN = "ASSIGNCHECK_STANDALONE"  # environment variable marking every process of one cluster
MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"


def spark_class() -> Path:
    """pyspark's `bin/spark-class` (the pyspark wheel is a whole Spark distribution)."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent / "bin" / "spark-class"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Cluster:
    url: str  # spark://127.0.0.1:PORT
    ui: str  # the master's web UI; `/json/` lists the workers
    processes: tuple[subprocess.Popen[bytes], ...]  # master, worker
    logs: Path
    token: str

    def state(self) -> dict:
        with urllib.request.urlopen(f"{self.ui}/json/", timeout=5) as reply:
            return parse_json(reply.read(), "the Spark master's state")

    def alive_workers(self) -> int:
        try:
            return int(self.state().get("aliveworkers", 0))
        except (OSError, ValueError):
            return 0

    def members(self) -> list[int]:
        """Pids of the cluster's live processes (those whose environment holds its token)."""
        mark = f"{TOKEN}={self.token}".encode()
        pids = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                environ = (entry / "environ").read_bytes().split(b"\0")
                stat = (entry / "stat").read_text()
            except OSError:  # gone meanwhile
                continue
            if mark in environ and stat[stat.rindex(")") + 2] != "Z":
                pids.append(int(entry.name))
        return pids

    def stop(self, grace_s: float = 20.0) -> None:
        """SIGTERM the daemons (the worker's shutdown stops its executors), then SIGKILL whatever is left of the
        cluster, pid by pid."""
        for p in self.processes:
            if p.poll() is None:
                p.terminate()
        deadline = time.monotonic() + grace_s
        while self.members() and time.monotonic() < deadline:
            time.sleep(0.2)
        for pid in self.members():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for p in self.processes:
            p.wait(timeout=grace_s)


def _start(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:  # the child keeps its own descriptor
        return subprocess.Popen([str(spark_class()), *args], stdout=out, stderr=subprocess.STDOUT, env=env)


@contextmanager
def standalone_cluster(work_dir: str | os.PathLike[str], *, cores: int = 2, python: str = sys.executable,
                       pythonpath: tuple[str, ...] = (), timeout_s: float = 180.0) -> Iterator[Cluster]:
    """A master and one worker with `cores` cores on 127.0.0.1, up until the block ends (see the module doc)."""
    work = Path(work_dir).resolve()
    (work / "worker").mkdir(parents=True, exist_ok=True)
    token = uuid.uuid4().hex
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": python,
           "SPARK_HOME": str(spark_class().parent.parent), TOKEN: token}
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join([*pythonpath, *filter(None, [os.environ.get("PYTHONPATH")])])
    port, ui_port = free_port(), free_port()
    url, ui = f"spark://127.0.0.1:{port}", f"http://127.0.0.1:{ui_port}"
    processes: list[subprocess.Popen[bytes]] = []
    cluster = Cluster(url, ui, (), work, token)
    try:
        processes.append(_start([MASTER_CLASS, "--host", "127.0.0.1", "--port", str(port), "--webui-port",
                                 str(ui_port)], work / "master.log", env))
        processes.append(_start([WORKER_CLASS, "--host", "127.0.0.1", "--cores", str(cores), "--webui-port",
                                 str(free_port()), "--work-dir", str(work / "worker"), url], work / "worker.log", env))
        cluster.processes = tuple(processes)
        deadline = time.monotonic() + timeout_s
        while cluster.alive_workers() < 1:
            dead = [p for p in processes if p.poll() is not None]
            if dead or time.monotonic() > deadline:
                logs = "".join((work / f"{n}.log").read_text(errors="replace")[-2000:] for n in ("master", "worker"))
                raise RuntimeError(f"the standalone cluster did not come up ({'a daemon exited' if dead else 'timeout'}"
                                   f"):\n{logs}")
            time.sleep(0.5)
        yield cluster
    finally:
        cluster.processes = tuple(processes)
        cluster.stop()
