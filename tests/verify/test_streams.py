"""The Z3 model of `streams-sticky` (verify/models/streams.py): proofs within a bound, counterexamples that
replay, model against code, and the gate's proofs stage on Streams targets."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import z3

from assigncheck.ci.context import PROFILES, Context
from assigncheck.ci.stages import proofs
from assigncheck.impl.streams import assign_streams
from assigncheck.spec.model import Assignment, Client, StreamsProblem, iter_pairs
from assigncheck.spec.promises import Promises
from assigncheck.spec.streams_checks import check_streams
from assigncheck.targets import registry
from assigncheck.verify.models import streams as model

SMALL = model.StreamsBound(2, 3, 2, 2)


def forgets_previous_actives(inp: model.StreamsInputs) -> list[list[z3.BoolRef]]:
    """A deliberately broken variant: the model as if nobody had claimed anything (no stickiness)."""
    nothing = [[z3.BoolVal(False)] * len(row) for row in inp.active]
    return model.assign(model.StreamsInputs(inp.shape, nothing, inp.standby))


class HighestIndexFirst:
    """Every Streams invariant held, but the hand-out takes the highest index: differs from the model."""

    name = "streams-highest-first"
    problem_kind = "streams"
    promises = Promises()

    def assign(self, problem: StreamsProblem) -> Assignment:
        mirrored = {s: n for s, n in problem.subtopologies.items()}

        def flip(claims: object) -> dict[str, list[int]]:
            return {s: [mirrored[s] - 1 - i if 0 <= i < mirrored.get(s, 0) else i for i in idx.tolist()]  # junk stays
                    for s, idx in claims.items()}  # type: ignore[attr-defined]

        flipped = StreamsProblem(problem.subtopologies, tuple(Client(c.client_id, c.capacity, flip(c.active),
                                                                     flip(c.standby)) for c in problem.clients))
        out = assign_streams(flipped)
        return Assignment.of({c: [(s, mirrored[s] - 1 - i) for s, i in iter_pairs(out.get(c))] for c in out.by_member})


class DropsATask:
    """streams-sticky losing its first client's first task when there are three or more tasks."""

    name = "streams-drops"
    problem_kind = "streams"
    promises = Promises()

    def assign(self, problem: StreamsProblem) -> Assignment:
        out = {c: list(iter_pairs(tasks)) for c, tasks in assign_streams(problem).by_member.items()}
        if problem.task_count >= 3 and out:
            first = min(out)
            out[first] = out[first][1:]
        return Assignment.of(out)


def test_the_model_proves_every_streams_invariant_within_a_small_bound():
    proof = model.prove_streams(SMALL, 120)
    assert proof.shapes_done == proof.shapes_total == len(model.shapes(SMALL)) > 10
    assert {n: o.status for n, o in proof.outcomes.items()} == dict.fromkeys(model.INVARIANTS, "proved")


def test_a_broken_variant_is_refuted_and_its_counterexample_breaks_it_but_not_the_code():
    proof = model.prove_streams(SMALL, 120, assign_fn=forgets_previous_actives)
    sticky = proof.outcomes["streams.sticky"]
    assert sticky.status == "counterexample" and sticky.problem is not None
    assert proof.outcomes["streams.active_once"].status == "proved"
    problem = sticky.problem
    inp, ids, names = model.inputs_of(problem)
    out = forgets_previous_actives(inp)
    broken = Assignment.of({cid: [(names[s], i) for (s, i), b in zip(inp.shape.tasks, row)
                                  if z3.is_true(z3.simplify(b))] for cid, row in zip(ids, out)})
    promised = registry.get("streams-sticky").promises
    assert "streams.sticky" in {v.invariant for v in check_streams(problem, broken, promised).violations}
    assert check_streams(problem, assign_streams(problem), promised).violations == ()


def test_the_model_agrees_with_the_code_and_the_reference():
    agreed, differs = model.conformance(registry.get("streams-sticky"), model.StreamsBound(3, 5, 2, 3),
                                        seconds=60, limit=120)
    assert differs is None and agreed == 120
    problems = model.sample_problems(model.StreamsBound(3, 5, 2, 3), seed=4)
    reference = __import__("assigncheck.spec.reference", fromlist=["REFERENCES"]).REFERENCES["streams"]
    for _ in range(40):
        p = next(problems)
        assert model.evaluate(p) == reference.assign(p)


