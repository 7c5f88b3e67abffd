"""Shared fixtures of the test suite."""

from __future__ import annotations

import pytest


# ---- Spark (campaign tests): one SparkSession per pytest run; a JVM start costs 5-10 s ----------------------
@pytest.fixture(scope="session")
def spark():
    from assigncheck.spark.session import get_session

    session = get_session("local[2]")
    yield session
    session.stop()


# ---- the gate in tests: verdicts that do not depend on how busy the machine is -----------------------------
@pytest.fixture
def steady(monkeypatch):
    """The quick profile with its work capped low and its wall-clock budgets out of the way: each stage does
    its (small) nominal work whatever the load, so a test's verdict is the same on an idle or a busy machine."""
    from dataclasses import replace

    from assigncheck.ci.context import PROFILES

    quick = replace(PROFILES["quick"], examples=600, properties_s=900, proofs_s=120, exhaustive_problems=300,
                    fuzz_s=120, fuzz_execs=600, campaign_instances=200, campaign_s=900)
    monkeypatch.setitem(PROFILES, "quick", quick)
    return quick


# ---- the JavaScript package (js/) and its example, installed by `make js` (npm ci, KafkaJS pinned) -------------
@pytest.fixture(scope="session")
def js_installed():
    """`make js` once per run: npm ci in js/ and examples/kafkajs-assigner/ where their lockfiles changed. Where
    Node.js or npm is missing the test fails with make's one line, never skips."""
    import subprocess

    from tests.paths import ROOT

    done = subprocess.run(["make", "-s", "js"], cwd=ROOT, capture_output=True, text=True)
    said = [line for line in (done.stdout + done.stderr).splitlines() if line and not line.startswith("make")]
    assert done.returncode == 0, said[0] if said else "make js failed"
    return ROOT / "js"
