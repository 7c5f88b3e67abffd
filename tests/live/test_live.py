"""Live groups on a real broker: Kafka 4.4.0 in KRaft mode from the fetched jars, real clients as member processes.

One broker serves the module. Each client library (and group protocol) runs a short schedule (two members join,
a topic gains partitions, one member crashes) and every check must pass on it, with the group's stable assignments
as Kafka's range (classic) or the broker's uniform assignor (KIP-848) makes them. The checks themselves are held
to failing inputs on timelines and stable points made by hand.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assigncheck.formats.reproducer import record_of
from assigncheck.live import outcome_check, session
from assigncheck.live.broker import Broker
from assigncheck.live.run import Client, StablePoint, owned
from assigncheck.live.schedule import Schedule, Step, generate
from assigncheck.live.schedule import check as check_steps
from assigncheck.spec.errors import InputError
from tests.paths import ROOT

FINDINGS = ROOT / "examples" / "live-findings"
SCHEDULE = Schedule({"t0": 3, "t1": 2}, (
    Step("join", "m0", ("t0", "t1")), Step("join", "m1", ("t0",)),
    Step("partitions", topics=("t1",), count=3), Step("crash", "m0")))


@pytest.fixture(scope="module")
def broker():
    with Broker() as b:
        yield b


# The default run: Kafka's Java consumer (classic), 15-20 s; every other client and protocol pair, librdkafka's
# KIP-848 consumer among them, behind -m slow (kafka-python's followers miss rebalances at random under load: its
# finding).
@pytest.mark.parametrize("client, protocol, assignor", [
    ("java", "classic", "org.apache.kafka.clients.consumer.RangeAssignor"),
    pytest.param("java", "consumer", "uniform", marks=pytest.mark.slow),
    pytest.param("confluent-kafka", "classic", "range", marks=pytest.mark.slow),
    pytest.param("confluent-kafka", "consumer", "uniform", marks=pytest.mark.slow),
    pytest.param("kafka-python", "classic", "range", marks=pytest.mark.slow),
    pytest.param("aiokafka", "classic", "range", marks=pytest.mark.slow),
    pytest.param("franz-go", "classic", "range", marks=pytest.mark.slow),  # held to franz-go's RangeBalancer
    pytest.param("franz-go", "classic", "cooperative-sticky", marks=pytest.mark.slow),
    pytest.param("franz-go", "consumer", "uniform", marks=pytest.mark.slow),
])
def test_each_client_passes_every_check_on_a_schedule(broker, client, protocol, assignor):
    # kafka-python's followers can miss a rebalance another member starts (its finding, below): it gets the
    # schedule without the step whose rebalance a follower must join.
    without_growth = Schedule(SCHEDULE.topics, SCHEDULE.steps[:2] + SCHEDULE.steps[3:])
    schedule = SCHEDULE if client != "kafka-python" else without_growth
    spec = session.LiveSpec(Client(client, protocol, assignor), schedule, converge_s=40)
    result = session.check_live(spec, broker.bootstrap)
    assert result.violations == []
    if protocol == "classic" and assignor.lower().endswith(("range", "rangeassignor")):
        assert outcome_check.conformance_target(spec.client) is not None  # live.conformance was checked
    # A stable point after the joins, the new partitions and the crash, each seen by broker and members alike.
    assert [p.step for p in result.outcome.points] == list(range(1, len(schedule.steps)))
    last = result.outcome.points[-1]
    assert set(last.assignment) == {"m1"} and last.assignment["m1"] == {("t0", 0), ("t0", 1), ("t0", 2)}
    first = result.outcome.points[0].assignment  # range: t0 split 2/1 by member id order, t1 all m0's
    assert {tp for tp in first["m0"] if tp[0] == "t1"} == {("t1", 0), ("t1", 1)}
    assert len([tp for tp in first["m0"] if tp[0] == "t0"]) + len(first["m1"]) == 3
    if schedule is SCHEDULE:  # t1 grew to 3 partitions, all m0's (its only subscriber)
        grown = result.outcome.points[1].assignment
        assert {tp for tp in grown["m0"] if tp[0] == "t1"} == {("t1", 0), ("t1", 1), ("t1", 2)}
    # Every member logged its callbacks with its generation or epoch (librdkafka exposes none).
    m0 = result.outcome.timelines["m0"]
    assert "started" in [e["event"] for e in m0] and m0[-1]["event"] == "killed"
    if client != "confluent-kafka":
        assert all(isinstance(e["generation"], int) and e["generation"] > 0 for e in m0 if e["event"] == "assigned")


@pytest.mark.slow
@pytest.mark.parametrize("client, protocol, assignor", [
    ("confluent-kafka", "classic", "range"), ("confluent-kafka", "consumer", "uniform"),
    ("java", "consumer", "uniform"), ("java", "classic", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"),
])
def test_a_static_member_restarts_and_a_slow_member_rebalances_cleanly(broker, client, protocol, assignor):
    schedule = Schedule({"t0": 4}, (
        Step("join", "m0", ("t0",), static=True), Step("join", "m1", ("t0",)), Step("crash", "m0"),
        Step("restart", "m0"), Step("slow", "m1", seconds=1.5), Step("leave", "m0")))
    result = session.check_live(session.LiveSpec(Client(client, protocol, assignor), schedule, converge_s=40),
                                broker.bootstrap)
    assert result.violations == [] and [p.step for p in result.outcome.points] == [1, 2, 3, 4, 5]
    assert len(result.outcome.points[2].assignment["m0"]) == 2  # back with its instance id, and its share


def test_h6_on_timelines_finds_a_partition_owned_by_two_members_at_once():
    a = [{"t": 1.0, "event": "assigned", "partitions": [["t", 0], ["t", 1]]},
         {"t": 5.0, "event": "revoked", "partitions": [["t", 0]]}]
    b = [{"t": 4.0, "event": "assigned", "partitions": [["t", 0]]}, {"t": 9.0, "event": "closed", "partitions": []}]
    (v,) = outcome_check.overlaps({"a": a, "b": b})
    assert v.invariant == "H6" and v.partitions == (("t", 0),) and set(v.members) == {"a", "b"}
    assert "1.000 s" in v.message
    b[0]["t"] = 5.0  # handed over as the revocation returns: no overlap
    assert outcome_check.overlaps({"a": a, "b": b}) == []
    killed = [{"t": 1.0, "event": "assigned", "partitions": [["t", 0]]}, {"t": 3.0, "event": "killed"}]
    assert outcome_check.overlaps({"a": killed, "b": b}) == []  # a SIGKILLed member owns nothing after its death
    assert owned(a) == {("t", 1)} and owned(killed) == frozenset()


def test_stable_points_are_held_to_the_spec_and_to_the_assignor():
    first = StablePoint(0, {"a": "a-1", "b": "b-1"}, {"a": ("t",), "b": ("t",)}, {"a": None, "b": None},
                        {"a": frozenset({("t", 0), ("t", 1)}), "b": frozenset({("t", 2), ("t", 3)})}, {"t": 4}, 1.0)
    outcome = session.Outcome(points=[first])
    client = Client("confluent-kafka", "classic", "range")
    conform = outcome_check.registry.load_target("range")
    promises = outcome_check.promises_of(client, None)
    assert outcome_check.check(outcome, client, promises, 10.0, conform) == []
    skewed = StablePoint(1, first.member_ids, first.subscriptions, first.instance_ids,
                         {"a": frozenset({("t", i) for i in range(4)}), "b": frozenset()}, {"t": 4}, 1.0)
    check = outcome_check.check
    found = {v.invariant for _, v in check(session.Outcome(points=[first, skewed]), client, promises, 10.0, conform)}
    assert found == {"balance.per-topic", "live.conformance"}
    lost = StablePoint(1, first.member_ids, first.subscriptions, first.instance_ids,
                       {"a": first.assignment["a"], "b": frozenset({("t", 2)})}, {"t": 4}, 1.0)
    found = {v.invariant for _, v in check(session.Outcome(points=[lost]), client, promises, 10.0, conform)}
    assert found == {"H5", "live.conformance"}
    # Stickiness against the previous stable point, when promised: b's partitions moved for nothing.
    swapped = StablePoint(1, first.member_ids, first.subscriptions, first.instance_ids,
                          {"a": first.assignment["b"], "b": first.assignment["a"]}, {"t": 4}, 1.0)
    sticky = outcome_check.promises_of(client, "balance=perfect,stickiness=max_retained")
    found = {v.invariant for _, v in check(session.Outcome(points=[first, swapped]), client, sticky, 10.0)}
    assert found == {"stickiness.max_retained"}
    unsettled = session.Outcome(points=[first], unsettled=(3, 12.0))
    assert [v.invariant for _, v in outcome_check.check(unsettled, client, promises, 10.0)] == ["live.convergence"]


def test_live_reproducers_take_the_one_reproducer_path_and_carry_their_schedule(tmp_path):
    import jsonschema

    from assigncheck.formats.schemas import schema
    from assigncheck.spec.violations import Violation

    first = StablePoint(0, {"a": "a-1", "b": "b-1"}, {"a": ("t0",), "b": ("t0",)}, {"a": None, "b": None},
                        {"a": frozenset({("t0", 0), ("t0", 1)}), "b": frozenset({("t0", 2)})}, {"t0": 3}, 1.0)
    spec = session.LiveSpec(Client("confluent-kafka", "classic", "range"), SCHEDULE, seed=5, converge_s=15.0)
    found = [(2, Violation("H5", "1 partition(s) of subscribed topics are unassigned: t0-2")),
             (2, Violation("H5", "the same invariant again: one file")),
             (None, Violation("live.convergence", "no stable point 16 s after step 3 (at most 15 s declared)"))]
    result = session.LiveResult(spec, session.Outcome(points=[first]), found)
    paths = session.write_reproducers(result, tmp_path)
    assert [p.name.rsplit("-", 1)[0] for p in paths] == ["live-confluent-kafka-classic-H5",
                                                        "live-confluent-kafka-classic-live.convergence"]
    assert sorted(tmp_path.iterdir()) == sorted(paths)
    for path, (step, v) in zip(paths, session.distinct(result)):
        doc = json.loads(path.read_text(encoding="utf-8"))
        jsonschema.validate(doc, schema("reproducer"))
        record = record_of(doc)
        assert record.stage == "live" and record.invariant == v.invariant and record.message == v.message
        assert record.target.spec == "range" and record.budget_s is None and record.hang_s is None
        assert record.signature == f"{v.invariant}|confluent-kafka|classic" and record.extra["step"] == step
        assert session.LiveSpec.from_json(record.extra["live"]) == spec  # what replay runs again
        assert v.message in doc["note"] and "seed 5" in doc["note"]
    assert session.write_reproducers(result, tmp_path) == paths  # one name per finding, run after run


def test_a_seeded_schedule_is_the_same_every_time_and_round_trips():
    one, two = generate(7, 6), generate(7, 6)
    assert one == two and one != generate(8, 6)
    assert Schedule.from_json(json.loads(json.dumps(one.to_json()))) == one
    check_steps(one.steps, one.topics)
    for steps, field in [((Step("crash", "m9"),), "schedule.steps[0].member"),
                         ((Step("join", "m0", ("t0",)), Step("restart", "m0")), "schedule.steps[1].member"),
                         ((Step("join", "m0", ("t9",)),), "schedule.steps[0].topics"),
                         ((Step("partitions", topics=("t0",), count=1),), "schedule.steps[0].count")]:
        with pytest.raises(InputError) as e:
            check_steps(steps, {"t0": 2})
        assert e.value.path == field


def test_the_broker_is_gone_with_its_storage_after_sigterm(tmp_path):
    script = ("import sys, time\nfrom assigncheck.live.broker import Broker\nb = Broker()\n"
              "print(b.process.pid, b.directory, flush=True)\ntime.sleep(600)\n")
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    pid, directory = child.stdout.readline().split()
    assert Path(directory).is_dir() and os.path.exists(f"/proc/{pid}")
    child.send_signal(signal.SIGTERM)
    assert child.wait(timeout=60) == 128 + signal.SIGTERM
    deadline = time.monotonic() + 10
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(f"/proc/{pid}") and not Path(directory).exists()


@pytest.mark.slow
@pytest.mark.parametrize("name, invariant", [("kafka-python-resubscribe", "live.convergence"),
                                             ("confluent-kafka-static-new-partitions", "H5"),
                                             ("confluent-kafka-follower-new-partitions", "H5")])
def test_each_live_finding_replays_on_a_fresh_broker(name, invariant):
    """The README's live findings (What it finds): each replays from its file alone, in a fresh process."""
    path = FINDINGS / f"{name}.json"
    record = record_of(json.loads(path.read_text(encoding="utf-8")))
    assert record is not None and record.invariant == invariant
    done = subprocess.run([sys.executable, "-m", "assigncheck.ci", "replay", str(path), "--json"],
                          capture_output=True, text=True, timeout=300)
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert done.returncode == 1 and answer["reproduces"], done.stderr[-2000:]


