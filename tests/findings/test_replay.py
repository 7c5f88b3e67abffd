"""`assigncheck replay FILE`: exit 1 while the recorded violation reproduces, 0 once it no longer does."""

from __future__ import annotations

import base64
import json

from assigncheck.ci.cli import main
from assigncheck.formats.documents import save_problem, write_atomic
from assigncheck.spec.model import Member, Problem

CEILING = "tests.fixtures.broken_assignors:CeilingForAllSticky"


def _reproducer(tmp_path):
    problem = Problem({"t": 4}, (Member("a", {"t"}, {"t": [0, 1]}), Member("b", {"t"}, {"t": [2, 3]}),
                                 Member("c", {"t"})))
    note = f"fuzz finding; target={CEILING}; invariant=balance.perfect; signature=x; seed=1; input=base64:; message=m"
    return save_problem(problem, tmp_path / "r.json", note=note)


def test_replay_confirms_a_reproducer(tmp_path, capsys):
    assert main(["replay", str(_reproducer(tmp_path))]) == 1
    assert "reproduces: balance.perfect" in capsys.readouterr().out


def test_replay_against_a_target_without_the_bug_exits_0(tmp_path, capsys):
    path = _reproducer(tmp_path)
    assert main(["replay", str(path), "--target", "tests.fixtures.broken_assignors:SameGenerationBothKeep"]) == 0
    assert "no longer reproduces balance.perfect" in capsys.readouterr().out


def test_replay_needs_a_target(tmp_path, capsys):
    path = save_problem(Problem({"t": 1}, (Member("a", {"t"}),)), tmp_path / "plain.json", note="a vector")
    assert main(["replay", str(path)]) == 2
    assert "--target" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.json"), "--target", "range"]) == 2


def test_replay_of_a_codec_finding(tmp_path, capsys):
    path = tmp_path / "codec.json"
    doc = {"target": "codec:subscription", "invariant": "codec.crash",
           "input_base64": base64.b64encode(b"\x00").decode()}
    write_atomic(path, json.dumps(doc))
    assert main(["replay", str(path)]) == 0  # a WireFormatError for junk is the correct answer
    assert "no longer reproduces" in capsys.readouterr().out


def test_replay_minimize_shrinks_while_the_violation_persists(tmp_path, capsys):
    # A campaign-style reproducer with bystanders: only the two same-generation claimants matter.
    bystanders = [Member(f"z{i}", {"t", "u"}, {"u": [i]}, 1) for i in range(4)]
    problem = Problem({"t": 2, "u": 6}, [Member("a", {"t"}, {"t": [0]}, 2), Member("b", {"t"}, {"t": [0]}, 2),
                                          *bystanders])
    path = save_problem(problem, tmp_path / "big.json",
                        note="campaign finding; target=tests.fixtures.broken_assignors:SameGenerationBothKeep; "
                             "invariant=H4; message=H4")
    out = tmp_path / "small.json"
    assert main(["replay", str(path), "--minimize", str(out)]) == 1
    small = json.loads(out.read_text())
    assert len(small["members"]) < len(problem.members) and "minimized" in small["note"]
    assert main(["replay", str(out)]) == 1  # the minimized file still reproduces, by itself


def test_replay_of_a_model_conformance_finding_compares_model_and_code(tmp_path, capsys):
    swapped = "tests.fixtures.broken_assignors:RangeFirstLastSwapped"
    problem = Problem({"t": 3}, (Member("a", {"t"}), Member("b", {"t"})))
    note = f"gate finding; target={swapped}; invariant=model.conformance; stage=proofs; seed=0; message=m"
    path = save_problem(problem, tmp_path / "c.json", note=note)
    assert main(["replay", str(path)]) == 1
    assert "reproduces: model.conformance" in capsys.readouterr().out
    assert main(["replay", str(path), "--target", "range"]) == 0  # the real range agrees with its model
    assert main(["replay", str(path), "--target", "lag"]) == 2  # no model of lag: a clear error, exit 2
    assert "--target" in capsys.readouterr().err
