"""The shared SparkSession: local, quiet, and running this interpreter's Python in the workers."""

from __future__ import annotations

import os
import sys

from assigncheck.spark.session import get_session, is_local


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


def test_get_session_returns_the_running_session(spark):
    assert get_session("local[2]") is spark


def test_is_local():
    assert is_local("local[*]") and is_local("local") and is_local("local[2,3]")
    assert not is_local("spark://host:7077") and not is_local("yarn")
