"""`java:CLASS` targets on the real kafka-clients 3.9.1 jar (from Maven Central) with the real javac: Kafka's own
assignors driven as its consumers drive them, crashes with their Java identity, one-line errors, the build cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assigncheck.formats.reproducer import TargetRef
from assigncheck.generate.seeded import generate
from assigncheck.run.assignor_check import check_assignor
from assigncheck.spec.model import Member, Problem
from assigncheck.spec.reference import REFERENCES
from assigncheck.targets import java_bridge, registry
from assigncheck.targets.command import TargetError
from assigncheck.toolchains import java_build, maven

KAFKA = "java:org.apache.kafka.clients.consumer."
ASSIGNCHECK = [sys.executable, "-m", "assigncheck.ci.cli"]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A build cache of this module's own, so that the tests see javac run (and then not run); Kafka's jars come
    from the shared cache `make` filled."""
    path = tmp_path_factory.mktemp("xdg-cache")
    (path / "assigncheck").mkdir()
    (path / "assigncheck" / "maven").symlink_to(maven.cache_root(), target_is_directory=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(path))
        yield path


def kafka_clients() -> tuple[str, ...]:
    return maven.jars(maven.CLIENTS)


@pytest.fixture(scope="module")
def kafka(cache):
    targets = {}

    def get(name: str):
        if name not in targets:
            targets[name] = registry.load(KAFKA + name)
        return targets[name]

    yield get
    for t in targets.values():
        t.close()


def _cli(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*ASSIGNCHECK, *args], capture_output=True, text=True, timeout=300, env=env, cwd=cwd)


# ---- Kafka's assignors as Kafka documents them ---------------------------------------------------------------

def test_the_bridge_reports_the_class_and_its_protocols(kafka):
    assert kafka("RangeAssignor").ready == {"class": "org.apache.kafka.clients.consumer.RangeAssignor",
                                            "api": "classic", "name": "range", "protocols": ["EAGER"],
                                            "kafka": "3.9.1"}
    assert kafka("CooperativeStickyAssignor").ready["protocols"] == ["EAGER", "COOPERATIVE"]
    assert kafka("CooperativeStickyAssignor").promises.max_rounds == 2
    assert not kafka("CooperativeStickyAssignor").promises.eager


@pytest.mark.parametrize("name", ["range", "roundrobin"])
def test_range_and_round_robin_equal_the_spec_references(kafka, name):
    target = kafka({"range": "RangeAssignor", "roundrobin": "RoundRobinAssignor"}[name])
    checked = 0
    for k in range(60):  # seeded: static members, racks (KIP-881), junk claims, unequal subscriptions
        problem = generate("small", 13, 0, k)
        if not problem.members:
            continue
        assert target.assign(problem) == REFERENCES[name].assign(problem), k
        checked += 1
    assert checked >= 50


def test_eager_sticky_reads_the_previous_assignment_from_its_user_data(kafka):
    # An unusual previous assignment (not what a fresh round would give): kept only if it reached the leader.
    a = Member("a", {"t"}, {"t": [1, 4]}, generation=3)
    b = Member("b", {"t"}, {"t": [0, 5]}, generation=3)
    problem = Problem({"t": 6}, (a, b, Member("c", {"t"})))
    out = kafka("StickyAssignor").assign(problem)
    assert out.as_lists() == {"a": {"t": [1, 4]}, "b": {"t": [0, 5]}, "c": {"t": [2, 3]}}


def test_cooperative_sticky_reads_owned_partitions_and_only_in_the_cooperative_protocol(kafka):
    a = Member("a", {"t"}, {"t": [1, 4]}, generation=3)
    b = Member("b", {"t"}, {"t": [0, 5]}, generation=3)
    members = (a, b, Member("c", {"t"}))
    target = kafka("CooperativeStickyAssignor")
    cooperative = target.assign(Problem({"t": 6}, members, protocol="cooperative"))
    assert cooperative.as_lists() == {"a": {"t": [1, 4]}, "b": {"t": [0, 5]}, "c": {"t": [2, 3]}}
    # An eager member revokes everything before it joins: no ownedPartitions on the wire, nothing to stick to.
    eager = target.assign(Problem({"t": 6}, members, protocol="eager"))
    assert eager == target.assign(Problem({"t": 6}, tuple(Member(m.member_id, m.subscription) for m in members)))


