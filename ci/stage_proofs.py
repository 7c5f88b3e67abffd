"""Gate stage `proofs`: Z3 bounded proofs for a built-in assignor that has a symbolic model (each
counterexample replayed on the real code), small-scope exhaustive checking for every other target."""

from __future__ import annotations

import time

from assigncheck.ci.gate import Context, problem_kind, target_spec
from assigncheck.ci.results import Finding, StageResult
from assigncheck.spec.promises import Assignor
from assigncheck.spec.violations import Violation

# Bounds that finish within the quick profile's budget on 2 cores; `full` goes further.
PROOF_BOUND = {"quick": (3, 4, 2, 2), "full": (4, 6, 2, 2)}
EXHAUSTIVE_BOUND = {"quick": (2, 3, 2, 1), "full": (3, 3, 2, 2)}


def _model_for(target: Assignor) -> object | None:
    from assigncheck.impl import registry
    from assigncheck.verify.models import MODELS

    for model in MODELS.values():
        if model.protocol == "eager" and model.assignor == target.name and target is registry.get(target.name):
            return model
    return None


def _prove(target: Assignor, model: object, ctx: Context) -> StageResult:
    from assigncheck.verify.prove import Bound, prove
    from assigncheck.verify.replay import replay

    bound = Bound(*PROOF_BOUND.get(ctx.profile.name, PROOF_BOUND["quick"]))
    proof = prove(model, bound, ctx.profile.proofs_s)  # type: ignore[arg-type]
    result = StageResult("proofs", target.name, checked=tuple(proof.outcomes))
    for outcome in proof.counterexamples:
        seen = replay(model, outcome.problem)  # type: ignore[arg-type]
        violation = seen[0] if seen else Violation(outcome.invariant, "the Z3 model breaks it; the code does not")
        note = f"Z3 model {proof.model} refutes {outcome.invariant} at shape {outcome.shape}"
        path = ctx.save_reproducer("proofs", target_spec(target), outcome.invariant, outcome.problem, note)
        result.findings.append(Finding("proofs", target.name, outcome.invariant,
                                       f"{outcome.invariant} refuted at {outcome.shape}; on the code: {violation}",
                                       reproducer=path))
    proved = sum(o.status == "proved" for o in proof.outcomes.values())
    result.stats = {"bound": str(bound), "proved": f"{proved}/{len(proof.outcomes)}",
                    "shapes": f"{proof.shapes_done}/{proof.shapes_total}"}
    return result


def _exhaust(target: Assignor, ctx: Context) -> StageResult:
    from assigncheck.verify.exhaustive import exhaust
    from assigncheck.verify.prove import Bound

    bound = Bound(*EXHAUSTIVE_BOUND.get(ctx.profile.name, EXHAUSTIVE_BOUND["quick"]))
    found = exhaust(target, bound, seconds=ctx.profile.proofs_s, max_findings=5)
    result = StageResult("proofs", target.name, checked=("exhaustive",))
    first: dict[str, tuple] = {}
    for problem, violation in found.findings:  # one reproducer per invariant: the smallest problem, found first
        first.setdefault(violation.invariant, (problem, violation))
    for problem, violation in first.values():
        note = f"{violation.message} (small-scope exhaustive, {bound})"
        path = ctx.save_reproducer("proofs", target_spec(target), violation.invariant, problem, note)
        result.findings.append(Finding.of("proofs", target.name, violation, reproducer=path))
    result.stats = {"bound": str(bound), "problems": found.checked, "complete": found.complete}
    return result


def run(target: Assignor, ctx: Context) -> StageResult:
    started = time.monotonic()
    if problem_kind(target) == "streams":  # no symbolic model or enumeration of Streams task problems yet
        result = StageResult("proofs", target.name, stats={"skipped": "streams task problems"})
    else:
        model = _model_for(target)
        result = _prove(target, model, ctx) if model is not None else _exhaust(target, ctx)
    result.seconds = time.monotonic() - started
    return result
