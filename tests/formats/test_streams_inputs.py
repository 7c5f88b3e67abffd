"""What Streams clients report to a task assignor (per-task lags, rack ids, client tags) and the configs that read
them (acceptable.recovery.lag, rack.aware.assignment.tags): the model's defaults keep every older problem what it
was, the JSON document carries them both ways and refuses bad values in one line naming the field, the generators
reach them, and the parts of the gate that rebuild a problem (the shuffled determinism run, the shrinker) keep or
drop them only as the reader allows. tests/targets/test_java_streams.py holds their way into Kafka's jars."""

from __future__ import annotations

import json
from dataclasses import replace

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings

from assigncheck.ci.cli import main
from assigncheck.findings.minimize import candidates
from assigncheck.formats.documents import problem_from_json, problem_to_json
from assigncheck.formats.schemas import schema
from assigncheck.generate import strategies
from assigncheck.generate.seeded import generate_streams
from assigncheck.impl.streams import assign_streams
from assigncheck.run.assignor_check import shuffled_problem
from assigncheck.spec.errors import InputError
from assigncheck.spec.features import streams_features
from assigncheck.spec.model import Client, StreamsProblem

from .test_schemas import changed

DOC = {"format": 1, "kind": "streams", "subtopologies": {"s0": 3, "s1": 2},
       "clients": [{"id": "A", "capacity": 2, "active": {"s0": [0]}, "lags": {"s0": [0, None, 120]}, "rack": "r1",
                    "client_tags": {"zone": "a", "cluster": "x"}},
                   {"id": "B", "capacity": 1, "standby": {"s0": [0]}, "client_tags": {"zone": "b"}}],
       "num_standby_replicas": 1, "stateless": ["s1"], "acceptable_recovery_lag": 100,
       "rack_aware_assignment_tags": ["zone"]}
INPUTS = {"lags", "client_racks", "client_tags", "acceptable_recovery_lag", "rack_aware_assignment_tags"}
SCHEMA = jsonschema.Draft202012Validator(schema("problem"))


def test_a_document_carries_each_input_into_the_model_and_back():
    problem = problem_from_json(DOC)
    a, b = problem.clients
    assert dict(a.lags) == {("s0", 0): 0, ("s0", 2): 120} and a.rack == "r1"
    assert dict(a.client_tags) == {"cluster": "x", "zone": "a"} and b.rack is None and not b.lags
    assert problem.acceptable_recovery_lag == 100 and problem.rack_aware_assignment_tags == ("zone",)
    doc = problem_to_json(problem)
    assert doc["clients"][0]["lags"] == {"s0": [0, None, 120]} and "lags" not in doc["clients"][1]
    assert problem_to_json(problem_from_json(json.loads(json.dumps(doc)))) == doc and SCHEMA.is_valid(doc)
    assert streams_features(problem) >= INPUTS


def test_without_them_a_problem_and_its_document_are_what_they_were():
    old = {"format": 1, "kind": "streams", "subtopologies": {"s0": 2}, "clients": [{"id": "A", "capacity": 1}]}
    problem = problem_from_json(old)
    assert problem == StreamsProblem({"s0": 2}, (Client("A", 1),))
    assert problem.acceptable_recovery_lag is None and problem.rack_aware_assignment_tags == ()
    assert problem_to_json(problem) == {**old, "clients": [{"id": "A", "capacity": 1, "active": {}, "standby": {}}]}
    assert not streams_features(problem) & INPUTS


