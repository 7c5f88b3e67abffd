"""A model's counterexample, replayed on the Python implementation and kept as a regression vector; and the
model checked against the code on sampled problems of a bound (`conformance`)."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from assigncheck.impl import registry
from assigncheck.spec.check import check_assignor, run_assignor
from assigncheck.spec.model import Assignment, Member, Problem
from assigncheck.spec.promises import Assignor
from assigncheck.spec.violations import Violation

from .models.base import Model
from .prove import Bound, Outcome, topic_vectors


def replay(model: Model, problem: Problem) -> list[Violation]:
    """What the spec says about the real assignor on the counterexample (empty: the code is fine there,
    so the model, or a deliberately broken variant of it, is what breaks)."""
    _, report = check_assignor(registry.get(model.assignor), problem)
    return list(report.violations)


def save_counterexample(model: Model, outcome: Outcome, violations: list[Violation], directory: str | Path) -> Path:
    """Write the counterexample as a reproducer of the assignor the model mirrors, under the checker's id of
    the refuted invariant (`assigncheck replay FILE` confirms it on the code; `tests/test_vectors.py` reads
    the note's first sentence)."""
    from assigncheck.spec.json_format import problem_to_json
    from assigncheck.spec.reproducer import Record, TargetRef, save
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
    which checks the Z3 property encodings against `spec.check` (fixpoint and rounds are not output checks)."""
    from assigncheck.spec.check import check_assignment

    from .instances import evaluate

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
    """Endless seeded random problems inside `bound` that `model` covers (no racks, no lag): members listed
    in a random order under random ids (and, for `sort_key` models, some static); claims either left free,
    held once or disputed by two members, or every partition held by one of the first few members (a
    previous round, newcomers holding nothing), at random generations; and now and then junk the model
    drops (a claim of a gone topic the member still subscribes to, an index past the end, an unsubscribed
    topic)."""
    rng = random.Random(seed)
    vectors = list(topic_vectors(bound.partitions, bound.topics))
    gens = [-1, *range(1, bound.generations + 1)]
    while True:
        n = rng.randint(1, bound.members)
        vector = rng.choice(vectors)
        topics = {f"t{t}": count for t, count in enumerate(vector)}
        names = list(topics)
        ids = rng.sample([f"c{k}" for k in range(2 * bound.members)], n)
        statics = rng.sample([f"i{k}" for k in range(n)], n)
        subs = [set(names) if model.equal_subscriptions else {t for t in names if rng.random() < 0.7}
                for _ in range(n)]
        owned: list[list[tuple[str, int]]] = [[] for _ in range(n)]
        holders = rng.randint(1, n)  # half the time a previous round's owners and newcomers holding nothing
        previous = rng.random() < 0.5
        for t, count in topics.items():
            for i in range(count):
                claimants = [rng.randrange(holders)] if previous else \
                    rng.sample(range(n), min(n, rng.choice((0, 0, 1, 1, 1, 2))))
                for m in claimants:
                    owned[m].append((t, i))
        # a gone topic: with equal subscriptions everyone still subscribes to it, else one member
        gone = (rng.random() < 0.2) if model.equal_subscriptions else None
        for m in range(n):
            junk = rng.random()
            if gone or gone is None and junk < 0.1:
                subs[m].add("gone")
            if junk < 0.1 and gone is not False:
                owned[m].append(("gone", rng.randint(0, 1)))
            elif junk < 0.2:
                t = rng.choice(names)
                owned[m].append((t, topics[t]))
        members = tuple(
            Member(ids[m], frozenset(subs[m]), owned[m], rng.choice(gens),
                   statics[m] if model.member_order == "sort_key" and rng.random() < 0.3 else None)
            for m in range(n)
        )
        problem = Problem(topics, members, protocol=model.protocol)  # type: ignore[arg-type]
        if any(problem.topics[t] for m in members for t in m.subscription if t in problem.topics):
            yield problem


def conformance(model: Model, assignor: Assignor, bound: Bound, *, seconds: float, seed: int = 0,
                limit: int = 500, at_least: int = 0) -> Conformance:
    """Evaluate the model and run the real assignor on sampled problems of `bound` until they differ, `limit`
    problems agreed or `seconds` passed (but not before `at_least` problems, so a loaded machine still checks
    the same first problems): a proof about the model covers the code only where they agree."""
    from .instances import evaluate

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

    from .instances import evaluate

    try:
        expected = evaluate(model, problem)
    except InputError:
        return False
    try:
        return run_assignor(assignor, problem, budget_s=5.0) != expected
    except Exception:  # noqa: BLE001 - a crash on a problem the model answers is a disagreement
        return True
