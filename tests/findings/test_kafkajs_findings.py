"""What the gate found in KafkaJS's round-robin assigner (KafkaJS 2.2.4, the version `js/package-lock.json` pins,
through `js/targets/kafkajs-roundrobin.js`) still reproduces, and each file's verdict (`finding.kafkajs`) holds on
its problem: each is a KafkaJS bug on a group a real broker can hold, with the mechanism its `where` names: the
leader deals the partitions of its own subscribed topics over every member, whatever each subscribes to.

Each file names the target as `cmd2:node js/targets/kafkajs-roundrobin.js`, relative to the clone, held to what
KafkaJS's round-robin promises by its name: perfect balance (on equal subscriptions), with claims a previous
assignment made (it reads none)."""

from __future__ import annotations

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
from assigncheck.targets import registry
from tests.paths import ROOT
from tests.targets.test_kafkajs import kafkajs_round_robin

SPEC = "cmd2:node js/targets/kafkajs-roundrobin.js"
PROMISES = "balance=perfect,claims=real"
FINDINGS = sorted((ROOT / "examples" / "kafkajs-findings").glob("*.json"))


@pytest.fixture
def in_clone(js_installed, monkeypatch):
    monkeypatch.chdir(ROOT)  # where the files' relative target path points


def _kafkajs(path: Path) -> dict:
    return json.loads(path.read_text())["finding"]["kafkajs"]


def _assign(path: Path, problem: Problem):
    target = registry.load(record_of(json.loads(path.read_text())).target)
    try:
        return target.assign(problem)
    finally:
        target.close()


def test_there_are_findings_of_each_invariant_one_root():
    assert {json.loads(p.read_text())["finding"]["invariant"] for p in FINDINGS} == {"H3", "H5", "H8"}
    assert {(_kafkajs(p)["verdict"], _kafkajs(p)["root"]) for p in FINDINGS} == {("bug", "L")}


@pytest.mark.parametrize("path", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_each_kafkajs_finding_names_the_target_and_its_promises(path):
    target = record_of(json.loads(path.read_text())).target
    assert target.spec == SPEC
    assert target.declared() == Promises.parse(PROMISES)


@pytest.mark.parametrize("path", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_each_kafkajs_finding_reproduces_on_a_group_a_broker_can_hold(path, in_clone):
    record = record_of(json.loads(path.read_text()))
    problem = load_problem(path)
    target = registry.load(record.target)
    try:
        _, matching, _ = reproduces(target, problem, record.invariant, record.seed, record.budget_s or 10.0)
    finally:
        target.close()
    assert matching, f"{path.name} no longer reproduces"
    assert unreachable(problem, target.promises) == []
    assert len({m.subscription for m in problem.members}) > 1  # members subscribing differently: the whole cause


@pytest.mark.parametrize("path", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_the_leader_deals_its_own_topics_over_every_member(path, in_clone):
    problem = load_problem(path)
    out = _assign(path, problem)
    assert out == kafkajs_round_robin(problem)
    leader = problem.members[0]
    handed = {t for m in problem.members for t in out.get(m.member_id)}
    assert handed == set(leader.subscription) & set(problem.topics)


def test_a_follower_only_topic_goes_to_nobody_and_a_leader_topic_to_a_member_without_it(in_clone):
    follower_only = ROOT / "examples/kafkajs-findings/roundrobin-follower-topic-unassigned.json"
    problem = load_problem(follower_only)
    out = _assign(follower_only, problem)
    assert all("audit" not in out.get(m.member_id) for m in problem.members)
    given = ROOT / "examples/kafkajs-findings/roundrobin-unsubscribed-member-gets-partitions.json"
    problem = load_problem(given)
    old = next(m for m in problem.members if "audit" not in m.subscription)
    assert "audit" in _assign(given, problem).get(old.member_id)


def test_the_plan_depends_on_who_leads(in_clone):
    path = ROOT / "examples/kafkajs-findings/roundrobin-plan-depends-on-the-leader.json"
    problem = load_problem(path)
    other_leader = problem.replace(members=problem.members[::-1])
    assert _assign(path, problem) != _assign(path, other_leader)
    assert _assign(path, other_leader) == kafkajs_round_robin(other_leader)


def test_replay_confirms_a_kafkajs_finding(in_clone, capsys):
    path = ROOT / "examples/kafkajs-findings/roundrobin-follower-topic-unassigned.json"
    assert main(["replay", str(path), "--trust"]) == 1
    assert f"reproduces: H5 on {SPEC}" in capsys.readouterr().out