def test_sticky_assignors_balance_and_keep_a_fixpoint_on_equal_subscriptions(kafka):
    for name in ("StickyAssignor", "CooperativeStickyAssignor"):
        target = kafka(name)
        for members, partitions in ((3, 7), (5, 5), (4, 17)):
            problem = Problem({"t0": partitions // 2, "t1": partitions - partitions // 2},
                              tuple(Member(f"m{i}", {"t0", "t1"}) for i in range(members)))
            out, report = check_assignor(target, problem, seed=1)
            assert report.violations == (), (name, members, partitions)
            counts = sorted(out.counts().values())
            assert counts[-1] - counts[0] <= 1


def test_a_crash_is_an_error_with_the_java_exception_and_its_frame(kafka):
    # Kafka's general sticky path on a stale member that narrowed its subscription (examples/kafka-findings).
    problem = Problem({"orders": 1, "payments": 1, "audit": 1}, (
        Member("c0", {"orders", "payments"}, {"orders": [0], "payments": [0]}, generation=2),
        Member("c1", {"audit"}, {"orders": [0], "audit": [0]}, generation=1),
        Member("c2", {"orders", "payments"}),
    ))
    target = kafka("StickyAssignor")
    target.assign(Problem({"t": 1}, (Member("a", {"t"}),)))
    pid = target._proc.pid
    with pytest.raises(TargetError) as failure:
        target.assign(problem)
    assert failure.value.cause.startswith(
        "java.lang.NullPointerException@org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor"
        "$GeneralAssignmentBuilder.performReassignments(AbstractStickyAssignor.java:")
    assert target.assign(Problem({"t": 1}, (Member("a", {"t"}),))).count("a") == 1
    assert target._proc.pid == pid  # an error answer is not a dead process
    _, report = check_assignor(target, problem)
    assert [v.invariant for v in report.violations] == ["H7"]


def test_what_the_protocol_cannot_carry_is_handed_over_and_said(kafka):
    range_ = kafka("RangeAssignor")
    range_.assign(Problem({"t": 2}, (Member("a", {"t"}),), protocol="cooperative"))
    assert "not supported by range; run as eager" in range_.adapted
    cooperative = kafka("CooperativeStickyAssignor")
    cooperative.assign(Problem({"t": 2, "u": 1}, (Member("a", {"t"}, {"u": [0]}, generation=1),),
                               protocol="cooperative"))
    assert "owns u-0 of a topic it does not subscribe to" in cooperative.adapted
    cooperative.assign(Problem({"t": 2}, (Member("a", {"t"}, {"t": [0]}, generation=1),), protocol="cooperative"))
    assert cooperative.adapted == ""


def test_the_reference_carries_classpath_and_config_to_other_processes(cache):
    jars = kafka_clients()
    ref = TargetRef(KAFKA + "RangeAssignor", None, jars, (("some.key", "v"),))
    target = registry.load(ref)
    try:
        assert registry.ref_of(target) == ref
        assert target.argv[-1] == "some.key=v"
    finally:
        target.close()


# ---- one line and exit 2 when it cannot run --------------------------------------------------------------

@pytest.fixture(scope="module")
def problem_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("problem") / "p.json"
    path.write_text(json.dumps({"format": 1, "topics": {"t": 3}, "members": [{"id": "a", "subscription": ["t"]}]}))
    return path


@pytest.mark.parametrize(("args", "expected"), [
    (["--target", "java:org.example.NoSuchAssignor"], "--target: java:org.example.NoSuchAssignor: class "
                                                      "org.example.NoSuchAssignor is not on the classpath"),
    (["--target", "java:org.apache.kafka.common.TopicPartition"], "is not a org.apache.kafka.clients.consumer."
                                                                  "ConsumerPartitionAssignor"),
    (["--target", KAFKA + "RangeAssignor", "--classpath", "/nonexistent/kafka-clients.jar"],
     "--classpath: /nonexistent/kafka-clients.jar does not exist"),
    (["--target", "java:not a class"], "--target: java: needs a fully qualified class name"),
    (["--assignor", "range", "--config", "a=b"], "--config: applies to --target java:CLASS only"),
])
def test_a_target_that_cannot_run_is_one_line_and_exit_2(cache, problem_file, args, expected):
    done = _cli("assign", *args, str(problem_file))
    assert done.returncode == 2, done.stderr
    assert expected in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_no_javac_is_one_line_and_exit_2(tmp_path, problem_file):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "java").symlink_to(java_build.jdk()[0])  # a JRE without its compiler
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env.update(PATH=str(bin_dir), XDG_CACHE_HOME=str(tmp_path / "cache"))
    done = _cli("assign", "--target", KAFKA + "RangeAssignor", str(problem_file), env=env)
    assert done.returncode == 2
    assert done.stderr.strip() == ("assigncheck: error: --target: no javac found. java: targets need a JDK 11+ "
                                   "(java and javac on PATH, or JAVA_HOME): install openjdk-17-jdk-headless")


