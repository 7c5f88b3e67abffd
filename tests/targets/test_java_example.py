"""examples/java-assignor as a Java user runs it: Maven builds the project, then the gate passes the correct
assignor and fails its planted-bug twin with a reproducer that replays from the file alone.

The gate runs in-process with the `steady` quick profile (600 examples, time budgets out of the way) and the
properties stage only, so each verdict is the same on an idle or a busy machine."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from assigncheck.ci.cli import main
from assigncheck.toolchains import maven
from tests.paths import ROOT

EXAMPLE = ROOT / "examples" / "java-assignor"
PACKAGE = "com.example.assignor."
POM = {"m": "http://maven.apache.org/POM/4.0.0"}


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A copy of the example, built by `mvn compile` (offline: `make` fetched the plugins and kafka-clients)."""
    copy = tmp_path_factory.mktemp("java-assignor") / "java-assignor"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("target"))
    done = subprocess.run(["mvn", "-q", "-B", "-o", "compile"], cwd=copy, capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return copy


def _gate(project: Path, name: str, report: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.chdir(project)  # the README's command, run where a user runs it
    return main(["gate", "--profile", "quick", "--stages", "properties", "--target", f"java:{PACKAGE}{name}",
                 "--classpath", "target/classes", "--promises", "balance=per-topic", "--report-dir", str(report)])


def test_the_correct_assignor_passes(project, tmp_path, steady, monkeypatch):
    assert _gate(project, "TopicRoundRobinAssignor", tmp_path, monkeypatch) == 0
    doc = json.loads((tmp_path / "report.json").read_text())
    assert doc["ok"] and doc["stages"][0]["work"]["done"] == steady.examples


def test_the_planted_bug_fails_with_a_reproducer_that_replays(project, tmp_path, steady, monkeypatch):
    assert _gate(project, "PlantedBugAssignor", tmp_path, monkeypatch) == 1
    findings = json.loads((tmp_path / "report.json").read_text())["stages"][0]["findings"]
    assert {f["invariant"] for f in findings} == {"H3"}  # a partition of a topic its member does not subscribe to
    assert all(f["status"] == "confirmed" for f in findings)
    reproducer = findings[0]["reproducer"]
    replay = subprocess.run([sys.executable, "-m", "assigncheck.ci", "replay", reproducer], cwd=project,
                            capture_output=True, text=True, timeout=300)
    assert replay.returncode == 1, replay.stdout + replay.stderr  # the file alone: no --target
    assert f"reproduces: H3 on java:{PACKAGE}PlantedBugAssignor" in replay.stdout


def test_the_example_compiles_against_the_kafka_clients_the_bridge_runs_it_with():
    """`--classpath target/classes` holds no Kafka API, so the bridge adds the pinned kafka-clients (maven.py)."""
    pom = ET.parse(EXAMPLE / "pom.xml").getroot()
    (clients,) = [d for d in pom.iterfind("m:dependencies/m:dependency", POM)
                  if d.findtext("m:artifactId", namespaces=POM) == "kafka-clients"]
    assert f"org.apache.kafka:kafka-clients:{clients.findtext('m:version', namespaces=POM)}" == maven.CLIENTS[0]
