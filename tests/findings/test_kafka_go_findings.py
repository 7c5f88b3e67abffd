"""What the gate found in segmentio/kafka-go's group balancers (the version pinned in `go/go.mod`, through our Go
driver, built here by `make go-programs`) still reproduces, and each file's verdict (`finding.kafkago`) holds on
its problem, a problem a real group can send, showing the mechanism its `where` names.

Each file names the driver as `cmd2:.venv/bin/kafka-go-driver BALANCER`, relative to the clone, held to the
promises kafka-go documents for that balancer (`tests.go_drivers.PROMISES`)."""

from __future__ import annotations

import json

import pytest

from assigncheck.ci.cli import main
from assigncheck.findings.signature import unreachable
from assigncheck.formats.documents import load_problem
from assigncheck.formats.reproducer import record_of
from assigncheck.spec.model import Assignment
from assigncheck.spec.promises import Promises
from tests import go_drivers
from tests.paths import ROOT

FOLDER = ROOT / "examples" / "kafka-go-findings"
FINDINGS = sorted(FOLDER.glob("*.json"))


def test_there_are_findings_of_each_root_all_kafka_go_bugs():
    assert {(go_drivers.finding_note(p, "kafkago")["verdict"], go_drivers.finding_note(p, "kafkago")["root"])
            for p in FINDINGS} == {("bug", "T"), ("bug", "P"), ("bug", "M")}


@pytest.mark.parametrize("path", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_each_kafka_go_finding_names_the_driver_and_the_documented_promises(path):
    target = record_of(json.loads(path.read_text())).target
    balancer = target.spec.rsplit(" ", 1)[1]
    assert target.spec == go_drivers.spec("kafka-go", balancer)
    assert target.declared() == Promises.parse(go_drivers.PROMISES["kafka-go"][balancer])


@pytest.mark.parametrize("path", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_each_kafka_go_finding_reproduces_on_a_problem_a_group_can_send(path, in_clone):
    matching, promises = go_drivers.replay(path)
    assert matching, f"{path.name} no longer reproduces"
    assert unreachable(load_problem(path), promises) == []


def test_one_missing_topic_leaves_every_member_without_partitions(in_clone):
    path = FOLDER / "missing-topic-leaves-the-group-without-partitions.json"
    problem = load_problem(path)
    assert go_drivers.assign(path) == Assignment.of({m.member_id: {} for m in problem.members})
    created = problem.replace(topics={**problem.topics, "refunds": 1})
    assert sorted(go_drivers.assign(path, created).counts().values()) == [1, 2]


@pytest.mark.parametrize("name", ["roundrobin-each-topic-from-the-first-member",
                                  "rack-affinity-each-topic-from-the-first-member"])
def test_each_topic_is_dealt_from_the_first_member(in_clone, name):
    path = FOLDER / f"{name}.json"
    problem = load_problem(path)
    first = min(m.member_id for m in problem.members) if name.startswith("roundrobin") else \
        problem.members[0].member_id  # round-robin sorts the members by id, rack affinity takes them as listed
    assert go_drivers.assign(path).count(first) == sum(problem.topics.values())


def test_replay_confirms_a_kafka_go_finding(in_clone, capsys):
    assert main(["replay", str(FOLDER / "rack-affinity-map-order.json"), "--trust"]) == 1
    assert "reproduces: H8 on cmd2:.venv/bin/kafka-go-driver rack-affinity" in capsys.readouterr().out