def test_assign_prints_kafkas_assignment(cache, problem_file):
    done = _cli("assign", "--target", KAFKA + "RoundRobinAssignor", "--classpath",
                os.pathsep.join(kafka_clients()), str(problem_file))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"format": 1, "assignment": {"a": {"t": [0, 1, 2]}}}


# ---- the build cache -----------------------------------------------------------------------------------------

_BUILD = ("from assigncheck.targets import java_bridge as b; "
          "print(b.compiled(b.kafka_classpath((), 'org.apache.kafka.X')))")
_CLASS = Path("io", "assigncheck", "bridge", "AssigncheckBridge.class")


def _with_jars(xdg: Path) -> str:
    """An empty cache directory but for Kafka's jars (linked to the shared ones)."""
    (xdg / "assigncheck").mkdir(parents=True)
    (xdg / "assigncheck" / "maven").symlink_to(maven.cache_root(), target_is_directory=True)
    return str(xdg)


def test_two_processes_building_at_once_share_one_cache_entry(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": _with_jars(tmp_path)}
    procs = [subprocess.Popen([sys.executable, "-c", _BUILD], env=env, stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=300)[0].strip() for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    assert outs[0] == outs[1]
    root = tmp_path / "assigncheck" / "java"
    assert [p.name for p in root.iterdir()] == [Path(outs[0]).name]  # no half-built directory left behind
    assert (Path(outs[0]) / _CLASS).is_file()


def test_the_cache_is_reused_and_keyed_by_the_classpath_content(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", _with_jars(tmp_path))
    jars = java_bridge.kafka_classpath((), "org.apache.kafka.X")
    first = java_build.compiled(java_bridge.CLASSIC_SOURCES, jars)
    stamp = (first / _CLASS).stat().st_mtime_ns
    assert java_build.compiled(java_bridge.CLASSIC_SOURCES, jars) == first
    assert (first / _CLASS).stat().st_mtime_ns == stamp  # not compiled again
    extra = tmp_path / "classes"
    extra.mkdir()
    (extra / "marker.txt").write_text("1")
    other = java_build.compiled(java_bridge.CLASSIC_SOURCES, (*jars, str(extra)))
    assert other != first
    (extra / "marker.txt").write_text("2")  # new content on the classpath: a new build
    assert java_build.compiled(java_bridge.CLASSIC_SOURCES, (*jars, str(extra))) not in (first, other)


# ---- replay in a fresh process -------------------------------------------------------------------------------

def test_replay_of_a_java_reproducer_in_a_fresh_process(cache, tmp_path):
    from assigncheck.formats.documents import problem_to_json
    from assigncheck.formats.reproducer import Record, save

    problem = Problem({"orders": 3}, (Member("a", {"orders"}, {"orders": [3]}, generation=5),
                                      Member("b", {"orders"}, {"orders": [0, 1]}, generation=5)))
    ref = TargetRef(KAFKA + "StickyAssignor", None, kafka_clients(), (("unused.key", "1"),))
    path = save(problem_to_json(problem), Record(ref, "H7", stage="test"), tmp_path / "r.json", "assignor: sticky")
    done = _cli("replay", str(path), cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "IllegalStateException: No more unfilled consumers" in done.stdout
    assert done.stdout.strip().endswith(f"reproduces: H7 on {KAFKA}StickyAssignor")


# ---- the pytest plugin ---------------------------------------------------------------------------------------

def test_the_pytest_plugin_checks_a_java_target_with_its_classpath(cache, tmp_path):
    from assigncheck.ci.pytest_plugin import AssignCheck
    from assigncheck.spec.errors import InputError

    check = AssignCheck("quick", ["proofs"], tmp_path)
    result = check.check(KAFKA + "RangeAssignor", classpath=os.pathsep.join(kafka_clients()))
    assert result.exit_code == 0
    with pytest.raises(InputError, match="classpath"):
        check.check(registry.get("range"), classpath="x.jar")


def test_our_rack_aware_assignors_mismatch_no_more_than_kafkas(cache):
    """KIP-881 side by side (benchmarks/bench_racks_kafka.py): where Kafka's output is as balanced as ours, ours
    leaves no more rack mismatches; range is Kafka's range, racks included."""
    from benchmarks.bench_racks_kafka import compare

    cases = compare(8)
    assert all(c.ok for c in cases), [c for c in cases if not c.ok]
    assert sum(c.comparable and c.kafka > 0 for c in cases) >= 20  # not vacuous: Kafka mismatches somewhere
    assert sum(c.ours < c.kafka for c in cases) >= 3  # and ours is strictly better somewhere
    ranged = [c for c in cases if c.pair.startswith("range")]
    assert ranged and all(c.ours == c.kafka for c in ranged)
