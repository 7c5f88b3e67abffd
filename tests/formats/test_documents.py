import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assigncheck.formats.documents import (
    assignment_from_json,
    assignment_to_json,
    load_problem,
    load_problems,
    problem_from_json,
    problem_to_json,
    save_problem,
)
from assigncheck.spec.errors import FormatError
from assigncheck.spec.model import (
    SMALL_ROWS,
    Assignment,
    Client,
    Member,
    Problem,
    StreamsProblem,
    TopicTable,
    topic_sizes,
)


def _doc(**over):
    doc = {
        "format": 1,
        "topics": {"t0": 3, "t1": 2},
        "members": [
            {"id": "c0", "subscription": ["t0", "t1"], "owned": {"t0": [0, 7, 0], "zz": [1]}, "generation": 4},
            {"id": "c1", "subscription": ["t0"], "instance_id": "i1", "rack": "r1"},
        ],
    }
    doc.update(over)
    return doc


def test_round_trip_keeps_junk_claims_as_sent():
    p = problem_from_json(_doc())
    assert p.members[0].owned["t0"].tolist() == [0, 7, 0]
    assert p.members[0].owned["zz"].tolist() == [1]
    again = problem_from_json(problem_to_json(p))
    assert problem_to_json(again) == problem_to_json(p)
    assert again.members[1].instance_id == "i1" and again.members[1].generation == -1


claims = st.dictionaries(st.sampled_from(["a", "b", "c", "zz"]), st.lists(st.integers(-3, 40), max_size=12),
                         max_size=4)


@settings(max_examples=200, deadline=None)
@given(st.lists(claims, min_size=1, max_size=12))
def test_a_groups_claims_are_read_as_listed(owned):
    """A document's claims, read together as one group's shared arrays (more than SMALL_ROWS of them) or one set
    each: every member's topics in name order, each topic's indices as listed (repeats and junk kept), and a
    set marked sorted only when they ascend."""
    doc = {"format": 1, "topics": {"a": 30, "b": 5},
           "members": [{"id": f"m{i}", "subscription": ["a"], "owned": o} for i, o in enumerate(owned)]}
    members = problem_from_json(doc).members
    for m, listed in zip(members, owned):
        expected = {t: v for t, v in sorted(listed.items()) if v}
        assert [(t, m.owned[t].tolist()) for t in m.owned] == list(expected.items())
        assert m.owned.count == sum(map(len, expected.values()))
        assert not m.owned.is_sorted or all(v == sorted(v) for v in expected.values())
    held = [m.owned for m in members if m.owned.count]
    if sum(s.count for s in held) > SMALL_ROWS:
        assert len({id(s._src) for s in held}) == 1  # one group: whole-group readers gather it at once


def test_equal_subscriptions_are_one_object_over_the_metadatas_topic_names():
    """What whole-group passes compare by identity first: equal subscriptions read as one set, and a topic's name as
    the metadata's own string (a subscribed topic the metadata lacks keeps its own)."""
    doc = {"format": 1, "topics": {"orders": 2, "payments": 1}, "members": [
        {"id": "a", "subscription": ["orders", "payments"]}, {"id": "b", "subscription": ["payments", "orders"]},
        {"id": "c", "subscription": ["orders", "gone"]}]}
    problem = problem_from_json(json.loads(json.dumps(doc)))
    a, b, c = problem.members
    assert a.subscription is b.subscription and a.subscription == {"orders", "payments"}
    assert c.subscription == {"orders", "gone"}
    names = {id(t) for t in problem.topics}
    assert all(id(t) in names for m in problem.members for t in m.subscription if t != "gone")


def test_lag_and_racks_round_trip():
    doc = _doc(
        partition_racks={"t0": [["a"], ["b", "a"], []], "t1": [["a"], ["b"]]},
        lag={"auto_offset_reset": "earliest",
             "offsets": {"t0": {"begin": [0, 1, 2], "end": [5, 5, 5], "committed": [3, None, 9]},
                         "t1": {"begin": [0, 0], "end": [0, 4]}}},
    )
    p = problem_from_json(doc)
    assert p.lag.lag("t0").tolist() == [2, 4, 0]  # committed past the end counts as no lag
    assert p.lag.lag("t1").tolist() == [0, 4]
    assert p.partition_racks["t0"][1] == frozenset({"a", "b"})
    assert problem_to_json(problem_from_json(problem_to_json(p))) == problem_to_json(p)


def test_streams_round_trip():
    sp = StreamsProblem({"st0": 4}, (Client("A", 2, {"st0": [0]}, {"st0": [1]}), Client("B", 1)))
    again = problem_from_json(problem_to_json(sp))
    assert isinstance(again, StreamsProblem)
    assert problem_to_json(again) == problem_to_json(sp)
    assert "num_standby_replicas" not in problem_to_json(sp) and again.stateless == frozenset()


def test_streams_standby_replicas_and_stateless_round_trip():
    sp = StreamsProblem({"st0": 4, "st1": 1}, (Client("A", 2), Client("B", 1)), num_standby_replicas=2,
                        stateless={"st1"})
    doc = problem_to_json(sp)
    assert doc["num_standby_replicas"] == 2 and doc["stateless"] == ["st1"]
    again = problem_from_json(doc)
    assert again == sp and not again.stateful("st1") and again.stateful("st0")


def _streams_doc() -> dict:
    return {"format": 1, "kind": "streams", "subtopologies": {"st0": 2}, "clients": [{"id": "A", "capacity": 1}]}


