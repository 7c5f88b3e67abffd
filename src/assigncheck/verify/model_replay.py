"""A model.conformance finding replayed (the `model` kind of `findings.replay`): the Z3 model of what the target
claims to be and its code, compared on the finding's problem. A Streams problem is compared with the Streams
model (`models.streams`, every Streams target's); a consumer problem with the target's model for the problem's
protocol."""

from __future__ import annotations

from assigncheck.findings.replay import MODEL, On, Replayed, Reproducer, target_ref
from assigncheck.spec.errors import InputError
from assigncheck.spec.model import StreamsProblem


def replay_model(found: Reproducer, on: On) -> Replayed:
    """Does the target's code still differ from its Z3 model on the finding's problem?"""
    from assigncheck.targets import registry
    from assigncheck.verify.counterexamples import disagrees
    from assigncheck.verify.models import MODELS, models_of

    assert found.problem is not None, "a model.conformance finding has its problem"
    problem = found.problem
    ref = target_ref(found, on)
    assignor = on.target if on.target is not None else registry.load(ref)
    if isinstance(problem, StreamsProblem):
        from assigncheck.verify.models import streams

        name = "streams-sticky"
        differs = streams.disagrees(assignor, problem)
    else:
        models = models_of(assignor.name)  # the model of what it claims to be
        if not models:
            raise InputError("--target", f"{ref.spec} has no Z3 model to compare with (models: "
                                         f"{', '.join(sorted({m.assignor for m in MODELS.values()}))})")
        model = next((m for m in models if m.protocol == getattr(problem, "protocol", None)), models[0])
        name, differs = model.name, disagrees(model, assignor, problem)
    summary = (f"reproduces: model.conformance (Z3 model {name} and {ref.spec} differ on this problem)" if differs
               else f"no longer reproduces model.conformance: Z3 model {name} and {ref.spec} agree")
    return Replayed(differs, summary, ref, found.file, "model.conformance", keys=MODEL)


__all__ = ["replay_model"]
