"""The JSON Schemas in formats/schemas describe the documents assigncheck writes and reads: every shipped document
validates, every generated one does, a bad document is refused by the schema and the reader alike (but for the
differences docs/TARGETS.md lists, each held here), and docs/TARGETS.md's field tables list each schema's fields."""

import copy
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assigncheck.formats.documents import (
    assignment_from_json,
    assignment_to_json,
    load_json,
    parse_json,
    problem_from_json,
    problem_to_json,
)
from assigncheck.formats.reproducer import record_of
from assigncheck.formats.schemas import NAMES, schema
from assigncheck.generate import strategies
from assigncheck.run.assignor_check import check_assignor
from assigncheck.spec.errors import InputError
from assigncheck.spec.model import Problem
from assigncheck.spec.reference import REFERENCES
from assigncheck.spec.violations import INVARIANTS
from assigncheck.targets.command import CommandTarget, TargetError
from tests.paths import PACKAGE, ROOT

NPM = {"package.json", "package-lock.json"}  # an example's npm manifest and lockfile: not assigncheck documents
DOCS = sorted([*(p for p in ROOT.glob("examples/*/*.json") if p.name not in NPM), *PACKAGE.glob("fuzz/vectors/*.json")])
VALIDATORS = {name: jsonschema.Draft202012Validator(schema(name)) for name in NAMES}


def valid(name, doc) -> bool:
    return VALIDATORS[name].is_valid(doc)


def read_problem(doc) -> bool:
    try:
        problem_from_json(doc)
    except InputError:
        return False
    return True


def read_reproducer(doc) -> bool:
    try:
        return read_problem(doc) and record_of(doc) is not None
    except InputError:
        return False


def read_assignment(doc) -> bool:
    try:
        assignment_from_json(doc)
    except InputError:
        return False
    return True


# ---- the schemas themselves ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_each_schema_is_a_valid_draft_2020_12_schema(name):
    doc = schema(name)
    jsonschema.Draft202012Validator.check_schema(doc)
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert doc["$id"] == f"urn:assigncheck:schema:{name}"


def test_a_definition_shared_by_two_files_is_the_same_in_both():
    seen = {}
    for name in NAMES:
        for key, definition in schema(name)["$defs"].items():
            assert seen.setdefault(key, (name, definition))[1] == definition, f"{key}: {name} vs {seen[key][0]}"
    assert {"consumer_problem", "streams_problem", "member", "client", "finding", "answer_v2"} <= seen.keys()


def test_the_finding_names_every_invariant_and_nothing_else():
    assert schema("reproducer")["$defs"]["finding"]["properties"]["invariant"]["enum"] == list(INVARIANTS)


def test_an_unknown_schema_is_one_clear_error():
    with pytest.raises(InputError, match="unknown schema 'problems'; known: problem, assignment"):
        schema("problems")


# ---- every document we ship or write validates -------------------------------------------------------------------


@pytest.mark.parametrize("path", DOCS, ids=[p.relative_to(ROOT).as_posix() for p in DOCS])
def test_every_shipped_document_validates(path):
    doc = load_json(path)
    errors = [e.message for e in VALIDATORS["reproducer" if "finding" in doc else "problem"].iter_errors(doc)]
    assert not errors, errors
    assert valid("problem", doc) and valid("cmd-request", doc)  # a reproducer is a problem too


def test_the_shipped_documents_include_reproducers_and_both_kinds():
    docs = [load_json(p) for p in DOCS]
    assert sum("finding" in d for d in docs) >= 10
    assert any("partition_racks" in d for d in docs) and any("group_type" in d for d in docs)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(strategies.problems(racks=None, lag=None, protocol=None, min_partitions_per_topic=0),
                 strategies.problems(group_type="consumer"), strategies.problems(group_type="share")))
def test_generated_problems_and_their_assignments_validate(problem):
    doc = problem_to_json(problem)
    assert valid("problem", doc), [e.message for e in VALIDATORS["problem"].iter_errors(doc)]
    answer = assignment_to_json(REFERENCES["range"].assign(problem))
    assert valid("assignment", answer)
    assert valid("assignment", answer["assignment"])  # the bare mapping


@settings(max_examples=30, deadline=None)
@given(strategies.streams_problems())
def test_generated_streams_problems_validate(problem):
    doc = problem_to_json(problem)
    assert valid("problem", doc), [e.message for e in VALIDATORS["problem"].iter_errors(doc)]
    assert valid("assignment", assignment_to_json(REFERENCES["streams"].assign(problem)))


