"""Document checks and size limits of the format, and writes that never replace a non-file."""

from __future__ import annotations

import json
import os
import stat
import time

import pytest

from assigncheck.formats import documents
from assigncheck.formats.documents import (
    assignment_from_json,
    check_writable,
    load_assignment,
    load_problem,
    problem_from_json,
    write_atomic,
)
from assigncheck.generate.scenario import scenario_from_json
from assigncheck.spec import limits
from assigncheck.spec.errors import FormatError, InputError
from assigncheck.spec.promises import Promises


def _problem(**over):
    return {"format": 1, "topics": {"t": 2}, "members": [{"id": "a", "subscription": ["t"]}], **over}


@pytest.mark.parametrize("version", [1.0, True, "1", [1], 2, 0])
def test_format_must_be_the_integer_1(version):
    with pytest.raises(FormatError) as e:
        problem_from_json(_problem(format=version))
    assert e.value.path == "format"
    with pytest.raises(FormatError, match="format"):
        assignment_from_json({"format": version, "assignment": {}})
    with pytest.raises(FormatError, match="must be the integer 1"):
        scenario_from_json({"format": version, "kind": "scenario", "initial": _problem(), "steps": []})


def _lag(reset):
    return {"auto_offset_reset": reset, "offsets": {"t": {"begin": [0, 0], "end": [5, 5], "committed": [9, None]}}}


def test_auto_offset_reset_is_one_of_kafkas_values():
    """KAFKA-5337 (docs/SPEC.md §7.3): only `latest` means lag 0 without a commit."""
    with pytest.raises(FormatError) as e:
        problem_from_json(_problem(lag=_lag("Latest")))  # used to be read as "any other value": earliest
    assert e.value.path == "lag.auto_offset_reset" and "latest, earliest, none" in e.value.message
    for reset, lags in (("latest", [0, 0]), ("earliest", [0, 5]), ("none", [0, 5])):
        assert problem_from_json(_problem(lag=_lag(reset))).lag.lag("t").tolist() == lags
    # A committed offset past the end stays readable (the project's generators make them on purpose): lag 0.


def test_two_billion_partitions_are_refused_before_anything_is_allocated():
    started = time.perf_counter()
    with pytest.raises(InputError) as e:
        problem_from_json(_problem(topics={"t": 2**31 - 1}))
    assert time.perf_counter() - started < 1.0  # refused up front, not after a 16 GiB allocation
    assert e.value.path == "topics" and "2,147,483,647 partitions" in e.value.message
    with pytest.raises(InputError, match="partitions in total"):  # many topics, each under the limit
        problem_from_json(_problem(topics={f"t{i}": 4_000_000 for i in range(3)}))


def test_streams_tasks_clients_members_and_topics_are_bounded():
    with pytest.raises(InputError) as e:
        problem_from_json({"format": 1, "kind": "streams", "subtopologies": {"s": 10**8}, "clients": []})
    assert e.value.path == "subtopologies" and "100,000,000 tasks" in e.value.message
    many = [{"id": f"m{i}", "subscription": []} for i in range(limits.MAX_MEMBERS + 1)]
    with pytest.raises(InputError, match=r"^members: asks for 100,001 members"):
        problem_from_json(_problem(members=many))
    with pytest.raises(InputError, match=r"^topics: asks for 100,001 topics"):
        problem_from_json(_problem(topics={f"t{i}": 0 for i in range(limits.MAX_TOPICS + 1)}))
    clients = [{"id": f"c{i}", "capacity": 1} for i in range(limits.MAX_MEMBERS + 1)]
    with pytest.raises(InputError, match=r"^clients: asks for"):
        problem_from_json({"format": 1, "kind": "streams", "subtopologies": {"s": 1}, "clients": clients})


def test_claims_and_outputs_are_bounded_like_partitions(monkeypatch):
    monkeypatch.setattr(documents, "MAX_PARTITIONS", 5)
    owned = {"t": [0, 0, 0, 1, 1, 1]}  # junk repeats count: each is a row the checks must process
    with pytest.raises(InputError, match="6 owned partitions in total"):
        problem_from_json(_problem(members=[{"id": "a", "subscription": ["t"], "owned": owned}]))
    with pytest.raises(InputError, match="6 assigned partitions in total"):
        assignment_from_json({"format": 1, "assignment": {"a": owned}})
    with pytest.raises(InputError, match="active and standby tasks"):
        problem_from_json({"format": 1, "kind": "streams", "subtopologies": {"s": 2},
                           "clients": [{"id": "A", "capacity": 1, "active": {"s": [0, 1, 0]},
                                        "standby": {"s": [1, 0, 1]}}]})


