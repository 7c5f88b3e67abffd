"""The Java drivers' Maven build (src/assigncheck/drivers/java/pom.xml): every source compiles with every javac lint
as an error, against the Kafka version the project pins, offline from the local repository `make` filled."""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

from assigncheck.drivers import BRIDGE_MAIN, JAVA, LIVE_MAIN
from assigncheck.toolchains import maven

POM = {"m": "http://maven.apache.org/POM/4.0.0"}
FETCH = "make .venv/.java-drivers fetches what the build needs from Maven Central"


def _mvn(pom: Path, build: Path) -> subprocess.CompletedProcess[str]:
    # -o: the build reads the local repository only; a missing artifact fails here, not a download
    return subprocess.run(["mvn", "-B", "-o", "-f", str(pom), "compile", f"-Dassigncheck.build={build}"],
                          capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)


def test_every_source_compiles_with_warnings_as_errors(tmp_path):
    done = _mvn(JAVA / "pom.xml", tmp_path)
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n({FETCH})"
    classes = tmp_path / "classes"
    sources = sorted(JAVA.glob("src/main/java/**/*.java"))
    assert sources
    for source in sources:
        compiled = classes / source.relative_to(JAVA / "src" / "main" / "java").with_suffix(".class")
        assert compiled.is_file(), compiled
    for main in (BRIDGE_MAIN, LIVE_MAIN):  # the classes assigncheck starts, where it starts them
        assert (classes / (main.replace(".", "/") + ".class")).is_file(), main


def test_a_warning_fails_the_build(tmp_path):
    project = tmp_path / "java"
    shutil.copytree(JAVA, project, ignore=shutil.ignore_patterns("target"))
    (project / "src/main/java/io/assigncheck/bridge/Raw.java").write_text(
        "package io.assigncheck.bridge;\n\nimport java.util.ArrayList;\nimport java.util.List;\n\n"
        "final class Raw {\n    static List<String> names() {\n        List raw = new ArrayList();\n"
        "        return raw;\n    }\n}\n")
    done = _mvn(project / "pom.xml", tmp_path / "build")
    assert done.returncode != 0
    assert "Raw.java" in done.stdout and "warnings found and -Werror specified" in done.stdout, done.stdout[-3000:]


def test_the_build_compiles_against_the_pinned_kafka():
    """The POM's Kafka is the version assigncheck pins for the group coordinator and Streams (maven.py)."""
    pom = ET.parse(JAVA / "pom.xml").getroot()
    version = pom.find("m:properties/m:kafka.version", POM)
    assert version is not None
    pinned = {c.rsplit(":", 1)[1] for c in (*maven.COORDINATOR, *maven.STREAMS)}
    assert pinned == {version.text}
    artifacts = {d.findtext("m:artifactId", namespaces=POM) for d in pom.iterfind("m:dependencies/m:dependency", POM)}
    assert artifacts == {"kafka-clients", "kafka-group-coordinator-api", "kafka-streams"}