def test_the_harness_requests_and_a_targets_answers_validate(tmp_path):
    """What really goes over the pipes, recorded by `tee` around a complete cmd2: target: version 2 requests,
    batches (the target says it takes them) and answers; then version 1."""
    program = ROOT / "benchmarks" / "outside" / "roundrobin.py"
    problems = [Problem({"t0": 3, "t1": 2}, (), "eager"),
                problem_from_json({"format": 1, "topics": {"t0": 3, "t1": 2}, "members": [
                    {"id": "b", "subscription": ["t0", "t1"], "owned": {"t0": [0, 9]}, "generation": 2},
                    {"id": "a", "subscription": ["t0"], "rack": "r1", "instance_id": "i"}]})]
    for protocol in (1, 2):
        requests, answers = tmp_path / f"requests-{protocol}.jsonl", tmp_path / f"answers-{protocol}.jsonl"
        target = CommandTarget(["sh", "-c", f'tee -a "{requests}" | "$0" "{program}" | tee -a "{answers}"',
                                sys.executable], protocol=protocol)
        try:
            for problem in problems:
                _, report = check_assignor(target, problem, budget_s=10.0, measure=False)
                assert not report.violations, report.violations
        finally:
            target.close()
        sent = [load_json_line(line) for line in requests.read_text().splitlines()]
        got = [load_json_line(line) for line in answers.read_text().splitlines()]
        assert len(sent) >= 2 and len(got) >= 2 * len(problems)
        if protocol == 2:
            assert any("batch" in r for r in sent)  # prefetched in one round trip
        for doc in sent:
            assert valid("cmd-request", doc), [e.message for e in VALIDATORS["cmd-request"].iter_errors(doc)]
        for doc in got:
            assert valid("cmd-answer", doc), [e.message for e in VALIDATORS["cmd-answer"].iter_errors(doc)]


def load_json_line(line):
    return parse_json(line, "line")


# ---- bad documents: the schema and the reader agree, but where they differ on purpose ------------------------------

PROBLEM = {"format": 1, "kind": "consumer", "protocol": "eager", "topics": {"t0": 2, "t1": 1},
           "members": [{"id": "a", "subscription": ["t0", "t1"], "owned": {"t0": [0]}, "generation": 3,
                        "instance_id": "i-a", "rack": "r1"},
                       {"id": "b", "subscription": ["t0"]}],
           "partition_racks": {"t0": [["r1"], ["r1", "r2"]], "t1": [["r2"]]},
           "lag": {"auto_offset_reset": "earliest",
                   "offsets": {"t0": {"begin": [0, 0], "end": [5, 7], "committed": [1, None]},
                               "t1": {"begin": [0], "end": [0]}}}}
STREAMS = {"format": 1, "kind": "streams", "subtopologies": {"s": 3},
           "clients": [{"id": "A", "capacity": 2, "active": {"s": [0]}, "standby": {"s": [1]}}, {"id": "B",
                                                                                                 "capacity": 1}]}
FINDING = {"target": {"spec": "cmd:./x", "promises": "balance=perfect"}, "invariant": "H3", "stage": "properties",
           "seed": 3, "budget_s": 2.0, "hang_s": 30.0, "message": "m", "signature": "H3|x", "cause": ""}


def changed(doc, path, value=...):
    """A deep copy of `doc` with the field at `path` (keys and indices) set to `value`, or removed."""
    out = copy.deepcopy(doc)
    node = out
    for key in path[:-1]:
        node = node[key]
    if value is ...:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


