"""Every kept finding that is a bug (`finding.<library>.verdict` "bug", examples/*-findings/) exported as a test in
its target's own framework, and that test run alone as its user would run it: red on the affected release, saying
the broken rule in assigncheck's words, and, where a release fixed the bug (`fixed_in`), green on that release.

The pytest and node exports run in the default suite, as do KAFKA-18688 (red on 4.0.0, green on 4.0.1) and one
finding per Go client; every other Maven and Go run is `slow` (`make test-slow`): each JUnit run is a Maven build
(10-20 s), each Go one a `go test` build."""

from __future__ import annotations

import json

import pytest

from assigncheck.findings.export.rules import PLACEHOLDER, RULES
from tests.findings.exports import BUGS, Kept, export, run_go, run_maven, run_node, run_pytest

# Go findings whose fault is in the client's leader, not its balancer: `export` refuses them (exit 2).
LEADER_STEP = {"leader-fails-on-a-missing-topic", "missing-topic-leaves-the-group-without-partitions"}
# One Go finding per client in the default suite.
GO_DEFAULT = {"sticky-map-order-fresh-group", "range-static-members-by-member-id", "rack-affinity-map-order"}
JAVA_DEFAULT = {"uniform-kafka-18688-balanced-group-moves"}


def states_rule(kept: Kept, output: str) -> bool:
    """Whether `output` holds the finding's rule in words: every piece of one of its texts, in order."""
    invariant = json.loads((kept.report.with_suffix(".json")).read_text())["finding"]["invariant"]
    for r in RULES[invariant]:
        pieces = [p for p in PLACEHOLDER.split(r.text)[::2] if p.strip()]
        at = 0
        for piece in pieces:
            at = output.find(piece, at)
            if at < 0:
                break
            at += len(piece)
        else:
            return True
    return False


def _of(language: str, default: set[str] | None = None) -> list:
    found = [k for k in BUGS if k.language == language and k.name not in LEADER_STEP]
    if default is None:
        return [pytest.param(k, id=k.name) for k in found]
    return [pytest.param(k, id=k.name, marks=() if k.name in default else pytest.mark.slow) for k in found]


def test_every_bug_has_a_framework_and_each_framework_has_bugs():
    assert BUGS and all(k.language is not None for k in BUGS)
    assert {k.language for k in BUGS} == {"junit", "go", "pytest", "node"}


@pytest.mark.parametrize("kept", _of("pytest"))
def test_the_pytest_export_of_a_bug_is_red(kept, tmp_path):
    (path,) = export(kept.path, "pytest", tmp_path / "out")
    run = run_pytest(path.parent)
    assert run.red and states_rule(kept, run.output), run.output[-2000:]


@pytest.mark.parametrize("kept", _of("node"))
def test_the_node_export_of_a_bug_is_red(kept, tmp_path):
    export(kept.path, "node", tmp_path / "out")
    run = run_node(tmp_path / "out")
    assert run.red and states_rule(kept, run.output), run.output[-2000:]


@pytest.mark.parametrize("kept", _of("go", GO_DEFAULT))
def test_the_go_export_of_a_bug_is_red(kept, tmp_path):
    export(kept.path, "go", tmp_path / "out")
    run = run_go(tmp_path / "out")
    assert run.red and states_rule(kept, run.output), run.output[-2000:]


@pytest.mark.parametrize("name", sorted(LEADER_STEP))
def test_a_fault_of_the_leader_is_not_exported_as_a_balancer_test(name, tmp_path, capsys):
    from assigncheck.ci.cli import main

    (kept,) = [k for k in BUGS if k.name == name]
    assert main(["export", kept.path, "--as", "go", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "finding: " in err and "the metadata lacks" in err


@pytest.mark.parametrize("kept", _of("junit", JAVA_DEFAULT))
def test_the_junit_export_of_a_bug_is_red_and_green_where_fixed(kept, tmp_path):
    export(kept.path, "junit", tmp_path / "out")
    run = run_maven(tmp_path / "out")
    assert run.red and states_rule(kept, run.output), run.output[-3000:]
    fixed_in = kept.verdict.get("fixed_in")  # the release that fixed it: the same test is green there
    if fixed_in:
        fixed = run_maven(tmp_path / "out", fixed_in)
        assert not fixed.red, fixed.output[-3000:]
