"""One place that creates the SparkSession, with the settings that work on a developer machine and in CI.

Local mode binds 127.0.0.1 with no UI and no console progress bar; Python workers run this interpreter
(`PYSPARK_PYTHON=sys.executable`, unless already set), because by default they run the first `python3` on PATH,
which lacks assigncheck. For a cluster pass `--master spark://host:7077`, or run under `spark-submit` (whose
`--master` then wins); the workers need assigncheck installed in the interpreter `PYSPARK_PYTHON` names, and
campaign output must be on a path every worker sees (see the README).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pyspark is imported only when a session is really needed
    from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[*]"
# Quiet from the first line: without a configuration file Spark prints its default profile and WARN lines
# before `setLogLevel` can run.
_LOG4J2 = """status = error
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
rootLogger.level = error
rootLogger.appenderRef.stdout.ref = console
"""


def is_local(master: str) -> bool:
    return master == "local" or master.startswith("local[")


def under_spark_submit() -> bool:
    """True when `spark-submit` started this Python (its JVM is already up and owns the master setting)."""
    return "PYSPARK_GATEWAY_PORT" in os.environ


def _log_config() -> str:
    path = Path(tempfile.gettempdir()) / f"assigncheck-log4j2-{os.getuid()}.properties"
    if not path.exists() or path.read_text() != _LOG4J2:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(_LOG4J2)
        os.replace(tmp, path)
    return f"file:{path}"


def get_session(master: str | None = None, app_name: str = "assigncheck") -> SparkSession:
    """The active SparkSession (created once per process; later calls return the same session).

    `master=None` means spark-submit's master when run under spark-submit, else `local[*]`."""
    if master is None and not under_spark_submit():
        master = DEFAULT_MASTER
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    local = master is not None and is_local(master)
    if local:
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
    )
    if master is not None:
        builder = builder.master(master)
    if not under_spark_submit():  # a JVM this process launches: quiet from its first line
        builder = builder.config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={_log_config()}")
    if local:
        builder = builder.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session