@pytest.mark.parametrize(
    ("field", "value", "path"),
    [
        ("num_standby_replicas", -1, "num_standby_replicas"),
        ("num_standby_replicas", "1", "num_standby_replicas"),
        ("num_standby_replicas", True, "num_standby_replicas"),
        ("stateless", "st0", "stateless"),
        ("stateless", [3], "stateless[0]"),
        ("stateless", ["st0", "st9"], "stateless"),
    ],
)
def test_ill_formed_streams_fields_name_the_field(field, value, path):
    doc = {**_streams_doc(), field: value}
    with pytest.raises(FormatError) as e:
        problem_from_json(doc)
    assert e.value.path == path


@pytest.mark.parametrize(
    ("mutate", "path"),
    [
        (lambda d: d["members"].append(dict(d["members"][0])), "members[2].id"),
        (lambda d: d["topics"].update(t0=-1), "topics.t0"),
        (lambda d: d["members"][0]["owned"].update(t0=[0, "x"]), "members[0].owned.t0[1]"),
        (lambda d: d["members"][0]["owned"].update(t0=[1.5]), "members[0].owned.t0[0]"),
        (lambda d: d["members"][1].pop("subscription"), "members[1].subscription"),
        (lambda d: d["members"][1].update(generation="3"), "members[1].generation"),
        (lambda d: d["members"][1].update(generation=True), "members[1].generation"),
        (lambda d: d["members"][0]["owned"].update(t0=[2**31]), "members[0].owned.t0[0]"),
        (lambda d: d.update(protocol="eagerly"), "protocol"),
        (lambda d: d.update(format=2), "format"),
        (lambda d: d.pop("format"), "format"),
        (lambda d: d.update(surprise=1), "surprise"),
        (lambda d: d["members"][0].update(subscription="t0"), "members[0].subscription"),
    ],
)
def test_ill_formed_input_names_the_field(mutate, path):
    doc = _doc()
    mutate(doc)
    with pytest.raises(FormatError) as e:
        problem_from_json(doc)
    assert e.value.path == path


def test_files_single_and_json_lines(tmp_path):
    one = tmp_path / "p.json"
    save_problem(problem_from_json(_doc()), one, note="KAFKA-0")
    assert json.loads(one.read_text())["note"] == "KAFKA-0"
    assert load_problem(one).member_ids == ("c0", "c1")
    many = tmp_path / "p.jsonl"
    many.write_text("\n".join(json.dumps(_doc()) for _ in range(3)) + "\n")
    assert len(list(load_problems(many))) == 3
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(_doc()) + "\n" + json.dumps(_doc(topics={"t0": "x"})) + "\n")
    with pytest.raises(FormatError, match=r"bad.jsonl:2: topics.t0"):
        list(load_problems(bad))
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(FormatError, match="not valid JSON"):
        load_problem(broken)


def test_assignment_json_and_equality():
    a = Assignment.of({"c0": [("t0", 2), ("t0", 0)], "c1": {"t1": [1]}})
    b = assignment_from_json(assignment_to_json(a))
    assert a == b and a.as_lists() == {"c0": {"t0": [0, 2]}, "c1": {"t1": [1]}}
    assert a != Assignment.of({"c0": [("t0", 0), ("t0", 0), ("t0", 2)], "c1": {"t1": [1]}})
    assert assignment_from_json({"c0": {"t0": [1]}}) == Assignment.of({"c0": [("t0", 1)]})
    with pytest.raises(FormatError, match=r"assignment.c0.t0\[0\]"):
        assignment_from_json({"format": 1, "assignment": {"c0": {"t0": ["a"]}}})


def test_model_is_immutable_and_compact():
    m = Member("c", {"t"}, {"t": range(1_000_000)})
    p = Problem({"t": 1_000_000}, [m])
    assert p.members[0].owned["t"].nbytes == 4_000_000  # int32, one array, no per-partition objects
    with pytest.raises(ValueError):
        p.members[0].owned["t"][0] = 5
    with pytest.raises(AttributeError):
        p.members = ()  # type: ignore[misc]


def test_a_campaign_manifest_is_written_once_and_checked_on_resume(tmp_path):
    import pytest

    from assigncheck.formats.documents import open_manifest
    from assigncheck.spec.errors import InputError

    path = tmp_path / "campaign.json"
    doc = {"kind": "campaign-manifest", "campaign": {"seed": 1, "shards": 4}}
    flags = {"seed": "--seed", "shards": "--shards"}
    open_manifest(path, doc, flags)
    written = path.read_text()
    open_manifest(path, doc, flags)  # the same campaign resumes
    assert path.read_text() == written
    with pytest.raises(InputError) as e:
        open_manifest(path, {**doc, "campaign": {"seed": 1, "shards": 8}}, flags)
    assert e.value.path == "--shards" and "started with 4" in str(e.value)
    path.write_text("not json")
    with pytest.raises(InputError) as e:
        open_manifest(path, doc, flags)
    assert e.value.path == str(path)


def test_a_read_problem_names_its_topics_by_the_shared_tables_objects():
    """Topic names read from JSON are the very objects the shared topic tables hold (`TopicTable.of`, cached), even
    when a table of the same names was made first from other, equal strings: whole-group passes then find a member's
    topics by identity (`spec.native` `subscription_rows`)."""
    names = tuple(sorted("".join(["topic-", c]) for c in "xyz"))  # equal to the document's names, not interned
    TopicTable.of(names)
    doc = {"format": 1, "topics": {n: 2 for n in names},
           "members": [{"id": f"m{i}", "subscription": list(names[i:])} for i in range(3)]}
    for _ in range(2):  # a second read gets the objects the first one left in the tables
        problem = problem_from_json(json.loads(json.dumps(doc)))
        codes = topic_sizes(problem)[0].code
        held = {id(n) for n in codes}
        assert codes == {n: i for i, n in enumerate(names)}
        assert all(id(t) in held for m in problem.members for t in m.subscription)
