"""`assigncheck export`: what it refuses (one line naming the flag or field, exit 2), which framework reaches which
target, and the rules in words being one vocabulary: every language's test states a rule with the text `rules` holds
for it, and fills its placeholders as `rules.say` does."""

from __future__ import annotations

import json
import re

import pytest

from assigncheck.ci.cli import main
from assigncheck.findings.export import templates
from assigncheck.findings.export.reach import language_of
from assigncheck.findings.export.rules import PLACEHOLDER, RULES, rule, say
from assigncheck.formats.reproducer import TargetRef
from tests.findings.exports import export, run_pytest
from tests.paths import ROOT

UNIFORM = "examples/kafka4-findings/uniform-kafka-18688-balanced-group-moves.json"
LIBRARY = "examples/library-findings/kafka-python-sticky-unsubscribed-partition.json"
LANGUAGES = {"java": "junit", "go": "go", "node": "node", "python": "pytest"}


def one_error(capsys, argv, *expected):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for text in expected:
        assert text in err, err


def _reproducer(tmp_path, **finding):
    doc = {"format": 1, "topics": {"t0": 2}, "members": [{"id": "c0", "subscription": ["t0"]}],
           "finding": {"target": {"spec": "range"}, "invariant": "H3", "seed": 0, **finding}}
    path = tmp_path / "finding.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_an_unknown_framework_is_one_line_naming_as(capsys):
    one_error(capsys, ["export", str(ROOT / UNIFORM), "--as", "cobol"], "--as", "cobol", "junit, go, pytest, node")


def test_a_framework_that_cannot_reach_the_target_names_the_one_that_can(capsys):
    one_error(capsys, ["export", str(ROOT / UNIFORM), "--as", "go"], "--as", "export it --as junit")


def test_a_program_of_unknown_make_is_reached_by_no_framework(tmp_path, capsys):
    path = _reproducer(tmp_path, target={"spec": "cmd:./my-assignor --json"})
    one_error(capsys, ["export", path, "--as", "pytest"], "--as", "no test framework reaches")


@pytest.mark.parametrize("finding", [{"invariant": "scale.time"}, {"invariant": "H7", "cause": "timeout"},
                                     {"invariant": "H7", "cause": "hang"}])
def test_a_timing_finding_is_not_exported(tmp_path, capsys, finding):
    one_error(capsys, ["export", _reproducer(tmp_path, **finding), "--as", "pytest"], "finding.invariant",
              "timing finding")


def test_a_live_finding_and_a_problem_file_are_not_exported(tmp_path, capsys):
    one_error(capsys, ["export", str(ROOT / "examples/live-findings/kafka-python-resubscribe.json"), "--as", "pytest"],
              "live finding")
    plain = tmp_path / "problem.json"
    plain.write_text(json.dumps({"format": 1, "topics": {"t0": 1}, "members": []}))
    one_error(capsys, ["export", str(plain), "--as", "pytest"], "problem.json", "names no finding")


def test_an_invariant_with_no_rule_in_words_is_not_exported(tmp_path, capsys):
    one_error(capsys, ["export", _reproducer(tmp_path, invariant="racks"), "--as", "pytest"], "finding.invariant",
              "racks is not exported")


def test_a_consumer_check_on_a_streams_problem_is_not_exported(tmp_path, capsys):
    path = tmp_path / "streams.json"
    path.write_text(json.dumps({"format": 1, "kind": "streams", "subtopologies": {"s0": 2},
                                "clients": [{"id": "c0", "capacity": 1}],
                                "finding": {"target": {"spec": "streams-sticky", "promises": "exact=streams"},
                                            "invariant": "exact", "seed": 0}}))
    one_error(capsys, ["export", str(path), "--as", "pytest"], "finding.invariant", "exact on a Streams task problem")


def test_an_unwritable_out_is_refused_before_any_work(tmp_path, capsys):
    taken = tmp_path / "a-file"
    taken.write_text("")
    one_error(capsys, ["export", str(ROOT / LIBRARY), "--as", "pytest", "--out", str(taken)], "--out", "regular file")
    one_error(capsys, ["export", str(ROOT / LIBRARY), "--as", "pytest", "--out", "/proc/assigncheck"], "--out")


@pytest.mark.parametrize(("spec", "language"), [
    ("java:org.apache.kafka.clients.consumer.StickyAssignor", "junit"),
    ("cmd2:.venv/bin/franz-go-driver sticky", "go"), ("cmd2:.venv/bin/sarama-driver -version 3.6.0 range", "go"),
    ("cmd2:.venv/bin/kafka-go-driver rack-affinity", "go"), ("cmd2:node js/targets/kafkajs-roundrobin.js", "node"),
    ("kafka-python:sticky", "pytest"), ("aiokafka:range", "pytest"), ("sticky", "pytest"),
    ("mypackage.assignors:Mine", "pytest"), ("cmd:./my-assignor", None), ("cmd2:.venv/bin/franz-go-driver nope", None),
    ("cmd2:node my-assigner.js", None)])
def test_which_framework_reaches_which_target(spec, language):
    assert language_of(TargetRef(spec)) == language


def test_rules_fill_every_placeholder_and_only_those():
    for ways in RULES.values():
        for r in ways:
            values = {name: f"<{name}>" for name in r.names}
            said = say(r, **values)
            assert not PLACEHOLDER.search(said)
            assert all(f"<{name}>" in said for name in r.names)


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_language_states_the_rules_by_their_keys_only(language):
    """A check of any language names rules only by the constants its test defines from `rules` (no text of its
    own), and names each placeholder its rule has: the words live in one place."""
    keys = {r.key for ways in RULES.values() for r in ways} | {"RULE_H5"}
    for invariant in RULES:
        code = templates.check(language, invariant)
        if code is None:
            assert invariant in ("H7", "H8", "fixpoint", "cooperative.rounds") or invariant.startswith("streams.") \
                and language in ("go", "node"), f"{language} has no check of {invariant}"
            continue
        named = set(re.findall(r"say\(\s*([A-Z0-9_]+)", code))
        assert named and named <= keys, (language, invariant, named - keys)
        wanted = {name for r in RULES[invariant] for name in r.names}
        assert all(re.search(rf"\b{name}\b", code) for name in wanted), (language, invariant)


def test_a_python_export_fails_with_the_rule_in_words(tmp_path):
    """The exported pytest of kafka-python's sticky H3 runs alone, red, saying the rule as `rules.say` does."""
    (path,) = export(LIBRARY, "pytest", tmp_path / "out")
    assert path.name == "test_kafka_python_sticky_unsubscribed_partition.py"
    run = run_pytest(path.parent)
    assert run.red
    assert say(rule("H3"), member="c4", partition="t1-2", topic="t1") in run.output


def test_the_exports_pin_the_clients_as_assigncheck_does():
    """An exported Go module and npm package pin the client as `go/` and `js/` do: the copies the package ships for
    them are those files (or the lock's KafkaJS entry), word for word."""
    from assigncheck.findings.export.node import KAFKAJS_VERSION

    assert templates.text("go", "go.mod") == (ROOT / "go" / "go.mod").read_text()
    assert templates.text("go", "go.sum") == (ROOT / "go" / "go.sum").read_text()
    lock = json.loads((ROOT / "js" / "package-lock.json").read_text())["packages"]["node_modules/kafkajs"]
    assert json.loads(templates.text("node", "kafkajs.lock")) == lock
    assert json.loads((ROOT / "js" / "package.json").read_text())["dependencies"]["kafkajs"] == KAFKAJS_VERSION
