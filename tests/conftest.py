"""Shared fixtures of the test suite."""

from __future__ import annotations

import pytest


# ---- Spark (campaign tests): one SparkSession per pytest run; a JVM start costs 5-10 s ----------------------
@pytest.fixture(scope="session")
def spark():
    from assigncheck.verify.spark import get_session

    session = get_session("local[2]")
    yield session
    session.stop()