LAGS = ["clients", 0, "lags", "s0"]
# document -> the one error line's start (the field it names, then why); the schema refuses those it can see.
BAD = {
    "lags for too few tasks": (changed(DOC, LAGS, [0, 1]), "clients[0].lags.s0: must have 3 entries", False),
    "a negative lag": (changed(DOC, LAGS, [0, -1, 2]), "clients[0].lags.s0[1]: must be between 0", True),
    "a lag past a Java long": (changed(DOC, LAGS, [0, 2**63, 2]), "clients[0].lags.s0[1]:", True),
    "a lag as a string": (changed(DOC, LAGS, [0, "1", 2]), "clients[0].lags.s0[1]: must be", True),
    "lags of an unknown sub-topology": (changed(DOC, ["clients", 0, "lags", "s9"], [0]),
                                        "clients[0].lags.s9: names a sub-topology that is not in", False),
    "lags of a stateless sub-topology": (changed(DOC, ["clients", 0, "lags", "s1"], [0, 0]),
                                         "clients[0].lags.s1: names a stateless sub-topology", False),
    "lags as a list": (changed(DOC, ["clients", 0, "lags"], [[0, 1, 2]]), "clients[0].lags: must be an object", True),
    "a rack that is a number": (changed(DOC, ["clients", 0, "rack"], 3), "clients[0].rack: must be a string", True),
    "six client tags": (changed(DOC, ["clients", 0, "client_tags"], {f"k{i}": "v" for i in range(6)}),
                        "clients[0].client_tags: has 6 tags; Streams allows at most 5", True),
    "a tag key of 21 characters": (changed(DOC, ["clients", 1, "client_tags"], {"zone": "b", "k" * 21: "v"}),
                                   "clients[1].client_tags key: must be 1 to 20 characters", True),
    "a tag value of 31 characters": (changed(DOC, ["clients", 1, "client_tags", "zone"], "v" * 31),
                                     "clients[1].client_tags.zone: must be 1 to 30 characters", True),
    "a tag value that is a number": (changed(DOC, ["clients", 1, "client_tags", "zone"], 1),
                                     "clients[1].client_tags.zone: must be a string", True),
    "a negative acceptable recovery lag": (changed(DOC, ["acceptable_recovery_lag"], -1),
                                           "acceptable_recovery_lag: must be between 0", True),
    "an acceptable recovery lag as a string": (changed(DOC, ["acceptable_recovery_lag"], "100"),
                                               "acceptable_recovery_lag: must be an integer", True),
    "assignment tags as a string": (changed(DOC, ["rack_aware_assignment_tags"], "zone"),
                                    "rack_aware_assignment_tags: must be a list", True),
    "a repeated assignment tag": (changed(DOC, ["rack_aware_assignment_tags"], ["zone", "zone"]),
                                  "rack_aware_assignment_tags: repeats a tag", True),
    "an assignment tag a client lacks": (changed(DOC, ["rack_aware_assignment_tags"], ["cluster"]),
                                         "clients[1].client_tags: has no tag 'cluster'", False),
}


@pytest.mark.parametrize("case", BAD)
def test_a_bad_input_is_one_line_naming_the_field_and_exit_2(case, tmp_path, capsys):
    doc, expected, schema_sees_it = BAD[case]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    assert main(["assign", "--assignor", "streams-sticky", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err and expected in err, err
    assert SCHEMA.is_valid(doc) != schema_sees_it
    with pytest.raises(InputError):
        problem_from_json(doc)


QUICK = settings(max_examples=60, database=None, deadline=None, suppress_health_check=list(HealthCheck))


@QUICK
@given(strategies.streams_problems())
def test_generated_inputs_are_documents_the_reader_and_schema_take(problem):
    doc = problem_to_json(problem)
    assert problem_to_json(problem_from_json(json.loads(json.dumps(doc)))) == doc and SCHEMA.is_valid(doc)


def test_the_generators_reach_every_input_sometimes():
    seen: set[str] = set()
    plain = 0
    for k in range(60):
        found = streams_features(generate_streams(36, 0, k))
        seen |= found
        plain += not found & INPUTS
    assert seen >= INPUTS and plain >= 20  # sometimes: most problems still come without them


@QUICK
@given(strategies.streams_problems(claims="valid"))
def test_streams_sticky_reads_none_of_them(problem):
    """The built-in streams-sticky decides from capacities and previous tasks alone (its docstring says so)."""
    bare = replace(problem, clients=tuple(replace(c, lags={}, rack=None, client_tags={}) for c in problem.clients),
                   acceptable_recovery_lag=None, rack_aware_assignment_tags=())
    assert assign_streams(problem) == assign_streams(bare)


def test_the_shuffled_run_keeps_them_and_the_shrinker_drops_them_as_the_reader_allows():
    problem = problem_from_json(DOC)
    shuffled = shuffled_problem(problem, 7)
    assert {c.client_id: (dict(c.lags), c.rack, dict(c.client_tags)) for c in shuffled.clients} == {
        c.client_id: (dict(c.lags), c.rack, dict(c.client_tags)) for c in problem.clients}
    assert shuffled.acceptable_recovery_lag == 100 and shuffled.rack_aware_assignment_tags == ("zone",)
    smaller = list(candidates(problem))
    assert any(p.acceptable_recovery_lag is None for p in smaller)
    assert any(not p.rack_aware_assignment_tags for p in smaller)
    assert any(not p.clients[0].lags for p in smaller if len(p.clients) == 2)
    for p in smaller:  # every step is a problem a reproducer file can hold
        doc = problem_to_json(p)
        assert problem_to_json(problem_from_json(doc)) == doc