BAD_PROBLEMS = {
    "format missing": changed(PROBLEM, ["format"]),
    "format 2": changed(PROBLEM, ["format"], 2),
    "format true": changed(PROBLEM, ["format"], True),
    "kind unknown": changed(PROBLEM, ["kind"], "share"),
    "unknown field": changed(PROBLEM, ["members_"], []),
    "topics missing": changed(PROBLEM, ["topics"]),
    "negative partition count": changed(PROBLEM, ["topics", "t0"], -1),
    "partition count past int32": changed(PROBLEM, ["topics", "t0"], 2**31),
    "partition count a string": changed(PROBLEM, ["topics", "t0"], "2"),
    "members an object": changed(PROBLEM, ["members"], {"a": {}}),
    "member without id": changed(PROBLEM, ["members", 0, "id"]),
    "member without subscription": changed(PROBLEM, ["members", 0, "subscription"]),
    "member id a number": changed(PROBLEM, ["members", 0, "id"], 7),
    "member with unknown field": changed(PROBLEM, ["members", 0, "owns"], {}),
    "subscription a string": changed(PROBLEM, ["members", 0, "subscription"], "t0"),
    "owned a list": changed(PROBLEM, ["members", 0, "owned"], [["t0", 0]]),
    "owned index a string": changed(PROBLEM, ["members", 0, "owned", "t0"], ["0"]),
    "owned index past int32": changed(PROBLEM, ["members", 0, "owned", "t0"], [2**31]),
    "owned index a boolean": changed(PROBLEM, ["members", 0, "owned", "t0"], [True]),
    "generation a string": changed(PROBLEM, ["members", 0, "generation"], "3"),
    "rack a number": changed(PROBLEM, ["members", 0, "rack"], 1),
    "instance id a list": changed(PROBLEM, ["members", 0, "instance_id"], ["i"]),
    "protocol unknown": changed(PROBLEM, ["protocol"], "Eager"),
    "group type unknown": changed(PROBLEM, ["group_type"], "streams"),
    "a consumer group with a cooperative protocol": changed(
        changed(PROBLEM, ["group_type"], "consumer"), ["protocol"], "cooperative"),
    "racks not lists": changed(PROBLEM, ["partition_racks", "t1"], ["r2"]),
    "lag without offsets": changed(PROBLEM, ["lag", "offsets"]),
    "lag reset unknown": changed(PROBLEM, ["lag", "auto_offset_reset"], "Latest"),
    "lag offset negative": changed(PROBLEM, ["lag", "offsets", "t0", "end"], [5, -1]),
    "lag without end": changed(PROBLEM, ["lag", "offsets", "t0", "end"]),
    "lag with unknown field": changed(PROBLEM, ["lag", "offsets", "t0", "lag"], [0, 0]),
    "streams without kind": changed(STREAMS, ["kind"]),
    "streams with members": changed(STREAMS, ["members"], []),
    "streams capacity 0": changed(STREAMS, ["clients", 0, "capacity"], 0),
    "streams client without capacity": changed(STREAMS, ["clients", 1, "capacity"]),
    "streams task a float": changed(STREAMS, ["clients", 0, "active", "s"], [0.5]),
    "streams negative task count": changed(STREAMS, ["subtopologies", "s"], -3),
    "not an object": [PROBLEM],
}


def test_the_good_documents_are_good():
    assert valid("problem", PROBLEM) and read_problem(PROBLEM)
    assert valid("problem", STREAMS) and read_problem(STREAMS)
    reproducer = {**PROBLEM, "note": "n", "finding": FINDING}
    assert valid("reproducer", reproducer) and read_reproducer(reproducer)
    assert not valid("reproducer", PROBLEM)  # a reproducer needs its finding


@pytest.mark.parametrize("case", BAD_PROBLEMS)
def test_a_bad_problem_is_refused_by_the_schema_and_the_reader(case):
    doc = BAD_PROBLEMS[case]
    assert not valid("problem", doc)
    assert not read_problem(doc)


BAD_FINDINGS = {
    "no target": changed(FINDING, ["target"]),
    "target without spec": changed(FINDING, ["target", "spec"]),
    "target with unknown field": changed(FINDING, ["target", "jar"], "x.jar"),
    "promises a list": changed(FINDING, ["target", "promises"], ["balance=perfect"]),
    "maven coordinates without a version": changed(FINDING, ["target", "maven"], ["org.apache.kafka:kafka"]),
    "config of numbers": changed(FINDING, ["target", "config"], {"k": 1}),
    "unknown invariant": changed(FINDING, ["invariant"], "H9"),
    "no invariant": changed(FINDING, ["invariant"]),
    "seed a string": changed(FINDING, ["seed"], "3"),
    "seed a boolean": changed(FINDING, ["seed"], True),
    "budget zero": changed(FINDING, ["budget_s"], 0),
    "hang negative": changed(FINDING, ["hang_s"], -1.0),
    "message a number": changed(FINDING, ["message"], 1),
    "finding a string": "H3",
}


@pytest.mark.parametrize("case", BAD_FINDINGS)
def test_a_bad_reproducer_is_refused_by_the_schema_and_by_replay(case):
    doc = {**PROBLEM, "note": "n", "finding": BAD_FINDINGS[case]}
    assert not valid("reproducer", doc)
    assert not read_reproducer(doc)


BAD_ASSIGNMENTS = {
    "format 2": {"format": 2, "assignment": {}},
    "no assignment": {"format": 1},
    "unknown field": {"format": 1, "assignment": {}, "problem": {}},
    "member maps to a list": {"format": 1, "assignment": {"a": [["t0", 0]]}},
    "index a string": {"format": 1, "assignment": {"a": {"t0": ["0"]}}},
    "index past int32": {"a": {"t0": [2**31]}},
    "bare member maps to a number": {"a": 1},
}


