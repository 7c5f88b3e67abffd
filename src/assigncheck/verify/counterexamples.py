"""A model's counterexample, replayed on the Python implementation and kept as a regression vector; and the
model checked against the code on sampled problems of a bound (`conformance`)."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from assigncheck.run.assignor_check import check_assignor
from assigncheck.run.calls import run_assignor
from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.promises import Assignor
from assigncheck.spec.violations import Violation
from assigncheck.targets import registry
from assigncheck.verify.models.base import Model
from assigncheck.verify.prove import Bound, Outcome, topic_vectors


def replay(model: Model, problem: Problem) -> list[Violation]:
    """What the spec says about the real assignor on the counterexample (empty: the code is fine there,
    so the model, or a deliberately broken variant of it, is what breaks)."""
    _, report = check_assignor(registry.get(model.assignor), problem)
    return list(report.violations)


def save_counterexample(model: Model, outcome: Outcome, violations: list[Violation], directory: str | Path) -> Path:
    """Write the counterexample as a reproducer of the assignor the model mirrors, under the checker's id of
    the refuted invariant (`assigncheck replay FILE` confirms it on the code; `tests/impl/test_vectors.py` reads
    the note's first sentence)."""
    from assigncheck.formats.documents import problem_to_json
    from assigncheck.formats.reproducer import Record, TargetRef, save
    from assigncheck.spec.violations import judged_as

    assert outcome.problem is not None
    found = "; ".join(sorted({str(v) for v in violations})) or "no violation (the model alone breaks it)"
    note = (
        f"assignor: {model.assignor}. Z3 model {model.name} refutes {outcome.invariant} at shape {outcome.shape}; "
        f"replay on impl: {found}"
    )
    record = Record(TargetRef(model.assignor), judged_as(outcome.invariant), stage="proofs",
                    message=f"Z3 model {model.name} refutes {outcome.invariant} at shape {outcome.shape}")
    safe = model.name.replace(":", "-")
    return save(problem_to_json(outcome.problem), record, Path(directory) / f"prove-{safe}-{outcome.invariant}.json",
                note)


def model_violations(model: Model, problem: Problem) -> list[Violation]:
    """The spec's verdict on the *model's* output for `problem`: a counterexample must show up here too,
    which checks the Z3 property encodings against `spec.assignment_check` (fixpoint and rounds are not output
    checks)."""
    from assigncheck.spec.assignment_check import check_assignment
    from assigncheck.verify.model_problems import evaluate

    report = check_assignment(problem, evaluate(model, problem), registry.get(model.assignor).promises)
    return list(report.violations)


# ---- does the model say what the code does? -----------------------------------------------------------------


@dataclass
class Conformance:
    """How many sampled problems the model and the code agreed on, and the first one they did not."""

    checked: int = 0
    problem: Problem | None = None
    model_out: Assignment | None = None
    code_out: Assignment | None = None
    error: str = ""  # the code raised instead of answering

    @property
    def ok(self) -> bool:
        return self.problem is None


def sample_problems(model: Model, bound: Bound, seed: int = 0) -> Iterator[Problem]:
    """Endless seeded random problems inside `bound` that `model` covers (`generate.build`'s problems with no racks
    and no lag, the model's protocol, equal subscriptions where it needs them, static members for `sort_key`
    models), each with a partition vector of the bound, and members listed in a random order under random ids
    so that the code's own ordering is exercised."""
    from assigncheck.generate.build import SeededChooser, Space, problem

    rng = random.Random(seed)
    choose = SeededChooser(rng)
    vectors = list(topic_vectors(bound.partitions, bound.topics))
    while True:
        space = Space(max_members=bound.members, partition_counts=rng.choice(vectors),
                      equal_subscriptions=True if model.equal_subscriptions else None, claims="any",
                      max_generation=max(1, bound.generations), racks=False, lag=False,
                      static_members=model.member_order == "sort_key", protocol=model.protocol,
                      absent_topics=None)
        drawn = problem(choose, space)
        if any(drawn.topics.get(t) for m in drawn.members for t in m.subscription):
            yield _relabel(drawn, rng, 2 * bound.members)


def _relabel(problem: Problem, rng: random.Random, ids: int) -> Problem:
    """The same problem with its members under random ids (from c0..c<ids-1>), listed in a random order."""
    names = rng.sample([f"c{k}" for k in range(ids)], len(problem.members))
    members = [replace(m, member_id=name) for m, name in zip(problem.members, names)]
    rng.shuffle(members)
    return problem.replace(members=tuple(members))


def conformance(model: Model, assignor: Assignor, bound: Bound, *, seconds: float, seed: int = 0,
                limit: int = 500, at_least: int = 0) -> Conformance:
    """Evaluate the model and run the real assignor on sampled problems of `bound` until they differ, `limit`
    problems agreed or `seconds` passed (but not before `at_least` problems, so a loaded machine still checks
    the same first problems): a proof about the model covers the code only where they agree."""
    from assigncheck.verify.model_problems import evaluate

    result = Conformance()
    deadline = time.monotonic() + seconds
    for problem in sample_problems(model, bound, seed):
        if result.checked >= limit or (result.checked >= at_least and time.monotonic() > deadline):
            break
        result.checked += 1
        expected = evaluate(model, problem)
        try:
            got = run_assignor(assignor, problem, budget_s=max(deadline - time.monotonic(), 1.0))
        except Exception as e:  # noqa: BLE001 - the code failing where the model answers is the finding
            result.problem, result.model_out, result.error = problem, expected, str(e)
            break
        if got != expected:
            result.problem, result.model_out, result.code_out = problem, expected, got
            break
    return result


def disagrees(model: Model, assignor: Assignor, problem: Problem) -> bool:
    """Whether the model and the code differ on `problem` (False outside the model's domain)."""
    from assigncheck.spec.errors import InputError
    from assigncheck.verify.model_problems import evaluate

    try:
        expected = evaluate(model, problem)
    except InputError:
        return False
    try:
        return run_assignor(assignor, problem, budget_s=5.0) != expected
    except Exception:  # noqa: BLE001 - a crash on a problem the model answers is a disagreement
        return True
