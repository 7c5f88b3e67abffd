"""The shared SparkSession: local, quiet, and running this interpreter's Python in the workers."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from assigncheck.ci.cli import main as cli_main
from assigncheck.spark.session import check_master, get_session, is_local
from assigncheck.spec.errors import InputError


def test_session_is_local_and_uses_this_python(spark):
    conf = spark.sparkContext.getConf()
    assert conf.get("spark.ui.enabled") == "false"
    assert conf.get("spark.driver.host") == "127.0.0.1"
    assert conf.get("spark.driver.bindAddress") == "127.0.0.1"
    assert os.environ["PYSPARK_PYTHON"] == sys.executable
    # The workers really run this interpreter (so they can import assigncheck).
    worker_python = spark.sparkContext.parallelize([0], 1).map(lambda _: __import__("sys").executable).collect()
    assert worker_python == [sys.executable]
    assert spark.sparkContext.parallelize([0], 1).map(
        lambda _: __import__("assigncheck.spark.diff_shards").__name__).collect() == ["assigncheck"]


def test_python_workers_are_reused_across_tasks(spark):
    """Each campaign task imports the checker once per Python worker: six tasks on two cores, two workers."""
    pids = spark.sparkContext.parallelize(range(6), 6).map(lambda _: __import__("os").getpid()).collect()
    assert len(pids) == 6 and len(set(pids)) <= 2


def test_get_session_returns_the_running_session(spark):
    assert get_session("local[2]") is spark


def test_is_local():
    assert is_local("local[*]") and is_local("local") and is_local("local[2,3]")
    assert not is_local("spark://host:7077") and not is_local("yarn")


def _closed_port() -> int:
    """A port nothing listens on: bound (so no one else takes it during the test) but never listening."""
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    _held.append(s)
    return s.getsockname()[1]


_held: list = []


def test_master_urls_spark_accepts_pass_and_others_name_the_flag():
    for ok in (None, "local", "local[2]", "local[*]", "local[2,4]", "local[*,3]", "local-cluster[2,1,1024]", "yarn",
               "k8s://https://10.0.0.1:6443"):
        check_master(ok)
    for bad in ("nope://x", "local[0]", "local[two]", "spark://", "spark://host", "spark://host:0",
                "spark://host:99999", "spark://a:1,b", "k8s://", "Local[2]", ""):
        with pytest.raises(InputError) as e:
            check_master(bad)
        assert e.value.path == "--master", bad
    with pytest.raises(InputError) as e:
        check_master(f"spark://127.0.0.1:{_closed_port()}")
    assert "no Spark master answers" in str(e.value)


@pytest.mark.parametrize("verb", [
    ["campaign", "diff", "--target", "range", "--instances", "4"],
    ["campaign", "fuzz", "--target", "range", "--rounds", "1", "--seconds", "1"],
    ["gate", "--stages", "campaign", "--target", "range"],
])
@pytest.mark.parametrize("master", ["nope://x", "closed"])
def test_a_bad_master_is_one_line_and_exit_2_before_any_work(tmp_path, capsys, verb, master):
    master = f"spark://127.0.0.1:{_closed_port()}" if master == "closed" else master
    out = tmp_path / "out"
    where = ["--report-dir", str(out)] if verb[0] == "gate" else ["--out", str(out)]
    assert cli_main([*verb, *where, "--master", master]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--master" in err and master in err, err
    assert not out.exists(), "nothing was started or written"


def test_the_spark_package_imports_pyspark_only_when_a_session_is_made():
    import subprocess

    code = ("import sys, assigncheck.spark.diff, assigncheck.spark.fuzz, assigncheck.spark.session, "
            "assigncheck.spark.standalone, assigncheck.ci.commands.campaign; print('pyspark' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "False"


@pytest.mark.slow
def test_spark_s_own_output_goes_to_the_log_file_only(tmp_path):
    """A JVM started with a log file writes its start-up lines and Spark's log there: the process that started it
    prints nothing of it."""
    log = tmp_path / "campaign" / "spark.log"
    script = ("from assigncheck.spark.session import get_session\n"
              f"s = get_session('local[1]', log={str(log)!r})\n"
              "print(s.sparkContext.parallelize([1, 2], 2).map(lambda x: x * 2).sum())\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert (run.stdout, run.stderr) == ("6\n", "")
    assert log.read_text().strip()  # the JVM's start-up lines (its WARNs) are there