@pytest.mark.parametrize("case", BAD_ASSIGNMENTS)
def test_a_bad_assignment_is_refused_by_the_schema_and_the_reader(case):
    doc = BAD_ASSIGNMENTS[case]
    assert not valid("assignment", doc)
    assert not read_assignment(doc)


def answered(answer_line: str, protocol: int = 1) -> bool:
    """Whether the harness takes `answer_line` as an assignment, from a real program that writes it."""
    target = CommandTarget(["sh", "-c", 'read -r line; printf "%s\\n" "$ANSWER"; read -r line'],
                           protocol=protocol, env={"ANSWER": answer_line}, hang_s=20)
    try:
        target.assign(Problem({"t0": 1}, ()))
    except TargetError:
        return False
    finally:
        target.close()
    return True


GOOD_ANSWERS = ['{"format":1,"assignment":{"a":{"t0":[0]},"b":{}},"adapted":"no racks"}',
                '{"format":2,"id":1,"assignment":{},"batch":true}']
BAD_ANSWERS = {
    "version 1 answer with an id-less format 2": '{"format":2,"assignment":{}}',
    "version 1 error": '{"format":1,"error":"gave up","exception":"KeyError","frame":"a.py:3"}',
    "no assignment": '{"format":1}',
    "assignment a list": '{"format":1,"assignment":[]}',
    "index a string": '{"format":1,"assignment":{"a":{"t0":["0"]}}}',
    "not JSON": "assignment please",
}


@pytest.mark.parametrize("line", GOOD_ANSWERS)
def test_a_good_answer_is_taken(line):
    protocol = 2 if '"format":2' in line else 1
    assert valid("cmd-answer", load_json_line(line)) and answered(line, protocol)


@pytest.mark.parametrize("case", BAD_ANSWERS)
def test_a_bad_or_error_answer_is_no_assignment_to_the_harness(case):
    line = BAD_ANSWERS[case]
    assert not answered(line)
    if case == "version 1 error":  # well formed, and an H7 finding all the same
        assert valid("cmd-answer", load_json_line(line))
    elif case != "not JSON":
        assert not valid("cmd-answer", load_json_line(line))


# The differences docs/TARGETS.md lists, each way.
ONLY_THE_READER_REFUSES = {
    "two members with one id": changed(PROBLEM, ["members", 1, "id"], "a"),
    "two clients with one id": changed(STREAMS, ["clients", 1, "id"], "A"),
    "a stateless sub-topology not in subtopologies": changed(STREAMS, ["stateless"], ["s9"]),
    "racks of a topic not in topics": changed(PROBLEM, ["partition_racks", "t9"], [["r1"]]),
    "racks for too few partitions": changed(PROBLEM, ["partition_racks", "t0"], [["r1"]]),
    "offsets of a topic not in topics": changed(PROBLEM, ["lag", "offsets", "t9"], {"begin": [0], "end": [0]}),
    "offsets for too few partitions": changed(PROBLEM, ["lag", "offsets", "t0", "begin"], [0]),
    "offsets of a topic left out": changed(PROBLEM, ["lag", "offsets", "t1"]),
    "begin past end": changed(PROBLEM, ["lag", "offsets", "t0", "begin"], [6, 0]),
    "over the size limits": {"format": 1, "topics": {"t0": 2**31 - 1}, "members": []},
    "1.0 for an integer": changed(PROBLEM, ["format"], 1.0),
}
ONLY_THE_SCHEMA_REFUSES = {
    "a note that is not a string": changed(PROBLEM, ["note"], {"why": "x"}),
    "an empty target": {**PROBLEM, "finding": changed(FINDING, ["target"], "")},
}


@pytest.mark.parametrize("case", ONLY_THE_READER_REFUSES)
def test_what_only_the_reader_refuses(case):
    doc = ONLY_THE_READER_REFUSES[case]
    assert valid("problem", doc)
    assert not read_problem(doc)


def test_a_problem_reader_ignores_the_finding_replay_refuses():
    doc = {**PROBLEM, "finding": changed(FINDING, ["invariant"], "H9")}
    assert not valid("problem", doc)
    assert read_problem(doc) and not read_reproducer(doc)


