"""What the gate found in Kafka 4's broker-side assignors (kafka-group-coordinator from Maven Central) still
reproduces on the version it was found on, with its verdict; a finding Kafka fixed does not reproduce on the
version that fixed it. Each file's `finding.kafka` says which."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from assigncheck.ci.cli import main
from assigncheck.findings.replay import reproduces
from assigncheck.findings.signature import unreachable
from assigncheck.formats.documents import load_problem
from assigncheck.formats.reproducer import record_of
from assigncheck.targets import registry
from tests.paths import ROOT

FINDINGS = sorted((ROOT / "examples" / "kafka4-findings").glob("*.json"))
COORDINATOR = "org.apache.kafka:kafka-group-coordinator:"


def _replay(path: Path, version: str | None = None) -> tuple[list, list[str]]:
    record = record_of(json.loads(path.read_text()))
    assert record is not None and record.target.spec.startswith("java:org.apache.kafka.coordinator.group.")
    ref = record.target if version is None else dataclasses.replace(record.target, maven=(COORDINATOR + version,))
    problem = load_problem(path)
    target = registry.load(ref)
    try:
        _, matching, _ = reproduces(target, problem, record.invariant, record.seed, record.budget_s or 10.0)
        return matching, unreachable(problem, target.promises)
    finally:
        target.close()


def test_there_are_kafka4_findings():
    assert {json.loads(p.read_text())["finding"]["kafka"]["verdict"] for p in FINDINGS} >= {"bug"}


@pytest.mark.parametrize("path", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_each_kafka4_finding_reproduces_with_its_verdict(path):
    kafka = json.loads(path.read_text())["finding"]["kafka"]
    matching, why = _replay(path)
    assert matching, f"{path.name} no longer reproduces"
    assert (why == []) == (kafka["verdict"] in ("bug", "spec-differs")), why
    if kafka.get("fixed_in"):  # and Kafka's fix holds on the very same problem
        matching, _ = _replay(path, kafka["fixed_in"])
        assert not matching, f"{path.name} still reproduces on {kafka['fixed_in']}"


def test_replay_confirms_kafka_18688_on_4_0_0(capsys):
    path = next(p for p in FINDINGS if "kafka-18688" in p.stem)
    assert main(["replay", str(path)]) == 1
    assert "reproduces: stickiness.max_retained" in capsys.readouterr().out
