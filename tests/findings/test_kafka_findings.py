"""What the gate found in Kafka's own assignors (kafka-clients 3.9.1, the `[java]` extra) still reproduces on the
real jar, and each file's verdict holds: a Kafka bug, or a Kafka behaviour the spec treats differently, is on a
problem a real group can send; an unreachable one is on a shape the spec knows no broker produces, or on claims
the protocol cannot carry (the bridge says so)."""

from __future__ import annotations

import json

import pytest

from assigncheck.ci.cli import main
from assigncheck.findings.replay import reproduces
from assigncheck.findings.signature import unreachable
from assigncheck.formats.documents import load_problem
from assigncheck.formats.reproducer import record_of
from assigncheck.spec.errors import TargetFailure
from assigncheck.targets import registry
from tests.paths import ROOT

FINDINGS = sorted((ROOT / "examples" / "kafka-findings").glob("*.json"))


def test_there_are_findings_for_each_root_cause():
    roots = {json.loads(p.read_text())["finding"]["kafka"]["root"] for p in FINDINGS}
    assert roots == {"A", "B", "C", "E", "N", "R"}


@pytest.mark.parametrize("path", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_each_kafka_finding_reproduces_with_its_verdict(path):
    record = record_of(json.loads(path.read_text()))
    assert record is not None and record.target.spec.startswith("java:org.apache.kafka.clients.consumer.")
    problem = load_problem(path)
    target = registry.load(record.target)
    try:
        _, matching, _ = reproduces(target, problem, record.invariant, record.seed, record.budget_s or 10.0)
        assert matching, f"{path.name} no longer reproduces {record.invariant}"
        if record.cause:  # a crash keeps its identity: the same exception from the same frame
            assert matching[0].cause == record.cause
        why = unreachable(problem, target.promises)
        if record.extra["kafka"]["verdict"] in ("bug", "spec-differs"):  # on problems real groups send
            assert why == [], why
        else:
            try:
                target.assign(problem)
            except TargetFailure:
                pass  # an error answer carries its "adapted" note too
            assert why or "revokes those before it rejoins" in target.adapted
    finally:
        target.close()


def test_replay_confirms_a_kafka_finding(capsys):
    path = next(p for p in FINDINGS if p.stem == "sticky-stale-member-gets-unsubscribed-partitions")
    assert main(["replay", str(path)]) == 1
    assert "reproduces: H3 on java:org.apache.kafka.clients.consumer.StickyAssignor" in capsys.readouterr().out
