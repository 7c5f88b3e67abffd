"""The cache heals: Kafka's jars and the compiled bridges are checked against the sizes and digests recorded when
they were fetched or compiled, and fetched or compiled again when they do not match (a truncated
kafka-clients-3.9.1.jar, a corrupted bridge class), with one line naming the cache entry; the `java:` target then
runs, and no error blames `--classpath` or `--target` for the cache's fault.

Real parts: mvn resolves the pinned set again from the local repository `make` filled, javac compiles the bridge."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assigncheck.targets import java_bridge
from assigncheck.toolchains import digests, java_build, maven
from tests.paths import ROOT

RANGE = "java:org.apache.kafka.clients.consumer.RangeAssignor"
PROBLEM = {"format": 1, "topics": {"t": 2}, "members": [{"id": "a", "subscription": ["t"]},
                                                       {"id": "b", "subscription": ["t"]}]}


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "assigncheck"


def _clients_jar(jars: tuple[str, ...]) -> Path:
    return next(Path(j) for j in jars if Path(j).name.startswith("kafka-clients-"))


def test_a_truncated_jar_is_fetched_again(cache, capsys):
    jar = _clients_jar(maven.jars(maven.CLIENTS))
    size = jar.stat().st_size
    with open(jar, "r+b") as f:
        f.truncate(size // 2)
    again = maven.jars(maven.CLIENTS)
    assert _clients_jar(again).stat().st_size == size and digests.damaged(jar.parent) is None
    err = capsys.readouterr().err
    assert f"the jar cache {jar.parent} does not match its manifest ({jar.name} is {size // 2:,} bytes" in err


def test_a_jar_changed_in_place_is_fetched_again(cache):
    jar = _clients_jar(maven.jars(maven.CLIENTS))
    data = bytearray(jar.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, other bytes
    jar.write_bytes(bytes(data))
    os.utime(jar, ns=(jar.stat().st_atime_ns, jar.stat().st_mtime_ns + 1_000_000_000))
    assert digests.damaged(jar.parent) == f"{jar.name} changed (sha256)"
    maven.jars(maven.CLIENTS)
    assert digests.damaged(jar.parent) is None


def test_a_corrupted_bridge_class_is_compiled_again(cache, capsys):
    jars = maven.jars(maven.CLIENTS)
    classes = java_bridge.compiled(jars)
    bridge = classes / "io" / "assigncheck" / "bridge" / "AssigncheckBridge.class"
    bridge.write_bytes(b"\xca\xfe\xba\xbe garbage")
    assert java_bridge.compiled(jars) == classes and digests.damaged(classes) is None
    assert bridge.read_bytes()[:4] == b"\xca\xfe\xba\xbe" and len(bridge.read_bytes()) > 1000
    assert f"the Java build cache {classes} does not match its manifest" in capsys.readouterr().err


def test_a_java_target_runs_over_a_damaged_cache_and_nothing_blames_the_flags(cache, tmp_path):
    jars = maven.jars(maven.CLIENTS)
    classes = java_bridge.compiled(jars)
    jar = _clients_jar(jars)
    with open(jar, "r+b") as f:
        f.truncate(1000)
    (classes / "io" / "assigncheck" / "bridge" / "AssigncheckBridge.class").write_bytes(b"junk")
    problem = tmp_path / "p.json"
    problem.write_text(json.dumps(PROBLEM))
    done = subprocess.run([sys.executable, "-m", "assigncheck.ci", "assign", "--target", RANGE, str(problem)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["assignment"] == {"a": {"t": [0]}, "b": {"t": [1]}}
    assert "--classpath" not in done.stderr and "--target" not in done.stderr
    assert str(jar.parent) in done.stderr and str(classes) in done.stderr  # each entry named as it heals
    assert java_build.compiled(java_bridge.sources(jars), jars) == classes
