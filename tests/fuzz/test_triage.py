"""Targets, delta debugging and reproducers: the planted bugs are caught, shrunk and written to disk."""

from __future__ import annotations

import base64
import json
from dataclasses import replace

from assigncheck.findings.minimize import minimize
from assigncheck.findings.reproducers import file_name
from assigncheck.formats.documents import load_problem
from assigncheck.formats.reproducer import legacy_note_fields, record_of
from assigncheck.formats.wire import Subscription, encode_subscription
from assigncheck.fuzz.decode import encode_problem
from assigncheck.fuzz.harness import AssignorTarget, CodecTarget, Hit, load
from assigncheck.spec.model import Member, Problem

CEILING = "tests.fixtures.broken_assignors:CeilingForAllSticky"
BOTH_KEEP = "tests.fixtures.broken_assignors:SameGenerationBothKeep"


def _ceiling_problem() -> Problem:
    """6 members on 7 partitions (ceiling 2, one extra slot): three owners keep 2 each, so two members get
    nothing; plus noise (racks, an empty topic, junk claims) for the minimizer to remove."""
    owned = {"m1": {"t": [0, 1, 2]}, "m2": {"t": [3, 4]}, "m3": {"t": [5, 6], "zz": [1]}}
    members = tuple(Member(f"m{i}", frozenset({"t", "u"}), owned.get(f"m{i}", {"u": [5]}), 2, None, f"r{i % 2}")
                    for i in range(6))
    return Problem({"t": 7, "u": 0}, members, partition_racks={"t": [["r0"]] * 7, "u": []})


def test_the_ceiling_bug_is_found_and_minimized_to_three_members():
    target = AssignorTarget(CEILING)
    problem = _ceiling_problem()
    assert target.reproduces(problem, "balance.perfect")
    small = minimize(problem, lambda p: target.reproduces(p, "balance.perfect"), seconds=30)
    assert len(small.members) <= 3 and target.reproduces(small, "balance.perfect")
    assert small.partition_racks is None and all(m.rack is None for m in small.members)  # noise removed


def test_run_decodes_bytes_and_reports_every_violation():
    target = load(BOTH_KEEP)
    same_gen = Problem({"t": 2}, (Member("a", {"t"}, {"t": [0]}, 3), Member("b", {"t"}, {"t": [0]}, 3)))
    findings = target.run(encode_problem(same_gen))
    assert "H4" in {f.violation.invariant for f in findings}
    assert target.run(encode_problem(Problem({"t": 2}, (Member("a", {"t"}, {"t": [0]}, 3),)))) == []


def test_outside_the_declared_domain_nothing_is_checked():
    target = AssignorTarget(CEILING)  # equal subscriptions only
    unequal = Problem({"t": 4, "u": 1}, (Member("a", {"t"}, {"t": [0, 1]}), Member("b", {"t", "u"}, {"t": [2, 3]}),
                                        Member("c", {"t"})))
    assert not target.applies(unequal) and target.check(unequal) == []


def test_eager_only_assignors_get_every_input_as_eager():
    target = AssignorTarget(BOTH_KEEP)
    data = encode_problem(Problem({"t": 1}, (Member("a", {"t"}),), "cooperative"))
    assert [p.protocol for p in target.problems(data)] == ["eager"]
    assert AssignorTarget(BOTH_KEEP, cooperative=True).problems(data)[0].protocol == "cooperative"


