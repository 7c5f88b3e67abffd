"""A model's counterexample, replayed on the Python implementation and kept as a regression vector."""

from __future__ import annotations

from pathlib import Path

from assigncheck.impl import registry
from assigncheck.spec.check import check_assignor
from assigncheck.spec.json_format import save_problem
from assigncheck.spec.model import Problem
from assigncheck.spec.violations import Violation

from .models.base import Model
from .prove import Outcome


def replay(model: Model, problem: Problem) -> list[Violation]:
    """What the spec says about the real assignor on the counterexample (empty: the code is fine there,
    so the model, or a deliberately broken variant of it, is what breaks)."""
    _, report = check_assignor(registry.get(model.assignor), problem)
    return list(report.violations)


def save_counterexample(model: Model, outcome: Outcome, violations: list[Violation], directory: str | Path) -> Path:
    """Write the counterexample as a problem JSON whose note names the model, the invariant, the shape
    and what the replay on the implementation found (`tests/test_vectors.py` reads the note)."""
    assert outcome.problem is not None
    found = "; ".join(sorted({str(v) for v in violations})) or "no violation (the model alone breaks it)"
    # tests/test_vectors.py convention: the first sentence names the assignor
    note = (
        f"assignor: {model.assignor}. Z3 model {model.name} refutes {outcome.invariant} at shape {outcome.shape}; "
        f"replay on impl: {found}"
    )
    safe = model.name.replace(":", "-")
    return save_problem(outcome.problem, Path(directory) / f"prove-{safe}-{outcome.invariant}.json", note=note)


def model_violations(model: Model, problem: Problem) -> list[Violation]:
    """The spec's verdict on the *model's* output for `problem`: a counterexample must show up here too,
    which checks the Z3 property encodings against `spec.check` (fixpoint and rounds are not output checks)."""
    from assigncheck.spec.check import check_assignment

    from .instances import evaluate

    report = check_assignment(problem, evaluate(model, problem), registry.get(model.assignor).promises)
    return list(report.violations)
