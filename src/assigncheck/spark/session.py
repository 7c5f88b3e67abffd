"""One place that creates the SparkSession, with the settings that work on a developer machine and in CI.

Local mode binds 127.0.0.1 with no UI and no console progress bar; Python workers run this interpreter
(`PYSPARK_PYTHON=sys.executable`, unless already set), because by default they run the first `python3` on PATH,
which lacks assigncheck. For a cluster pass `--master spark://host:7077`, or run under `spark-submit` (whose
`--master` then wins); the workers need assigncheck installed in the interpreter `PYSPARK_PYTHON` names, and
campaign output must be on a path every worker sees (see the README). A standalone master on this machine's
loopback address (`spark://127.0.0.1:P`) gets a driver on 127.0.0.1 too, as local mode does.

Spark's own output (the JVM's start-up lines, its log, the Python workers' stderr) is not the caller's: given a
`log` file, the JVM this process starts writes there and nowhere else (the gate's stdout and stderr stay its own);
without one it inherits stderr and logs errors only.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from assigncheck.spec.errors import InputError

if TYPE_CHECKING:  # pyspark is imported only when a session is really needed
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[*]"
_LOCAL = re.compile(r"local(\[(\*|[1-9]\d*)(,[1-9]\d*)?\])?|local-cluster\[[1-9]\d*,[1-9]\d*,[1-9]\d*\]")
_HOST_PORT = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})")
_FORMS = "local, local[N], local[*], local[N,F], spark://HOST:PORT[,HOST:PORT...], yarn or k8s://URL"
CONNECT_TIMEOUT_S = 5.0
_LOGGED: list[Path] = []  # the log file of the JVM this process started, if it started one with a log
# Quiet from the first line: without a configuration file Spark prints its default profile and WARN lines
# before `setLogLevel` can run. The shell's logger at the root's level: else Spark, which counts a PySpark driver
# as a shell, prints "Setting default log level to WARN" to stderr itself.
_LOG4J2 = """status = error
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
rootLogger.level = LEVEL
rootLogger.appenderRef.stdout.ref = console
logger.repl.name = org.apache.spark.repl.Main
logger.repl.level = LEVEL
"""


def is_local(master: str) -> bool:
    return master == "local" or master.startswith("local[")


def standalone_hosts(master: str) -> list[tuple[str, int]]:
    """(host, port) of each master a `spark://` URL names (several for a standby setup); [] for other URLs."""
    if not master.startswith("spark://"):
        return []
    out = []
    for part in master[len("spark://"):].split(","):
        match = _HOST_PORT.fullmatch(part)
        if not match or not 0 < int(match.group(2)) < 65536:
            raise InputError("--master", f"{part!r} in {master!r} is not HOST:PORT")
        out.append((match.group(1).strip("[]"), int(match.group(2))))
    return out


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_master(master: str | None) -> None:
    """Raise InputError naming --master unless `master` is a URL Spark accepts and, for a standalone cluster,
    one of its masters answers: before any work, so a typo is one line and not a JVM stack trace or a wait
    for a master that is not there. Under spark-submit only the form is checked (its own --master wins)."""
    if master is None or master == "yarn" or _LOCAL.fullmatch(master):
        return
    if master.startswith("k8s://") and len(master) > len("k8s://"):
        return
    hosts = standalone_hosts(master)
    if not hosts:
        raise InputError("--master", f"must be one of {_FORMS}; got {master!r}")
    if under_spark_submit():
        return
    for host, port in hosts:
        try:
            with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S):
                return
        except OSError:
            continue
    raise InputError("--master", f"no Spark master answers at {master!r}")


def under_spark_submit() -> bool:
    """True when `spark-submit` started this Python (its JVM is already up and owns the master setting)."""
    return "PYSPARK_GATEWAY_PORT" in os.environ


def _log_config(level: str) -> str:
    text = _LOG4J2.replace("LEVEL", level)
    path = Path(tempfile.gettempdir()) / f"assigncheck-log4j2-{level}-{os.getuid()}.properties"
    if not path.exists() or path.read_text() != text:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
    return f"file:{path}"


def _start_jvm(conf: SparkConf, log: Path) -> None:
    """Start Spark's JVM with its stdout and stderr on `log` (appended), and the SparkContext on it."""
    from pyspark import SparkContext
    from pyspark.java_gateway import launch_gateway

    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:  # the JVM holds its own copy of the descriptor
        try:
            gateway = launch_gateway(conf, popen_kwargs={"stdout": out, "stderr": out})
        except Exception as e:  # noqa: BLE001 - why is in the log, which the message names
            raise RuntimeError(f"Spark did not start ({e}): see {log}") from e
    SparkContext(conf=conf, gateway=gateway)


def get_session(master: str | None = None, app_name: str = "assigncheck", log: str | Path | None = None
                ) -> SparkSession:
    """The active SparkSession (created once per process; later calls return the same session).

    `master=None` means spark-submit's master when run under spark-submit, else `local[*]`. `log`: where the
    JVM's output goes, when this call starts it (Spark's log at WARN there; a JVM started without one, or by
    spark-submit, writes to stderr and logs errors only)."""
    if master is None and not under_spark_submit():
        master = DEFAULT_MASTER
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    hosts = standalone_hosts(master) if master is not None else []
    # A master on the loopback address means executors on this machine: they reach the driver there too.
    local = master is not None and (is_local(master) or (bool(hosts) and all(_loopback(h) for h, _ in hosts)))
    if local:
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark import SparkConf, SparkContext
    from pyspark.sql import SparkSession

    starting = log is not None and SparkContext._gateway is None and not under_spark_submit()  # no JVM yet
    level = "warn" if starting or _LOGGED else "error"  # WARN only into a log file, never onto stderr
    conf = SparkConf().setAppName(app_name).setAll([
        ("spark.ui.enabled", "false"),
        ("spark.ui.showConsoleProgress", "false"),
        ("spark.sql.session.timeZone", "UTC"),
        # A campaign task is one shard; a fresh Python worker per task would import the checker again each
        # time (on a busy 2-core standalone cluster, 16 shards ran at 171 rows/s without reuse, 298 with).
        ("spark.python.worker.reuse", "true"),
    ])
    if master is not None:
        conf.setMaster(master)
    if not under_spark_submit():  # a JVM this process launches: quiet from its first line
        conf.set("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={_log_config(level)}")
    if local:
        conf.set("spark.driver.host", "127.0.0.1").set("spark.driver.bindAddress", "127.0.0.1")
    if starting:
        _start_jvm(conf, Path(str(log)))
        _LOGGED.append(Path(str(log)))
    session = SparkSession.builder.config(conf=conf).getOrCreate()
    session.sparkContext.setLogLevel(level.upper())
    return session
