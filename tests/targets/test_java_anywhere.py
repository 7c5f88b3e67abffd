"""A `java:` target's reproducer replays from any directory (issue 47): `--classpath` takes `dir/*` as `java -cp`
does, the reproducer records each entry absolute with its content's digest, and `assigncheck replay` finds it from
elsewhere; what the file records and cannot be found is named by the file's field, not by a flag of replay's.

The target is a tiny class compiled here against the real kafka-clients 3.9.1 (from the cache `make` filled): an
assignor that hands every partition to every member (H4)."""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path

import pytest

from assigncheck.ci.cli import main
from assigncheck.ci.target_flags import refs_from_args
from assigncheck.findings.replay import check
from assigncheck.findings.reproducers import Reproducers
from assigncheck.spec.errors import InputError
from assigncheck.spec.model import Member, Problem
from assigncheck.targets.registry import load, probe
from assigncheck.toolchains import java_build, maven

CLASS = "tiny.EveryoneGetsAll"
SOURCE = """package tiny;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.internals.AbstractPartitionAssignor;
import org.apache.kafka.common.TopicPartition;

public class EveryoneGetsAll extends AbstractPartitionAssignor {
    @Override
    public String name() { return "everyone-gets-all"; }

    @Override
    public Map<String, List<TopicPartition>> assign(Map<String, Integer> partitionsPerTopic,
                                                    Map<String, Subscription> subscriptions) {
        Map<String, List<TopicPartition>> out = new HashMap<>();
        for (Map.Entry<String, Subscription> e : subscriptions.entrySet()) {
            List<TopicPartition> mine = new ArrayList<>();
            for (String topic : e.getValue().topics()) {
                int count = partitionsPerTopic.getOrDefault(topic, 0);
                for (int i = 0; i < count; i++) mine.add(new TopicPartition(topic, i));
            }
            out.put(e.getKey(), mine);
        }
        return out;
    }
}
"""
PROBLEM = Problem({"t": 1}, (Member("a", {"t"}), Member("b", {"t"})))


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A project with the class in a jar under lib/, as a user's build leaves it."""
    root = tmp_path_factory.mktemp("project")
    (root / "src" / "tiny").mkdir(parents=True)
    (root / "src" / "tiny" / "EveryoneGetsAll.java").write_text(SOURCE)
    _, javac = java_build.jdk()
    clients = maven.jars(maven.CLIENTS)
    subprocess.run([javac, "-nowarn", "-d", str(root / "classes"), "-cp", ":".join(clients),
                    str(root / "src" / "tiny" / "EveryoneGetsAll.java")], check=True, capture_output=True)
    (root / "lib").mkdir()
    _jar(root / "lib" / "tiny.jar", root / "classes")
    return root


def _jar(path: Path, classes: Path, extra: str = "") -> None:
    with zipfile.ZipFile(path, "w") as jar:
        for f in sorted(classes.rglob("*.class")):
            jar.write(f, f.relative_to(classes).as_posix())
        if extra:
            jar.writestr("README", extra)


@pytest.fixture(scope="module")
def reproducer(project: Path) -> Path:
    """The finding's reproducer, written from the project's directory with `--classpath 'lib/*'`."""
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(project)
        (ref,) = refs_from_args(f"java:{CLASS}", None, "lib/*")
        target = probe(load(ref))
        try:
            (h4,) = [v for v in check(target, PROBLEM, 0, 10.0) if v.invariant == "H4"]
            return Reproducers.of(project / "reports", "properties", target, 10.0).write(PROBLEM, h4, seed=0)
        finally:
            target.close()


def test_the_classpath_flag_takes_a_directory_of_jars_as_java_does(project, monkeypatch):
    monkeypatch.chdir(project)
    (ref,) = refs_from_args(f"java:{CLASS}", None, "lib/*")
    assert ref.classpath == (str(project / "lib" / "tiny.jar"),) and ref.digests[0].startswith("sha256:")
    with pytest.raises(InputError, match=r"--classpath: empty/\*: empty holds no \.jar file"):
        (project / "empty").mkdir(exist_ok=True)
        refs_from_args(f"java:{CLASS}", None, "empty/*")


def test_the_reproducer_records_the_classpath_absolute_with_its_digest(reproducer, project):
    target = json.loads(reproducer.read_text())["finding"]["target"]
    assert target["classpath"] == [str(project / "lib" / "tiny.jar")]
    assert target["digests"] == [refs_from_args(f"java:{CLASS}", None, str(project / "lib" / "tiny.jar"))[0]
                                 .digests[0]]


def test_it_replays_from_another_directory(reproducer, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["replay", str(reproducer)]) == 1  # written on this machine: no --trust
    out = capsys.readouterr()
    assert f"reproduces: H4 on java:{CLASS}" in out.out and "changed since" not in out.err


def test_a_rebuilt_jar_is_noted(reproducer, project, tmp_path, monkeypatch, capsys):
    jar = project / "lib" / "tiny.jar"
    before = jar.read_bytes()
    try:
        _jar(jar, project / "classes", extra="rebuilt")
        monkeypatch.chdir(tmp_path)
        assert main(["replay", str(reproducer)]) == 1
        assert f"{jar} changed since the finding was recorded" in capsys.readouterr().err
    finally:
        jar.write_bytes(before)


def test_a_relative_entry_is_found_from_the_file_and_a_missing_one_named_by_its_field(project, reproducer, tmp_path,
                                                                                       monkeypatch, capsys):
    doc = json.loads(reproducer.read_text())
    doc["finding"]["target"] = {"spec": f"java:{CLASS}", "classpath": ["lib/tiny.jar"]}
    moved = project / "shared" / "r.json"  # lib/ is one directory above the file
    moved.parent.mkdir(exist_ok=True)
    moved.write_text(json.dumps(doc))
    monkeypatch.chdir(tmp_path)
    assert main(["replay", str(moved), "--trust"]) == 1
    capsys.readouterr()
    doc["finding"]["target"]["classpath"] = ["lib/gone.jar"]
    moved.write_text(json.dumps(doc))
    assert main(["replay", str(moved), "--trust"]) == 2
    err = capsys.readouterr().err
    assert f"{moved}: finding.target.classpath: lib/gone.jar does not exist" in err and "--classpath:" not in err