def test_a_valid_assignor_that_is_not_the_model_is_told_apart():
    agreed, differs = model.conformance(HighestIndexFirst(), model.StreamsBound(3, 4, 2, 2), seconds=60)
    assert differs is not None and model.disagrees(HighestIndexFirst(), differs)
    every_promise_but_exact = Promises(task_balance="capacity", active_stickiness=True, subtopology_mix=True)
    assert check_streams(differs, HighestIndexFirst().assign(differs), every_promise_but_exact).violations == ()


def _ctx(tmp_path: Path) -> Context:
    return Context(replace(PROFILES["quick"], proofs_s=30), tmp_path)


def test_the_proofs_stage_proves_streams_sticky_and_checks_the_model_against_it(tmp_path):
    result = proofs.check_target(registry.get("streams-sticky"), _ctx(tmp_path))
    assert not result.skipped and result.error is None and result.findings == []
    assert {"streams.active_once", "streams.balance", "streams.sticky", "model.conformance"} <= set(result.checked)
    assert {"streams.standby_replicas", "streams.standby_apart", "streams.standby_stateful"} <= set(result.checked)
    assert result.stats["proved"] == "3/3" and result.stats["model_equals_code"] >= proofs.STREAMS_REPLAY_AT_LEAST
    assert result.work.done == result.work.nominal == len(model.shapes(model.StreamsBound(*proofs.STREAMS_BOUND[
        "quick"])))


class StandbyBesideActive:
    """streams-sticky's actives, plus a standby of each client's first active task on that same client."""

    name = "streams-standby-beside-active"
    problem_kind = "streams"
    promises = Promises()

    def assign(self, problem: StreamsProblem) -> Assignment:
        out = assign_streams(problem)
        first = {c: [t for t in iter_pairs(out.get(c)) if problem.stateful(t[0])][:1] for c in out.by_member}
        if not problem.num_standby_replicas:
            first = {}
        return Assignment.of({c: list(iter_pairs(out.get(c))) for c in out.by_member}, first)


def _replays(tmp_path: Path, finding: object, ref: str) -> None:
    from assigncheck.formats.reproducer import TargetRef

    doc = json.loads(Path(finding.reproducer).read_text())  # type: ignore[attr-defined]
    assert doc["kind"] == "streams"
    doc["finding"]["target"] = TargetRef(ref).to_json()
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    run = subprocess.run([sys.executable, "-m", "assigncheck.ci", "replay", str(path), "--json", "--trust"],
                         capture_output=True, text=True, timeout=300)
    assert json.loads(run.stdout)["reproduces"] is True, run.stderr


def test_the_proofs_stage_finds_a_broken_streams_target_and_the_finding_replays(tmp_path):
    result = proofs.check_target(DropsATask(), _ctx(tmp_path))
    [finding] = [f for f in result.findings if f.invariant == "streams.active_once"]
    assert result.checked == ("streams sampled",)
    _replays(tmp_path, finding, "tests.verify.test_streams:DropsATask")


def test_a_standby_beside_its_active_is_found_and_replays_in_a_fresh_process(tmp_path):
    result = proofs.check_target(StandbyBesideActive(), _ctx(tmp_path))
    assert [f.invariant for f in result.findings] == ["streams.standby_apart"]
    doc = json.loads(Path(result.findings[0].reproducer).read_text())
    assert doc["num_standby_replicas"] >= 1  # the replay needs the problem's standby count
    _replays(tmp_path, result.findings[0], "tests.verify.test_streams:StandbyBesideActive")


def test_a_valid_streams_target_that_is_not_the_model_passes(tmp_path):
    """The model is KAFKA-7203's algorithm: a correct assignor that decides otherwise does not fail the gate."""
    result = proofs.check_target(HighestIndexFirst(), _ctx(tmp_path))
    assert result.findings == [] and result.error is None
    assert result.work.done >= 100


class HighestIndexFirstExact(HighestIndexFirst):
    promises = Promises(exact="streams")


def test_a_target_promising_the_model_is_held_to_it_and_the_finding_replays(tmp_path):
    result = proofs.check_target(HighestIndexFirstExact(), _ctx(tmp_path))
    [finding] = result.findings
    assert finding.invariant == "exact" and "model.conformance" in result.checked
    _replays(tmp_path, finding, "tests.verify.test_streams:HighestIndexFirstExact")


def test_code_placing_a_standby_differs_from_the_model():
    """The model places no standby (KAFKA-7203): a standby in the code's output is a model-versus-code difference."""
    problem = StreamsProblem({"s0": 2}, (Client("a", 1), Client("b", 1)), num_standby_replicas=1)
    assert not model.disagrees(registry.get("streams-sticky"), problem)
    assert model.disagrees(StandbyBesideActive(), problem)
