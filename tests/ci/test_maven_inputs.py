"""`--maven` and what comes back from mvn: at most 32 coordinates, a version range kept whole and refused with
`LATEST` and `RELEASE` (a cached set, and a finding, must not change under a new release), a value that starts with
'-' one line naming the flag (not argparse's usage), and mvn's error kept to its end: "No space left on device" is
not cut off. Each one line, exit 2."""

from __future__ import annotations

import os
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest

from assigncheck.ci.cli import main
from assigncheck.formats import coordinates
from assigncheck.spec.errors import InputError, TargetUnavailable
from assigncheck.toolchains import maven
from tests.ci.test_inputs import one_error

TARGET = ["assign", "--target", "java:org.apache.kafka.coordinator.group.assignor.UniformAssignor"]


@pytest.fixture
def problem(tmp_path) -> str:
    from tests.ci.test_inputs import PROBLEM

    path = tmp_path / "p.json"
    path.write_text(__import__("json").dumps(PROBLEM))
    return str(path)


def test_at_most_32_coordinates(problem, capsys):
    many = ",".join(f"com.example:a{i}:1" for i in range(3000))
    err = one_error(capsys, 2, [*TARGET, "--maven", many, problem], "--maven: names 3,000 coordinates; at most 32")
    assert len(err) < 300


def test_a_version_range_is_one_coordinate_and_not_a_pin(capsys, problem):
    assert coordinates.split("g:a:[1.0,2.0),g:b:(,1.5],g:c:3") == ["g:a:[1.0,2.0)", "g:b:(,1.5]", "g:c:3"]
    one_error(capsys, 2, [*TARGET, "--maven", "org.apache.kafka:kafka-clients:[3.0,4.0)", problem],
              "'org.apache.kafka:kafka-clients:[3.0,4.0)': [3.0,4.0) is not one version")


@pytest.mark.parametrize("version", ["LATEST", "RELEASE"])
def test_latest_and_release_are_refused(version, capsys, problem):
    one_error(capsys, 2, [*TARGET, "--maven", f"org.apache.kafka:kafka-clients:{version}", problem],
              f"--maven: 'org.apache.kafka:kafka-clients:{version}': {version} is not one version")


def test_a_value_that_looks_like_a_flag_is_one_line(capsys, problem):
    one_error(capsys, 2, [*TARGET, "--maven", "-Dx=1:a:1", problem], "--maven: needs a value", "--maven=VALUE")
    one_error(capsys, 2, [*TARGET, "--maven=-Dx=1:a:1", problem], "'-Dx=1:a:1' is not group:artifact:version")


def test_mvns_error_keeps_its_cause_on_a_full_disk(tmp_path, monkeypatch):
    """mvn copying the jars into a cache on a full disk (a 1 MiB tmpfs where the runner allows a mount; elsewhere
    a stand-in for mvn printing the line mvn prints there, said in a warning): the cause is in the one line."""
    cache = tmp_path / "cache"
    cache.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(cache)], capture_output=True,
                             text=True).returncode == 0
    if not mounted:
        warnings.warn("no tmpfs here: mvn's error on a full disk is played by a stand-in", stacklevel=1)
        _stand_in_mvn(tmp_path, monkeypatch)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    try:
        with pytest.raises(TargetUnavailable) as e:
            maven.jars(("org.apache.kafka:kafka-clients:3.9.1",))
    finally:
        if mounted:
            subprocess.run(["umount", str(cache)], check=True)
    assert e.value.path == "--maven" and "No space left on device" in e.value.message, e.value.message


def _stand_in_mvn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = "/" + "/".join(["a-long-directory-name"] * 20) + "/kafka-clients-3.9.1.jar"
    fake = tmp_path / "bin" / "mvn"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\necho '[ERROR] Failed to execute goal org.apache.maven.plugins:maven-dependency-"
                    f"plugin:3.7.0:copy-dependencies (default-cli) on project classpath: Error copying artifact from "
                    f"{path} to {path}: No space left on device'\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    assert shutil.which("mvn") == str(fake)


def test_the_file_s_coordinates_get_the_same_checks():
    from assigncheck.formats.reproducer import TargetRef

    with pytest.raises(InputError, match=r"finding.target.maven: names 40 coordinates"):
        TargetRef.from_json({"spec": "java:X", "maven": [f"g:a{i}:1" for i in range(40)]}, "finding.target")
    with pytest.raises(InputError, match=r"finding.target.maven: 'g:a:RELEASE'"):
        TargetRef.from_json({"spec": "java:X", "maven": ["g:a:RELEASE"]}, "finding.target")


def test_main_never_prints_the_usage_for_it(capsys, problem):
    assert main([*TARGET, "--maven", "-Dx=1:a:1", problem]) == 2
    assert "usage:" not in capsys.readouterr().err
