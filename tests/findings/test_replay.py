"""`assigncheck replay FILE`: exit 1 while the recorded violation reproduces, 0 once it no longer does."""

from __future__ import annotations

import base64
import json

from assigncheck.ci.cli import main
from assigncheck.formats.documents import save_problem, write_atomic
from assigncheck.spec.model import Member, Problem

CEILING = "tests.fixtures.broken_assignors:CeilingForAllSticky"


def _reproducer(tmp_path):
    """A file written by hand, naming a module of the tests: replayed with --trust (`tests/findings/test_consent.py`
    has the files this machine wrote, which need none)."""
    problem = Problem({"t": 4}, (Member("a", {"t"}, {"t": [0, 1]}), Member("b", {"t"}, {"t": [2, 3]}),
                                 Member("c", {"t"})))
    note = f"fuzz finding; target={CEILING}; invariant=balance.perfect; signature=x; seed=1; input=base64:; message=m"
    return save_problem(problem, tmp_path / "r.json", note=note)


def test_replay_confirms_a_reproducer(tmp_path, capsys):
    assert main(["replay", str(_reproducer(tmp_path)), "--trust"]) == 1
    assert "reproduces: balance.perfect" in capsys.readouterr().out


def test_replay_json_carries_the_output_that_reproduced_it(tmp_path, capsys):
    """What the target gave on the problem, for the reports to show beside it (none once it no longer reproduces)."""
    path = str(_reproducer(tmp_path))
    assert main(["replay", path, "--json", "--trust"]) == 1
    answer = json.loads(capsys.readouterr().out)
    counts = {m: sum(map(len, topics.values())) for m, topics in answer["output"]["assignment"].items()}
    assert sorted(counts) == ["a", "b", "c"] and max(counts.values()) - min(counts.values()) > 1
    assert main(["replay", path, "--json", "--target", "tests.fixtures.broken_assignors:SameGenerationBothKeep"]) == 0
    assert json.loads(capsys.readouterr().out)["output"] is None


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
    assert main(["replay", str(path), "--minimize", str(out), "--trust"]) == 1
    small = json.loads(out.read_text())
    assert len(small["members"]) < len(problem.members) and "minimized" in small["note"]
    assert main(["replay", str(out)]) == 1  # the minimized file still reproduces, by itself (written here: no flag)


def test_replay_of_a_model_conformance_finding_compares_model_and_code(tmp_path, capsys):
    swapped = "tests.fixtures.broken_assignors:RangeFirstLastSwapped"
    problem = Problem({"t": 3}, (Member("a", {"t"}), Member("b", {"t"})))
    note = f"gate finding; target={swapped}; invariant=model.conformance; stage=proofs; seed=0; message=m"
    path = save_problem(problem, tmp_path / "c.json", note=note)
    assert main(["replay", str(path), "--trust"]) == 1
    assert "reproduces: model.conformance" in capsys.readouterr().out
    assert main(["replay", str(path), "--target", "range"]) == 0  # the real range agrees with its model
    assert main(["replay", str(path), "--target", "lag"]) == 2  # no model of lag: a clear error, exit 2
    assert "--target" in capsys.readouterr().err


def test_every_kind_of_finding_has_a_replay_that_loads():
    from assigncheck.findings.replay import KINDS, kind_of
    from assigncheck.formats.reproducer import Record, TargetRef
    from assigncheck.impl import import_attr

    ref = TargetRef("range")
    records = [None, Record(ref, "H4"), Record(ref, "H8", extra={"processes": {}}),
               Record(ref, "scale.time", extra={"scale": {}}), Record(ref, "model.conformance"),
               Record(ref, "H1", extra={"live": {}})]
    assert {kind_of(r) for r in records} | {"codec"} == set(KINDS)
    assert all(callable(import_attr(where, "finding")) for where in KINDS.values())


def test_replay_json_has_each_kinds_keys(tmp_path, capsys):
    ordinary = str(_reproducer(tmp_path))
    codec = tmp_path / "codec.json"
    write_atomic(codec, json.dumps({"target": "codec:subscription", "invariant": "codec.crash",
                                    "input_base64": base64.b64encode(b"\x00").decode()}))
    model = save_problem(Problem({"t": 3}, (Member("a", {"t"}), Member("b", {"t"}))), tmp_path / "c.json",
                         note="gate finding; target=tests.fixtures.broken_assignors:RangeFirstLastSwapped; "
                              "invariant=model.conformance; stage=proofs; seed=0; message=m")
    keys = {}
    for name, path in (("check", ordinary), ("codec", codec), ("model", model)):
        main(["replay", str(path), "--json", "--trust"])
        keys[name] = list(json.loads(capsys.readouterr().out))
    assert keys == {"check": ["file", "target", "invariant", "reproduces", "summary", "violations", "output"],
                    "codec": ["file", "target", "reproduces", "summary"],
                    "model": ["target", "invariant", "reproduces", "summary"]}


def test_a_model_finding_on_a_target_no_other_process_can_load_is_replayed_by_its_kind_in_this_process(tmp_path):
    from assigncheck.findings.confirm import Filing, confirm, loadable
    from assigncheck.findings.finding import Finding
    from assigncheck.formats.documents import problem_to_json
    from assigncheck.formats.reproducer import Record, TargetRef, save
    from tests.fixtures.broken_assignors import RangeFirstLastSwapped

    class Local(RangeFirstLastSwapped):  # defined here: no other process can load it
        spec = "local-swapped"

    target = Local()
    assert not loadable(target)
    path = save(problem_to_json(Problem({"t": 3}, (Member("a", {"t"}), Member("b", {"t"})))),
                Record(TargetRef(target.spec), "model.conformance", stage="proofs"), tmp_path / "c.json", "m")
    finding = Finding("proofs", target.name, "model.conformance", "differs from its model", reproducer=str(path))
    filing = Filing(tmp_path / "reproducers", budget_s=2.0, minimize_s=6, max_candidates=8)
    (confirmed,) = confirm([finding], lambda f: target, filing, timeout_s=60)
    assert confirmed.status == "confirmed", confirmed.why