def test_a_finding_is_written_minimized_once_and_its_note_carries_the_input(tmp_path):
    target = AssignorTarget(CEILING)
    problem = _ceiling_problem()
    data = encode_problem(problem)
    hit = Hit(CEILING, target.check(problem)[0], problem, data)
    recorded = target.file(hit, tmp_path, seed=9, minimize_s=30)
    path = recorded.path
    assert recorded.new and path.name.startswith("fuzz-tests.fixtures.broken_assignors_CeilingForAllSticky-"
                                                  "balance.perfect-")
    saved = load_problem(path)
    assert len(saved.members) <= 3 and target.reproduces(saved, "balance.perfect")
    rec = record_of(json.loads(path.read_text()))
    assert rec.target.spec == CEILING and rec.invariant == "balance.perfect" and rec.seed == 9
    assert rec.budget_s == target.budget_s and rec.stage == "fuzz"
    assert rec.signature == Hit(CEILING, hit.violation, saved, data).signature == recorded.signature
    assert path == tmp_path / file_name("fuzz", CEILING, "balance.perfect", rec.signature)
    assert rec.input == "base64:" + base64.b64encode(data).decode()
    assert "member counts" in rec.message
    assert json.loads(path.read_text())["note"].startswith(f"assignor: {CEILING}. ")  # test_vectors.py's convention
    again = target.file(hit, tmp_path)
    assert (again.path, again.new) == (path, False)  # the same signature: a duplicate
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary files left behind
    rackless = problem.replace(partition_racks=None, members=tuple(replace(m, rack=None) for m in problem.members))
    again = target.file(Hit(CEILING, target.check(rackless)[0], rackless, data), tmp_path, minimize_s=30)
    assert (again.path, again.new) == (path, False)  # another raw shape that shrinks to it: named, never deleted
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_older_notes_still_name_their_target_and_keep_semicolons_in_the_message():
    assert legacy_note_fields("sticky, KAFKA-1234") == {}
    fields = legacy_note_fields("fuzz finding; target=a:b; invariant=H4; message=x; y=z")
    assert fields == {"target": "a:b", "invariant": "H4", "message": "x; y=z"}
    rec = record_of({"note": "gate finding; target=range; invariant=H8; stage=s; seed=3; message=m"})
    assert rec.target.spec == "range" and rec.invariant == "H8" and rec.seed == 3


def test_codec_targets_accept_junk_and_check_the_round_trip():
    target = CodecTarget("codec:subscription")
    assert target.run(b"\x00") is None  # a WireFormatError is the right answer to junk
    assert target.run(encode_subscription(Subscription(("t",), b"u", (("t", (1,)),), 2, "r", 3))) is None


def test_a_scenario_input_checks_every_round_it_reaches():
    target = AssignorTarget(BOTH_KEEP)
    base = encode_problem(Problem({"t": 3}, (Member("a", {"t"}), Member("b", {"t"}))))
    # header bit4 (scenario), then after the problem: 2 steps, "leave" member 0, "add_partitions" to t00 (+2)
    data = bytes([base[0] | 16]) + base[1:] + bytes([2, 1, 0, 5, 0, 2])
    reached = target.problems(data)
    assert [len(p.members) for p in reached] == [2, 1, 1]
    assert [p.topics["t00"] for p in reached] == [3, 3, 5]
    assert reached[1].members[0].owned  # later rounds carry the previous output as claims


def test_the_problem_kind_comes_from_the_target_not_its_name():
    from assigncheck.fuzz.harness import kind_of
    from assigncheck.spec.model import StreamsProblem

    alias = "tests.fixtures.broken_assignors:TaskAssignorAlias"
    assert kind_of(alias) == "streams" and kind_of("range") == "consumer" and kind_of("codec:sticky") == "consumer"
    target = AssignorTarget(alias)
    assert target.kind == "streams" and isinstance(target.problems(b"\x01\x02\x03")[0], StreamsProblem)


def test_an_input_that_decodes_like_an_earlier_one_is_not_judged_again():
    target = load(BOTH_KEEP)
    data = encode_problem(Problem({"t": 2}, (Member("a", {"t"}, {"t": [0]}, 3), Member("b", {"t"}, {"t": [0]}, 3))))
    assert target.run(data)
    assert target.run(data + b"\xff" * 40) == []  # bytes the decoder never reads: the same problem, judged
    assert load(BOTH_KEEP).run(data + b"\xff" * 40)  # a fresh target judges it