def test_the_gate_s_live_stage_runs_in_the_full_profile_only(tmp_path):
    from assigncheck.ci.context import PROFILES, Context
    from assigncheck.ci.stages import live as stage
    from assigncheck.targets import registry

    quick = Context(PROFILES["quick"], tmp_path)
    kafka_python = registry.load_target("kafka-python:range")
    result = stage.check_target(kafka_python, quick)
    assert result.skipped and "--profile full" in result.notes[0]  # said in every report, not silently passed
    assert stage.client_of(kafka_python) == ("kafka-python", "range", ())
    driver = Path(sys.prefix) / "bin" / "franz-go-driver"  # franz-go's balancer runs in franz-go's members
    assert stage.client_of(registry.load_target(f"cmd2:{driver} cooperative-sticky")) == (
        "franz-go", "cooperative-sticky", ())
    builtin = stage.check_target(registry.get("range"), Context(PROFILES["full"], tmp_path))
    assert builtin.skipped and builtin.stats["skipped"] == "no real client runs this assignor"


@pytest.mark.slow
def test_the_full_gate_s_live_stage_passes_kafka_s_range_assignor(tmp_path):
    from assigncheck.ci.pipeline import Plan, run_gate
    from assigncheck.targets import registry

    target = registry.load_target("java:org.apache.kafka.clients.consumer.RangeAssignor")
    result = run_gate([target], Plan.of("full", tmp_path, ["live"]))
    (stage,) = result.stages
    assert stage.error is None and not stage.findings and stage.work.done == stage.work.nominal == 2
    assert "live.conformance" in stage.checked and result.exit_code == 0


