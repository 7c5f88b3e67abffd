"""Gate stage `proofs`: Z3 bounded proofs for a built-in assignor that has a symbolic model (each
counterexample replayed on the real code), small-scope exhaustive checking for every other target."""

from __future__ import annotations

import time

from assigncheck.ci.gate import Context, target_spec
from assigncheck.ci.results import Finding, StageResult
from assigncheck.spec.promises import Assignor, problem_kind
from assigncheck.spec.violations import Violation

# Bounds that finish within the quick profile's budget on 2 cores; `full` goes further.
PROOF_BOUND = {"quick": (3, 4, 2, 2), "full": (4, 6, 2, 2)}
EXHAUSTIVE_BOUND = {"quick": (2, 3, 2, 1), "full": (3, 3, 2, 2)}
# Model-versus-code replay: the same first REPLAY_AT_LEAST sampled problems every run (about 3 s of CPU for
# the constrained models), then more while the proof left some of the stage's budget.
REPLAY_AT_LEAST = 150
MIN_REPLAY_S = 2.0
COOPERATIVE_REPLAY_S = 2.0  # cooperative-sticky: its cooperative model's replay, before the enumeration


def _model_for(target: Assignor, protocol: str = "eager") -> object | None:
    """The built-in's model; an outside target that only shares a built-in's name has none."""
    from assigncheck.impl import registry
    from assigncheck.verify.models import models_of

    models = models_of(target.name, protocol)
    return models[0] if models and target is registry.get(target.name) else None


def _prove(target: Assignor, model: object, ctx: Context) -> StageResult:
    from assigncheck.verify.prove import Bound, prove
    from assigncheck.verify.replay import replay

    started = time.monotonic()
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
    seconds = max(ctx.profile.proofs_s - (time.monotonic() - started), MIN_REPLAY_S)
    agreed = _replay(target, model, bound, seconds, ctx, result)
    result.stats = {"bound": str(bound), "proved": f"{proved}/{len(proof.outcomes)}",
                    "shapes": f"{proof.shapes_done}/{proof.shapes_total}", "model_equals_code": agreed}
    return result


def _replay(target: Assignor, model: object, bound: object, seconds: float, ctx: Context,
            result: StageResult) -> int:
    """The proof is about the model: run model and code side by side on sampled problems of the bound, and
    report the first (minimized) problem they disagree on. Returns how many problems they agreed on."""
    from assigncheck.fuzz.minimize import minimize
    from assigncheck.spec.check import differing_members
    from assigncheck.verify.instances import evaluate
    from assigncheck.verify.replay import conformance, disagrees

    found = conformance(model, target, bound, seconds=seconds, seed=ctx.seed,  # type: ignore[arg-type]
                        at_least=REPLAY_AT_LEAST)
    result.checked = (*result.checked, "model.conformance")
    if found.ok:
        return found.checked
    problem = minimize(found.problem, lambda p: disagrees(model, target, p), seconds=2.0)  # type: ignore[arg-type]
    expected = evaluate(model, problem)  # type: ignore[arg-type]
    try:
        got = target.assign(problem)
        members = ", ".join(differing_members(expected, got))
        what = f"they differ for {members}: code {got.as_lists()}, model {expected.as_lists()}"
    except Exception as e:  # noqa: BLE001 - reported, like any disagreement
        what = f"the code raised {type(e).__name__}: {e}"[:300]
    note = f"Z3 model {getattr(model, 'name', '?')} disagrees with the code ({bound}): {what}"
    path = ctx.save_reproducer("proofs", target_spec(target), "model.conformance", problem, note)
    result.findings.append(Finding("proofs", target.name, "model.conformance", note, reproducer=path))
    return found.checked - 1


def _exhaust(target: Assignor, ctx: Context) -> StageResult:
    from assigncheck.verify.exhaustive import exhaust
    from assigncheck.verify.prove import Bound

    result = StageResult("proofs", target.name, checked=("exhaustive",))
    seconds = ctx.profile.proofs_s
    cooperative = _model_for(target, "cooperative")
    if cooperative is not None:  # a model of its cooperative round only (equal subscriptions): replay it
        started = time.monotonic()
        proof_bound = Bound(*PROOF_BOUND.get(ctx.profile.name, PROOF_BOUND["quick"]))
        result.stats["model_equals_code"] = _replay(target, cooperative, proof_bound, COOPERATIVE_REPLAY_S, ctx,
                                                    result)
        seconds = max(seconds - (time.monotonic() - started), MIN_REPLAY_S)
    bound = Bound(*EXHAUSTIVE_BOUND.get(ctx.profile.name, EXHAUSTIVE_BOUND["quick"]))
    # A target speaking the cooperative protocol meets cooperative groups (each also checked against its
    # eager assignment, spec.invariants.cooperative_withhold); the budget cuts the run short, so every
    # shape is visited in turn instead of the smallest ones only.
    protocol = "cooperative" if target.promises.max_rounds else "eager"
    found = exhaust(target, bound, protocol=protocol, seconds=seconds, max_findings=5, spread=True)
    first: dict[str, tuple] = {}
    for problem, violation in found.findings:  # one reproducer per invariant: the first problem found
        first.setdefault(violation.invariant, (problem, violation))
    for problem, violation in first.values():
        note = f"{violation.message} (small-scope exhaustive, {bound})"
        path = ctx.save_reproducer("proofs", target_spec(target), violation.invariant, problem, note)
        result.findings.append(Finding.of("proofs", target.name, violation, reproducer=path))
    result.stats.update(bound=str(bound), protocol=protocol, problems=found.checked, complete=found.complete)
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
