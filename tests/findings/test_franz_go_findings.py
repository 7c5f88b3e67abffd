"""What the gate found in franz-go's balancers (the version pinned in `go/go.mod`, through our Go
driver, built here by `make franz-go`) still reproduces, and each file's verdict (`finding.franz`) holds on its
problem: a franz-go bug, or a behaviour the spec treats differently, is on a problem a real group can send, and
shows the mechanism its `where` names; an unreachable one needs an input no real group produces.

Each file names the driver as `cmd2:.venv/bin/franz-go-driver BALANCER`, relative to the clone (the path `make`
builds in every clone), held to the promises kgo documents for that balancer (`benchmarks.franz_go.PROMISES`):
`assigncheck replay` finds it from the file's directory upwards, from any directory (`findings.located`); the
tests that load the target themselves run in the clone."""

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
from assigncheck.spec.model import Problem
from assigncheck.spec.promises import Promises
from assigncheck.spec.reference import REFERENCES
from assigncheck.targets import registry
from benchmarks import franz_go

FINDINGS = sorted((franz_go.ROOT / "examples" / "franz-go-findings").glob("*.json"))


@pytest.fixture(scope="module")
def driver():
    return franz_go.build()  # fails, with make's one line, where Go is missing: never skipped


@pytest.fixture
def in_clone(driver, monkeypatch):
    monkeypatch.chdir(franz_go.ROOT)  # where the files' relative driver path points


def _franz(path: Path) -> dict:
    return json.loads(path.read_text())["finding"]["franz"]


def _replay(path: Path, problem: Problem | None = None) -> tuple[list, object]:
    record = record_of(json.loads(path.read_text()))
    assert record is not None
    target = registry.load(record.target)
    try:
        _, matching, _ = reproduces(target, problem or load_problem(path), record.invariant, record.seed,
                                    record.budget_s or 10.0)
        return matching, target.promises
    finally:
        target.close()


def test_there_are_findings_of_each_verdict_and_root():
    assert {(_franz(p)["verdict"], _franz(p)["root"]) for p in FINDINGS} == {
        ("bug", "M"), ("spec-differs", "S"), ("spec-differs", "R"), ("unreachable", "G")}


@pytest.mark.parametrize("path", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_each_franz_go_finding_names_the_driver_and_the_documented_promises(path):
    target = record_of(json.loads(path.read_text())).target
    balancer = target.spec.rsplit(" ", 1)[1]
    assert target.spec == franz_go.spec(balancer)
    assert target.declared() == Promises.parse(franz_go.PROMISES[balancer])


@pytest.mark.parametrize("path", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_each_franz_go_finding_reproduces_with_its_verdict(path, in_clone):
    franz = _franz(path)
    problem = load_problem(path)
    matching, promises = _replay(path)
    assert matching, f"{path.name} no longer reproduces"
    why = unreachable(problem, promises)
    if franz["verdict"] != "unreachable":
        assert why == [], why
    elif not why:  # a shape the spec does not list: a claim from generation 0, which no broker hands out
        assert franz["root"] == "G"
        assert any(m.generation == 0 for m in problem.members)
        renumbered = problem.replace(members=tuple(
            dataclasses.replace(m, generation=m.generation + 1) if m.generation >= 0 else m for m in problem.members))
        assert not _replay(path, renumbered)[0]


def test_a_stale_claimant_gets_back_a_partition_its_current_owner_kept(in_clone):
    path = franz_go.ROOT / "examples/franz-go-findings/sticky-stale-claimant-takes-a-kept-partition.json"
    problem = load_problem(path)
    target = registry.load(record_of(json.loads(path.read_text())).target)
    try:
        out = target.assign(problem)
    finally:
        target.close()
    newer, older = sorted(problem.members, key=lambda m: -m.generation)
    (stolen,) = set(older.owned["t"]) & set(newer.owned["t"])
    assert stolen in out.get(older.member_id)["t"] and stolen not in out.get(newer.member_id)["t"]


def test_kgo_range_is_the_spec_range_blind_to_racks(in_clone):
    path = franz_go.ROOT / "examples/franz-go-findings/range-rack-blind.json"
    problem = load_problem(path)
    target = registry.load(record_of(json.loads(path.read_text())).target)
    try:
        out = target.assign(problem)
    finally:
        target.close()
    assert out != REFERENCES["range"].assign(problem)
    assert out == REFERENCES["range"].assign(problem.replace(partition_racks=None))


def test_replay_confirms_a_franz_go_finding_from_any_directory(driver, tmp_path, monkeypatch, capsys):
    """From another directory: the driver's relative path is found from the file's own directory upwards (the
    clone's root). The file was not written on this machine: replaying it takes --trust."""
    monkeypatch.chdir(tmp_path)
    path = franz_go.ROOT / "examples/franz-go-findings/sticky-map-order-fresh-group.json"
    assert main(["replay", str(path)]) == 2
    assert "would run the program '.venv/bin/franz-go-driver sticky' in" in capsys.readouterr().err
    assert main(["replay", str(path), "--trust"]) == 1
    assert "reproduces: H8 on cmd2:.venv/bin/franz-go-driver sticky" in capsys.readouterr().out
