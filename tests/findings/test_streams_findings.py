"""What the gate found in Kafka's Streams task assignors (KIP-924's StickyTaskAssignor from kafka-streams, KIP-1071's
from kafka-group-coordinator, both from Maven Central) still reproduces on the version it was found on, from its
reproducer file alone; a finding Kafka fixed does not reproduce on the version that fixed it (`fixed_in`), and one
a version introduced does not on an earlier one (`not_in`). Each file's `finding.kafka` holds the verdict read from
Kafka's source. A "spec-differs" finding breaks a promise Kafka does not make for the class (`held_to`, beside the
class's own, `targets.java.STREAMS_PROMISES`): it does not reproduce under the class's promises, so it fails no
gate, and does when the class is held to `held_to`. An "unreachable" one is on an input no Kafka caller builds, and
the gate says so (`findings.signature.unreachable`); a "bug" is on a reachable one."""

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
from assigncheck.targets.java import STREAMS_PROMISES
from tests.paths import ROOT

FINDINGS = sorted((ROOT / "examples" / "streams-findings").glob("*.json"))
VERDICTS = {"bug", "spec-differs", "unreachable"}


def _replay(path: Path, version: str | None = None, promises: str | None = None) -> list:
    record = record_of(json.loads(path.read_text()))
    assert record is not None and record.target.spec.endswith(".StickyTaskAssignor")
    (artifact,) = record.target.maven
    ref = record.target if version is None else dataclasses.replace(
        record.target, maven=(artifact.rsplit(":", 1)[0] + ":" + version,))
    ref = ref if promises is None else dataclasses.replace(ref, promises=promises)
    target = registry.load(ref)
    try:
        _, matching, _ = reproduces(target, load_problem(path), record.invariant, record.seed,
                                    record.budget_s or 10.0)
        return matching
    finally:
        target.close()


def test_each_streams_finding_has_a_verdict_from_kafkas_source():
    assert len(FINDINGS) >= 6
    for path in FINDINGS:
        kafka = json.loads(path.read_text())["finding"]["kafka"]
        assert kafka["verdict"] in VERDICTS and kafka["where"] and kafka["why"], path.name
        assert (kafka["verdict"] == "spec-differs") == bool(kafka.get("held_to")), path.name
    verdicts = [json.loads(p.read_text())["finding"]["kafka"]["verdict"] for p in FINDINGS]
    assert verdicts.count("bug") >= 3


@pytest.mark.parametrize("path", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_the_gate_judges_each_streams_findings_input_as_its_verdict_says(path):
    doc = json.loads(path.read_text())
    record = record_of(doc)
    assert record is not None
    why = unreachable(load_problem(path), STREAMS_PROMISES[record.target.spec.removeprefix("java:")])
    verdict = doc["finding"]["kafka"]["verdict"]
    if verdict == "bug":
        assert why == [], why
    if verdict == "unreachable":
        assert why, f"{path.name} is on an input the spec counts as reachable"


@pytest.mark.parametrize("path", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_each_streams_finding_reproduces(path):
    kafka = json.loads(path.read_text())["finding"]["kafka"]
    held_to = kafka.get("held_to")
    if held_to:
        assert not _replay(path), f"{path.name} breaks a promise the class makes"
    assert _replay(path, promises=held_to), f"{path.name} no longer reproduces"
    for key in ("fixed_in", "not_in"):
        if kafka.get(key):
            assert not _replay(path, kafka[key], held_to), f"{path.name} reproduces on {kafka[key]} too"


def test_replay_confirms_the_idle_new_instance_on_4_4_0(capsys):
    path = next(p for p in FINDINGS if "idle-instance" in p.stem)
    assert main(["replay", str(path)]) == 1
    assert "reproduces: streams.balance" in capsys.readouterr().out
