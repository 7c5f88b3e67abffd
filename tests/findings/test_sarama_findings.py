"""What the gate found in sarama's balance strategies (the version pinned in `go/go.mod`, through our Go driver,
built here by `make go-programs`) still reproduces, and each file's verdict (`finding.sarama`) holds on its problem:
a sarama bug, or a behaviour the spec treats differently, is on a problem a real group can send and shows the
mechanism its `where` names; an unreachable one needs an input no sarama leader meets.

Each file names the driver as `cmd2:.venv/bin/sarama-driver STRATEGY`, relative to the clone, held to the promises
sarama documents for that strategy (`tests.go_drivers.PROMISES`)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from assigncheck.ci.cli import main
from assigncheck.findings.signature import unreachable
from assigncheck.formats.documents import load_problem
from assigncheck.formats.reproducer import record_of
from assigncheck.spec.promises import Promises
from assigncheck.spec.reference import REFERENCES
from assigncheck.targets.command import TargetError
from tests import go_drivers
from tests.paths import ROOT

FOLDER = ROOT / "examples" / "sarama-findings"
FINDINGS = sorted(FOLDER.glob("*.json"))


def test_there_are_findings_of_each_verdict_and_root():
    assert {(go_drivers.finding_note(p, "sarama")["verdict"], go_drivers.finding_note(p, "sarama")["root"])
            for p in FINDINGS} == {("bug", "T"), ("bug", "I"), ("bug", "M"), ("bug", "C"), ("spec-differs", "R"),
                                   ("unreachable", "E"), ("unreachable", "L")}


@pytest.mark.parametrize("path", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_each_sarama_finding_names_the_driver_and_the_documented_promises(path):
    target = record_of(json.loads(path.read_text())).target
    strategy = target.spec.rsplit(" ", 1)[1]
    assert target.spec == go_drivers.spec("sarama", strategy)
    assert target.declared() == Promises.parse(go_drivers.PROMISES["sarama"][strategy])


@pytest.mark.parametrize("path", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_each_sarama_finding_reproduces_with_its_verdict(path, in_clone):
    note = go_drivers.finding_note(path, "sarama")
    problem = load_problem(path)
    matching, promises = go_drivers.replay(path)
    assert matching, f"{path.name} no longer reproduces"
    assert unreachable(problem, promises) == []  # the spec sees a problem a group can send
    if note["root"] == "E":  # no sarama leader meets it: sarama's Consume refuses an empty topic list
        assert not any(m.subscription for m in problem.members)
    elif note["root"] == "L":  # a cooperative sarama member claims only partitions of the topics it consumes
        assert any(set(m.owned) - m.subscription for m in problem.members)
        assert not _replay_without_claims_of_topics_left(path, problem)
    else:
        assert note["verdict"] != "unreachable"


def _replay_without_claims_of_topics_left(path, problem):
    kept = problem.replace(members=tuple(dataclasses.replace(
        m, owned={t: ps for t, ps in m.owned.items() if t in m.subscription}) for m in problem.members))
    return go_drivers.replay(path, kept)[0]


def test_a_missing_topic_fails_the_leader_and_the_same_group_without_it_is_planned(in_clone):
    path = FOLDER / "leader-fails-on-a-missing-topic.json"
    problem = load_problem(path)
    with pytest.raises(TargetError, match='Partitions\\("refunds"\\)'):
        go_drivers.assign(path)
    created = problem.replace(topics={**problem.topics, "refunds": 1})
    assert go_drivers.assign(path, created) == REFERENCES["range"].assign(created)


def test_sarama_range_orders_static_members_by_member_id(in_clone):
    path = FOLDER / "range-static-members-by-member-id.json"
    problem = load_problem(path)
    assert any(m.instance_id for m in problem.members)
    dynamic = problem.replace(members=tuple(dataclasses.replace(m, instance_id=None) for m in problem.members))
    assert go_drivers.assign(path) == REFERENCES["range"].assign(dynamic) != REFERENCES["range"].assign(problem)


def test_sarama_range_is_the_spec_range_blind_to_racks(in_clone):
    path = FOLDER / "range-rack-blind.json"
    problem = load_problem(path)
    out = go_drivers.assign(path)
    assert out != REFERENCES["range"].assign(problem)
    assert out == REFERENCES["range"].assign(problem.replace(partition_racks=None))


def _without_claims_of(problem, member_id):
    return problem.replace(members=tuple(
        dataclasses.replace(m, owned={}, generation=-1) if m.member_id == member_id else m for m in problem.members))


def test_a_stale_member_gets_back_a_partition_of_a_topic_it_left(in_clone):
    path = FOLDER / "sticky-stale-member-gets-unsubscribed-partitions.json"
    problem = load_problem(path)
    assert go_drivers.assign(path).get("c3") == {"t1": [0]}  # c3 subscribes to t2 only
    assert go_drivers.assign(path, _without_claims_of(problem, "c3")).get("c4") == {"t1": [0]}


def test_a_stale_member_set_aside_as_fixed_takes_a_partition_with_it(in_clone):
    path = FOLDER / "sticky-stale-member-loses-a-partition.json"
    problem = load_problem(path)
    out = go_drivers.assign(path)
    assert not any(0 in out.get(m.member_id).get("t1", []) for m in problem.members)
    fresh = go_drivers.assign(path, _without_claims_of(problem, "m2"))
    assert sorted(p for m in problem.members for p in fresh.get(m.member_id).get("t1", [])) == [0, 1]


def test_replay_confirms_a_sarama_finding(in_clone, capsys):
    assert main(["replay", str(FOLDER / "sticky-map-order-fresh-group.json"), "--trust"]) == 1
    assert "reproduces: H8 on cmd2:.venv/bin/sarama-driver sticky" in capsys.readouterr().out
