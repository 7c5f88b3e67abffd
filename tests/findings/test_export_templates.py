"""Every check and every way of running a target, in every language, compiles and runs: a finding of each exported
invariant, on a target of each framework, exported and run (a correct target's test may pass or fail: what is held
here is that it builds and runs to a verdict, never a compile error). The kept findings exercise only the invariants
they broke; these cover the rest. The Python runs are in the default suite; the node, Maven and Go ones are slow."""

from __future__ import annotations

import json

import pytest

from assigncheck.findings.export.rules import RULES
from tests.findings.exports import export, run_go, run_maven, run_node, run_pytest

GROUP = {"format": 1, "kind": "consumer", "topics": {"t0": 3, "t1": 2},
         "members": [{"id": "a", "subscription": ["t0", "t1"], "owned": {"t0": [0]}, "generation": 1},
                     {"id": "b", "subscription": ["t0"], "owned": {"t0": [1]}, "generation": 1},
                     {"id": "c", "subscription": ["t1"]}]}
TASKS = {"format": 1, "kind": "streams", "subtopologies": {"s0": 3},
         "clients": [{"id": "c0", "capacity": 1, "active": {"s0": [0, 1]}}, {"id": "c1", "capacity": 2}]}
PROMISES = {"balance.perfect": "balance=perfect", "balance.per-topic": "balance=per-topic",
            "balance.optimal": "balance=optimal", "stickiness.max_retained": "balance=perfect,stickiness=max_retained",
            "exact": "exact=range", "fixpoint": "fixpoint", "cooperative.rounds": "max_rounds=2,eager=false",
            "H6": "max_rounds=2,eager=false", "streams.balance": "task_balance=capacity",
            "streams.sticky": "active_stickiness"}
TARGETS = {"junit": "java:org.apache.kafka.clients.consumer.RangeAssignor",
           "go": "cmd2:.venv/bin/franz-go-driver range", "node": "cmd2:node js/targets/kafkajs-roundrobin.js",
           "pytest": "range"}
STREAMS_TARGETS = {"junit": "java:org.apache.kafka.streams.processor.assignment.assignors.StickyTaskAssignor",
                   "pytest": "streams-sticky"}
CONSUMER = [i for i in RULES if not i.startswith("streams.")]
STREAMS = [i for i in RULES if i.startswith("streams.")]


def _finding(tmp_path, language: str, invariant: str) -> str:
    streams = invariant.startswith("streams.")
    target = {"spec": (STREAMS_TARGETS if streams else TARGETS)[language]}
    if invariant in PROMISES:
        target["promises"] = PROMISES[invariant]
    doc = {**(TASKS if streams else GROUP), "finding": {"target": target, "invariant": invariant, "seed": 0}}
    if invariant in ("H6", "cooperative.rounds"):
        doc["protocol"] = "cooperative"
    path = tmp_path / f"{invariant.replace('.', '-')}.json"
    path.write_text(json.dumps(doc))
    return str(path)


def _verdict(language: str, output: str) -> bool:
    """Whether the run reached a verdict (a test ran and passed or failed), rather than failing to build."""
    ran = {"go": "--- FAIL", "node": "# tests", "pytest": " in "}[language]
    return ran in output or (language == "go" and "ok " in output)


@pytest.mark.parametrize("invariant", CONSUMER)
def test_every_check_runs_in_python(invariant, tmp_path):
    (test,) = export(_finding(tmp_path, "pytest", invariant), "pytest", tmp_path / "out")
    run = run_pytest(test.parent)
    assert _verdict("pytest", run.output) and "Error" not in run.output.replace("AssertionError", ""), run.output


@pytest.mark.parametrize("invariant", STREAMS)
def test_every_streams_check_runs_in_python(invariant, tmp_path):
    (test,) = export(_finding(tmp_path, "pytest", invariant), "pytest", tmp_path / "out")
    run = run_pytest(test.parent)
    assert _verdict("pytest", run.output) and "Error" not in run.output.replace("AssertionError", ""), run.output


@pytest.mark.slow
@pytest.mark.parametrize("invariant", CONSUMER)
def test_every_check_runs_in_node(invariant, tmp_path):
    export(_finding(tmp_path, "node", invariant), "node", tmp_path / "out")
    run = run_node(tmp_path / "out")
    assert _verdict("node", run.output) and "SyntaxError" not in run.output and "ReferenceError" not in run.output, \
        run.output


@pytest.mark.slow
@pytest.mark.parametrize("invariant", CONSUMER)
def test_every_check_builds_and_runs_in_go(invariant, tmp_path):
    export(_finding(tmp_path, "go", invariant), "go", tmp_path / "out")
    run = run_go(tmp_path / "out")
    assert _verdict("go", run.output), run.output


@pytest.mark.slow
def test_every_check_builds_and_runs_in_java(tmp_path):
    """One Maven project holds a test class per invariant, one build for all: the Streams ones are exported last, so
    the pom is theirs (kafka-streams, which brings kafka-clients for the others)."""
    for invariant in (*CONSUMER, *STREAMS):
        export(_finding(tmp_path, "junit", invariant), "junit", tmp_path / "out")
    assert "kafka-streams" in (tmp_path / "out" / "pom.xml").read_text()  # the last: its API brings kafka-clients
    run = run_maven(tmp_path / "out")
    assert "COMPILATION ERROR" not in run.output and (run.code == 0 or "Tests run:" in run.output), run.output[-3000:]