def test_a_scenario_cannot_grow_past_the_limits():
    doc = {"format": 1, "kind": "scenario", "initial": _problem(),
           "steps": [{"add_partitions": {"topic": "t", "count": 2**31 - 1}}]}
    with pytest.raises(InputError) as e:
        scenario_from_json(doc)
    assert e.value.path == "steps[0].add_partitions.count" and "partitions in total" in e.value.message


def test_the_limits_admit_every_benchmark():
    # benchmarks/: 2000 members x 1 M partitions over 500 topics (a 52 MB pretty-printed problem), the
    # `large` profile's 4000 members, 10,000 Streams tasks over 1000 clients.
    assert limits.MAX_PARTITIONS >= 1_000_000 and limits.MAX_MEMBERS >= 4000 and limits.MAX_TOPICS >= 500
    assert limits.MAX_TASKS >= 10_000 and limits.MAX_INPUT_BYTES >= 2 * 52_653_593


def test_the_duplicate_member_of_issue_16_is_refused_not_judged(tmp_path):
    # "c1" listed twice: the last entry won, the violating first one vanished, and `check` said OK.
    path = tmp_path / "a.json"
    path.write_text('{"format":1,"assignment":{"c1":{"orders":[99]},"c0":{},"c1":{"orders":[0,1,2]}}}')
    with pytest.raises(FormatError) as e:
        load_assignment(path)
    assert e.value.path == f"{path}: assignment" and "'c1'" in e.value.message


def test_a_problem_where_an_assignment_goes_says_so():
    with pytest.raises(FormatError) as e:
        assignment_from_json(_problem())
    assert e.value.path == "assignment" and "not an assignment document" in e.value.message
    assert assignment_from_json({"format": {"t": [0]}}).get("format")["t"].tolist() == [0]  # a member "format"


def test_errors_from_a_file_name_it(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(_problem(topics={"t": 2**31 - 1})))
    with pytest.raises(InputError) as e:
        load_problem(path)
    assert e.value.path == f"{path}: topics"


def test_json_lines_are_cut_at_newlines_only(tmp_path):
    path = tmp_path / "p.jsonl"
    one = json.dumps(_problem(members=[{"id": "a\u2028b", "subscription": ["t"]}]), ensure_ascii=False)
    path.write_text(one + "\n" + one + "\n")
    assert [p.members[0].member_id for p in documents.load_problems(path)] == ["a\u2028b"] * 2


def test_promises_need_a_value_where_one_is_meant():
    for text, message in (("balance=", "balance needs a value"), ("stickiness=", "stickiness needs a value"),
                          ("exact=", "exact needs a value"), ("exact=nothing", "exact must name a reference")):
        with pytest.raises(InputError, match=message):
            Promises.parse(text)
    assert Promises.parse("fixpoint,exact=range") == Promises(fixpoint=True, exact="range")


# ---- writes ------------------------------------------------------------------------------------------


def test_a_device_is_never_replaced_by_a_write():
    before = os.stat("/dev/full")
    for path in ("/dev/full", "/dev/null"):
        with pytest.raises(InputError, match="is a character device; assigncheck writes only regular files"):
            write_atomic(path, "{}\n")
    after = os.stat("/dev/full")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_writes_refuse_directories_and_impossible_paths_and_accept_files(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        write_atomic(tmp_path, "x")
    (tmp_path / "file").write_text("old")
    for impossible in (tmp_path / "file" / "under-a-file.json", "/proc/no-such-dir/x.json"):
        with pytest.raises(InputError, match="cannot be written"):
            write_atomic(impossible, "x")
    write_atomic(tmp_path / "file", "new")
    write_atomic(tmp_path / "new" / "deep" / "f.json", "x")
    assert (tmp_path / "file").read_text() == "new" and (tmp_path / "new" / "deep" / "f.json").read_text() == "x"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "new"]  # no temporary left behind


def test_check_writable_changes_nothing_and_names_the_problem(tmp_path):
    (tmp_path / "f").write_text("x")
    cases = [(tmp_path / "f", True, "is a regular file"), (tmp_path, False, "is a directory"),
             ("/dev/full", False, "is a character device"), ("/proc/x", True, "cannot be written"),
             (tmp_path / "f" / "sub", True, "cannot be written"), ("", False, "is not a file name")]
    for path, directory, message in cases:
        with pytest.raises(InputError, match=message):
            check_writable(path, directory=directory)
    check_writable(tmp_path / "a" / "b", directory=True)
    check_writable(tmp_path / "a" / "c.json")
    assert [p.name for p in tmp_path.iterdir()] == ["f"]  # nothing created, no probe left