@pytest.mark.parametrize("case", ONLY_THE_SCHEMA_REFUSES)
def test_what_only_the_schema_refuses(case):
    doc = ONLY_THE_SCHEMA_REFUSES[case]
    assert not valid("reproducer" if "finding" in doc else "problem", doc)
    assert read_reproducer(doc) if "finding" in doc else read_problem(doc)


@pytest.mark.parametrize("line", [
    '{"format":1,"assignment":{},"took_ms":3}',  # a field the harness does not know
    '{"error":"gave up"}',  # an error answer without format
    '{"format":1,"error":{"code":3}}',  # an error that is not a string
    '{"format":1,"assignment":{},"error":"gave up"}',  # both: the harness reads the error
])
def test_answers_only_the_schema_refuses(line):
    assert not valid("cmd-answer", load_json_line(line))
    ends = "error" in line  # the harness reads an error answer as the target giving up, else the assignment
    assert answered(line) is not ends


# ---- docs/TARGETS.md lists each schema's fields -------------------------------------------------------------------

TABLE = re.compile(r"<!-- schema: (?P<file>[\w-]+)\.json#/\$defs/(?P<key>\w+) -->\n(?P<table>(?:\|.*\n)+)")


def doc_tables() -> dict[tuple[str, str], dict[str, bool]]:
    """(schema, definition) -> {field: required} from each table docs/TARGETS.md marks with its definition."""
    tables = {}
    for match in TABLE.finditer((ROOT / "docs" / "TARGETS.md").read_text()):
        rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in match["table"].splitlines()]
        header, body = rows[0], rows[2:]
        assert header[:3] == ["field", "type", "required"], header
        fields = {}
        for row in body:
            name = re.fullmatch(r"`(\w+)`", row[0])
            assert name, row
            fields[name[1]] = row[2] == "yes"
        tables[(match["file"], match["key"])] = fields
    return tables


def test_the_docs_field_tables_and_the_schemas_agree():
    tables = doc_tables()
    documented = set()
    for (file, key), fields in tables.items():
        definition = schema(file)["$defs"][key]
        assert fields == {f: f in definition.get("required", ()) for f in definition["properties"]}, (file, key)
        documented.add(key)
    with_fields = {key for name in NAMES for key, d in schema(name)["$defs"].items() if "properties" in d}
    assert with_fields == documented  # every object of every schema has its table


def test_the_table_parser_sees_a_difference():
    tables = doc_tables()
    member = tables[("problem", "member")]
    assert member["id"] and not member["generation"] and "owned" in member
    assert len(tables) >= 15


def test_the_docs_examples_are_valid_documents():
    text = (ROOT / "docs" / "TARGETS.md").read_text()
    blocks = [parse_json(b, "docs/TARGETS.md") for b in re.findall(r"```json\n(.*?)```", text, re.S)]
    kinds = []
    for doc in blocks:
        kind = "reproducer" if "finding" in doc else "assignment" if "assignment" in doc else "problem"
        assert valid(kind, doc), [e.message for e in VALIDATORS[kind].iter_errors(doc)]
        assert {"reproducer": read_reproducer, "assignment": read_assignment, "problem": read_problem}[kind](doc)
        kinds.append(kind if kind != "problem" else doc.get("kind", "consumer"))
    assert sorted(kinds) == ["assignment", "consumer", "reproducer", "streams"]
    lines = [parse_json(line, "line") for line in re.findall(r'^\{"format":[12],"(?:id|assignment).*$', text, re.M)]
    requests = [d for d in lines if "problem" in d]
    assert len(requests) == 1 and valid("cmd-request", requests[0])
    answers = [d for d in lines if "problem" not in d]
    assert len(answers) == 3 and all(valid("cmd-answer", a) for a in answers)


def test_the_schema_command_prints_or_writes_each_schema(tmp_path):
    command = str(Path(sys.executable).with_name("assigncheck"))
    printed = subprocess.run([command, "schema", "cmd-answer"], capture_output=True, text=True, timeout=60)
    assert printed.returncode == 0 and parse_json(printed.stdout, "stdout") == schema("cmd-answer")
    out = tmp_path / "reproducer.schema.json"
    written = subprocess.run([command, "schema", "reproducer", "--out", str(out)], capture_output=True, text=True,
                             timeout=60)
    assert written.returncode == 0 and written.stdout == "" and load_json(out) == schema("reproducer")
    unknown = subprocess.run([command, "schema", "problems"], capture_output=True, text=True, timeout=60)
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert unknown.stderr.strip().splitlines() == [
        "assigncheck: error: name: unknown schema 'problems'; schemas are problem, assignment, reproducer, "
        "cmd-request, cmd-answer"]