@pytest.mark.parametrize("argv, flag", [
    (["live", "--bootstrap-server", "foo"], "--bootstrap-server"),
    (["live", "--client", "kafka-python", "--protocol", "consumer"], "--protocol"),
    (["live", "--assignor", "range"], "--assignor"),
    (["live", "--client", "aiokafka", "--classpath", "x.jar"], "--classpath"),
    (["live", "--steps", "0"], "--steps"),
])
def test_bad_live_flags_are_one_line_and_exit_2(argv, flag, tmp_path, capsys):
    from assigncheck.ci.cli import main

    try:
        code = main([*argv, "--report-dir", str(tmp_path)])
    except SystemExit as e:
        code = e.code
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and flag in err


def test_a_live_reproducer_with_a_bad_schedule_is_one_line_and_exit_2(tmp_path):
    doc = json.loads((FINDINGS / "kafka-python-resubscribe.json").read_text(encoding="utf-8"))
    doc["finding"]["live"]["schedule"]["steps"][2] = {"op": "crash", "member": "m7"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "assigncheck.ci", "replay", str(bad)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "schedule.steps[2].member" in done.stderr and "broker" not in done.stderr


def test_franz_go_members_unbuilt_are_one_line_naming_the_build(monkeypatch, tmp_path):
    from assigncheck.live import members

    members.check_client("franz-go", "consumer")  # `make franz-go` built it (make test does)
    monkeypatch.setattr(members, "FRANZ_GO_MEMBER", tmp_path / "franz-go-member")
    with pytest.raises(InputError) as e:
        members.check_client("franz-go", "classic")
    assert e.value.path == "--client" and "make franz-go" in e.value.message and "\n" not in str(e.value)
