"""`assigncheck assign` and `assigncheck list` through the real CLI entry point."""

from __future__ import annotations

import json

from assigncheck.ci.cli import main
from assigncheck.formats.documents import problem_to_json, write_atomic
from assigncheck.spec.model import Member, Problem, partitions_of


def _problem_file(tmp_path):
    problem = Problem({"t1": 10}, (
        Member("C0", {"t1"}, partitions_of({"t1": range(0, 5)}), 1),
        Member("C1", {"t1"}, partitions_of({"t1": range(5, 10)}), 1),
        Member("C2", {"t1"}),
    ))
    return write_atomic(tmp_path / "p.json", json.dumps(problem_to_json(problem)))


def test_assign_prints_the_assignment_json(tmp_path, capsys):
    assert main(["assign", "--assignor", "sticky-constrained", str(_problem_file(tmp_path))]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc == {"format": 1, "assignment": {"C0": {"t1": [0, 1, 2, 3]}, "C1": {"t1": [5, 6, 7]},
                                               "C2": {"t1": [4, 8, 9]}}}


def test_target_is_a_synonym_taking_any_target_spec(tmp_path, capsys):
    path = str(_problem_file(tmp_path))
    assert main(["assign", "--target", "range", path]) == 0
    by_name = capsys.readouterr().out
    assert main(["assign", "--target", "assigncheck.impl.range:RangeAssignor", path]) == 0
    assert capsys.readouterr().out == by_name
    assert json.loads(by_name)["assignment"]["C0"] == {"t1": [0, 1, 2, 3]}


def test_unknown_assignor_and_bad_file_exit_2_with_one_line(tmp_path, capsys):
    assert main(["assign", "--assignor", "nope", str(_problem_file(tmp_path))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--assignor" in err and "roundrobin" in err
    bad = write_atomic(tmp_path / "bad.json", '{"format": 1, "topics": {"t": -1}, "members": []}')
    assert main(["assign", "--assignor", "range", str(bad)]) == 2
    assert "topics.t" in capsys.readouterr().err


def test_list_prints_every_builtin_with_its_promises(capsys):
    assert main(["list"]) == 0
    lines = dict(line.split(None, 1) for line in capsys.readouterr().out.splitlines())
    assert lines["range"] == "balance=per-topic,exact=range"
    assert "equal_subscriptions_only" in lines["sticky-constrained-4phase"]
    assert "max_rounds=2" in lines["cooperative-sticky"]
    assert len(lines) == 8


def test_outputs_do_not_depend_on_the_hash_seed(tmp_path):
    """H8 across processes: group leaders change, so no set or dict order may leak into an output."""
    import os
    import subprocess
    import sys

    topics = {f"topic-{c}": 3 + i % 4 for i, c in enumerate("qwertyuiopasdf")}
    subs = [set(list(topics)[i::2]) | {"ghost"} for i in range(2)]
    members = tuple(Member(f"m{i}", subs[i % 2] if i < 4 else set(topics), partitions_of(
        {t: [i, i + 1] for t in list(topics)[i:i + 3]}), i % 3, f"s{9 - i}" if i % 3 == 0 else None)
        for i in range(7))
    path = write_atomic(tmp_path / "p.json", json.dumps(problem_to_json(Problem(topics, members, "cooperative"))))
    code = ("import sys, json; from assigncheck.targets import registry; from assigncheck.formats.documents import "
            "load_problem, assignment_to_json; p = load_problem(sys.argv[1]); print(json.dumps({n: assignment_to_json("
            "registry.get(n).assign(p)) for n in ['range', 'roundrobin', 'sticky-constrained', "
            "'sticky-constrained-4phase', 'cooperative-sticky']}, sort_keys=True))")
    outs = {subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3")}
    assert len(outs) == 1 and "sticky-constrained" in outs.pop()
