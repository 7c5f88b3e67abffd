"""Gate stage `proofs`: Z3 bounded proofs for a built-in assignor that has a symbolic model (each
counterexample replayed on the real code, and the model checked against the code on sampled problems),
small-scope exhaustive checking for every other target."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from assigncheck.ci.context import Context
from assigncheck.ci.results import StageResult, Work
from assigncheck.ci.stages import each_target
from assigncheck.findings.confirm import Candidate, Collector, reproducers, settle
from assigncheck.findings.finding import Finding
from assigncheck.findings.signature import signature
from assigncheck.run import breaker
from assigncheck.run.interrupt import stop_if_interrupted
from assigncheck.spec.model import AnyProblem, Problem, Protocol, StreamsProblem
from assigncheck.spec.promises import Assignor, problem_kind
from assigncheck.spec.violations import Violation, judged_as

if TYPE_CHECKING:  # z3 loads only when the stage runs
    from assigncheck.verify.models.base import Model
    from assigncheck.verify.models.streams import StreamsBound
    from assigncheck.verify.prove import Bound

# Bounds that finish within the quick profile's budget on 2 cores; `full` goes further.
PROOF_BOUND = {"quick": (3, 4, 2, 2), "full": (4, 6, 2, 2)}
# The enumeration for targets without a model: 3 members, 2 known generations, junk claims; a budget cuts
# it short, so it visits every shape in turn and each shape's profiles in a seeded order (verify.exhaustive).
EXHAUSTIVE_BOUND = {"quick": (3, 3, 2, 2), "full": (3, 4, 2, 2)}
# Streams task problems (verify.models.streams): clients, tasks, sub-topologies, capacity.
# quick: 84 shapes, about 8 s of CPU on a loaded machine (z3py's term building is most of it).
STREAMS_BOUND = {"quick": (3, 3, 2, 2), "full": (3, 4, 2, 3)}
STREAMS_REPLAY_AT_LEAST = 60  # each problem's model is built and simplified: about 30 ms
# Model-versus-code replay: the same first REPLAY_AT_LEAST sampled problems every run (about 3 s of CPU for
# the constrained models), then more while the proof left some of the stage's budget.
REPLAY_AT_LEAST = 150
MIN_REPLAY_S = 2.0
COOPERATIVE_REPLAY_S = 2.0  # cooperative-sticky: its cooperative model's replay, before the enumeration


def _model_for(target: Assignor, protocol: str = "eager") -> Model | None:
    """The built-in's model; an outside target that only shares a built-in's name has none."""
    from assigncheck.targets import registry
    from assigncheck.verify.models import models_of

    models = models_of(target.name, protocol)
    return models[0] if models and target is registry.get(target.name) else None


def _prove(target: Assignor, model: Model, ctx: Context) -> StageResult:
    from assigncheck.verify.counterexamples import replay
    from assigncheck.verify.prove import Bound, prove

    started = time.monotonic()
    bound = Bound(*PROOF_BOUND.get(ctx.profile.name, PROOF_BOUND["quick"]))
    proof = prove(model, bound, ctx.profile.proofs_s)
    result = StageResult("proofs", target.name, checked=tuple(proof.outcomes), promises=target.promises.to_text())
    candidates = []
    for outcome in proof.counterexamples:
        invariant = judged_as(outcome.invariant)  # the checker's id for what the model refutes
        assert outcome.problem is not None  # a counterexample carries its problem
        on_code = [v for v in replay(model, outcome.problem) if v.invariant == invariant]
        how = f"Z3 model {proof.model} refutes {outcome.invariant} at shape {outcome.shape}"
        violation = on_code[0] if on_code else Violation(invariant, f"{how}; the code does not break it")
        candidates.append(Candidate(outcome.problem, violation, ctx.seed, how))
    result.findings = settle("proofs", target, candidates, ctx.filing)
    proved = sum(o.status == "proved" for o in proof.outcomes.values())
    seconds = max(ctx.profile.proofs_s - (time.monotonic() - started), MIN_REPLAY_S)
    agreed = _replay(target, model, bound, seconds, ctx, result)
    result.work = Work(proof.shapes_done, proof.shapes_total, "shapes")
    result.stats = {"bound": str(bound), "proved": f"{proved}/{len(proof.outcomes)}", "model_equals_code": agreed}
    return result


def _replay(target: Assignor, model: Model, bound: Bound, seconds: float, ctx: Context,
            result: StageResult) -> int:
    """The proof is about the model: run model and code side by side on sampled problems of the bound, and
    report the first (minimized) problem they disagree on. Returns how many problems they agreed on."""
    from assigncheck.findings.minimize import minimize
    from assigncheck.spec.assignment_check import differing_members
    from assigncheck.verify.counterexamples import conformance, disagrees
    from assigncheck.verify.model_problems import evaluate

    found = conformance(model, target, bound, seconds=seconds, seed=ctx.seed,
                        at_least=REPLAY_AT_LEAST)
    result.checked = (*result.checked, "model.conformance")
    if found.ok:
        return found.checked
    assert found.problem is not None  # they differ on it
    problem = minimize(found.problem, lambda p: isinstance(p, Problem) and disagrees(model, target, p), seconds=2.0)
    assert isinstance(problem, Problem)  # shrinking keeps a consumer group one
    expected = evaluate(model, problem)
    try:
        got = target.assign(problem)
        members = ", ".join(differing_members(expected, got))
        what = f"they differ for {members}: code {got.as_lists()}, model {expected.as_lists()}"
    except Exception as e:  # noqa: BLE001 - reported, like any disagreement
        what = f"the code raised {type(e).__name__}: {e}"[:300]
    _disagrees(result, target, problem, f"Z3 model {getattr(model, 'name', '?')} disagrees with the code ({bound}): "
                                        f"{what}", ctx)
    return found.checked - 1


def _disagrees(result: StageResult, target: Assignor, problem: AnyProblem, message: str, ctx: Context) -> None:
    """A model.conformance finding on `problem`, its reproducer written."""
    violation = Violation("model.conformance", message)
    sig = signature(violation, problem)
    path = reproducers(ctx.filing, "proofs", target).write(problem, violation, seed=ctx.seed, signature=sig)
    result.findings.append(Finding.of("proofs", target.name, violation, reproducer=str(path), seed=ctx.seed,
                                      signature=sig))


def _exhaust(target: Assignor, ctx: Context) -> StageResult:
    from assigncheck.run.assignor_check import check_assignor
    from assigncheck.verify.exhaustive import problems, z3_optima_violations
    from assigncheck.verify.prove import Bound

    started = time.monotonic()
    result = StageResult("proofs", target.name, checked=("exhaustive",), promises=target.promises.to_text())
    seconds = ctx.profile.proofs_s
    cooperative = _model_for(target, "cooperative")
    if cooperative is not None:  # a model of its cooperative round only (equal subscriptions): replay it
        proof_bound = Bound(*PROOF_BOUND.get(ctx.profile.name, PROOF_BOUND["quick"]))
        result.stats["model_equals_code"] = _replay(target, cooperative, proof_bound, COOPERATIVE_REPLAY_S, ctx,
                                                    result)
        seconds = max(seconds - (time.monotonic() - started), MIN_REPLAY_S)
    bound = Bound(*EXHAUSTIVE_BOUND.get(ctx.profile.name, EXHAUSTIVE_BOUND["quick"]))
    # A target speaking the cooperative protocol meets cooperative groups (each also checked against its
    # eager assignment, spec.invariants.cooperative_withhold).
    protocol: Protocol = "cooperative" if target.promises.max_rounds else "eager"
    collector = Collector(ctx.profile.max_candidates)
    deadline, checked, hangs, complete = time.monotonic() + seconds, 0, breaker.Breaker(), True
    for problem in problems(bound, protocol, equal_subscriptions=target.promises.equal_subscriptions_only,
                            gone=True, spread=True, seed=ctx.seed):
        stop_if_interrupted()
        if time.monotonic() > deadline or checked >= ctx.profile.exhaustive_problems:
            complete = False
            break
        _, report = check_assignor(target, problem, seed=ctx.seed, budget_s=ctx.profile.budget_s, oracle=True)
        violations = list(report.violations) + z3_optima_violations(problem, dict(report.quality), target.promises)
        collector.offer(problem, violations, ctx.seed, f"small-scope exhaustive, {bound}")
        checked += 1
        if hangs.count(breaker.hung(violations)):
            result.notes.append(breaker.NOTE)
            complete = False
            break
    result.findings += settle("proofs", target, collector.candidates(), ctx.filing)
    result.work = Work(checked, ctx.profile.exhaustive_problems, "problems")
    result.stats.update(bound=str(bound), protocol=protocol, complete=complete)
    return result


def _prove_streams(target: Assignor, ctx: Context) -> StageResult:
    """`streams-sticky`: its Z3 model proved within the bound, each counterexample replayed on the code, and
    model against code on sampled problems. Another Streams target promising `exact=streams` gets the model as
    its exact reference on the same sampled problems; any other is checked on them (`_sample_streams`)."""
    from assigncheck.findings.minimize import minimize
    from assigncheck.run.assignor_check import check_assignor
    from assigncheck.targets import registry
    from assigncheck.verify.models import streams as model

    started = time.monotonic()
    bound = model.StreamsBound(*STREAMS_BOUND.get(ctx.profile.name, STREAMS_BOUND["quick"]))
    builtin = target is registry.get("streams-sticky")
    if not builtin and target.promises.exact != "streams":  # the model is KAFKA-7203's: not everyone's answer
        return _sample_streams(target, bound, ctx)
    result = StageResult("proofs", target.name, promises=target.promises.to_text())
    candidates = []
    if builtin:
        proof = model.prove_streams(bound, ctx.profile.proofs_s)
        result.checked = tuple(proof.outcomes) + model.BY_CONSTRUCTION
        for outcome in proof.counterexamples:
            assert outcome.problem is not None
            _, report = check_assignor(target, outcome.problem, seed=ctx.seed, budget_s=ctx.profile.budget_s)
            on_code = [v for v in report.violations if v.invariant == outcome.invariant]
            how = f"Z3 model streams-sticky refutes {outcome.invariant} at shape {outcome.shape}"
            violation = on_code[0] if on_code else Violation(outcome.invariant, f"{how}; the code does not break it")
            candidates.append(Candidate(outcome.problem, violation, ctx.seed, how))
        proved = sum(o.status == "proved" for o in proof.outcomes.values())
        result.stats = {"bound": str(bound), "proved": f"{proved}/{len(proof.outcomes)}"}
        result.work = Work(proof.shapes_done, proof.shapes_total, "shapes")
    seconds = max(ctx.profile.proofs_s - (time.monotonic() - started), MIN_REPLAY_S)
    agreed, differs = model.conformance(target, bound, seconds=seconds, seed=ctx.seed,
                                        at_least=STREAMS_REPLAY_AT_LEAST)
    result.checked = (*result.checked, "model.conformance")
    if not builtin:
        result.work = Work(agreed + (differs is not None), STREAMS_REPLAY_AT_LEAST, "problems")
    if differs is not None:
        problem = minimize(differs, lambda p: isinstance(p, StreamsProblem) and model.disagrees(target, p),
                           seconds=2.0)
        assert isinstance(problem, StreamsProblem)  # shrinking keeps a Streams problem one
        _, report = check_assignor(target, problem, seed=ctx.seed, budget_s=ctx.profile.budget_s)
        if report.violations:  # an invariant the code breaks says more than "differs from the model"
            candidates.append(Candidate(problem, report.violations[0], ctx.seed, "model vs code"))
        else:
            try:
                what = f"code {target.assign(problem).as_lists()}, model {model.evaluate(problem).as_lists()}"
            except Exception as e:  # noqa: BLE001 - reported, like any disagreement
                what = f"the code raised {type(e).__name__}: {e}"[:300]
            _disagrees(result, target, problem, f"Z3 model streams-sticky disagrees with the code ({bound}): {what}",
                       ctx)
    result.findings += settle("proofs", target, candidates, ctx.filing)
    result.stats["model_equals_code"] = agreed
    return result


def _sample_streams(target: Assignor, bound: StreamsBound, ctx: Context) -> StageResult:
    """A Streams target that does not promise the model's answer: the model's sampled problems within the bound
    (junk claims, standby replicas, stateless sub-topologies), each output through the checker."""
    from assigncheck.run.assignor_check import check_assignor
    from assigncheck.verify.models import streams as model

    result = StageResult("proofs", target.name, checked=("streams sampled",), promises=target.promises.to_text())
    collector = Collector(ctx.profile.max_candidates)
    deadline, checked, hangs, complete = time.monotonic() + ctx.profile.proofs_s, 0, breaker.Breaker(), True
    for problem in model.sample_problems(bound, ctx.seed):
        stop_if_interrupted()
        if time.monotonic() > deadline or checked >= ctx.profile.exhaustive_problems:
            complete = checked >= ctx.profile.exhaustive_problems
            break
        _, report = check_assignor(target, problem, seed=ctx.seed, budget_s=ctx.profile.budget_s)
        collector.offer(problem, report.violations, ctx.seed, f"sampled Streams problems, {bound}")
        checked += 1
        if hangs.count(breaker.hung(list(report.violations))):
            result.notes.append(breaker.NOTE)
            complete = False
            break
    result.findings += settle("proofs", target, collector.candidates(), ctx.filing)
    result.work = Work(checked, ctx.profile.exhaustive_problems, "problems")
    result.stats.update(bound=str(bound), complete=complete)
    return result


def check_target(target: Assignor, ctx: Context) -> StageResult:
    started = time.monotonic()
    if problem_kind(target) == "streams":
        result = _prove_streams(target, ctx)
    else:
        model = _model_for(target)
        result = _prove(target, model, ctx) if model is not None else _exhaust(target, ctx)
    result.seconds = time.monotonic() - started
    return result


run = each_target("proofs", check_target)
