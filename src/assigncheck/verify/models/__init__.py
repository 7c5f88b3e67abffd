"""Symbolic (Z3, QF_BV) models of the built-in assignors, one module per model."""

from __future__ import annotations

from assigncheck.spec.errors import InputError
from assigncheck.verify.models import constrained, constrained_kip615, cooperative, roundrobin
from assigncheck.verify.models import range as range_model  # the module, not the builtin
from assigncheck.verify.models.base import Model

MODELS: dict[str, Model] = {
    m.name: m
    for m in (range_model.MODEL, roundrobin.MODEL, constrained.MODEL, constrained_kip615.MODEL, cooperative.MODEL)
}
# Deliberately broken variants: the proofs must refute them (tests, benchmarks, `prove --assignor`).
BROKEN: dict[str, Model] = {constrained.BROKEN.name: constrained.BROKEN}
# Variants: the cooperative round with raw claims as the holder (see cooperative.py), proved beside the model.
VARIANTS: dict[str, Model] = {cooperative.RAW_HOLDER.name: cooperative.RAW_HOLDER}


def models_of(assignor: str, protocol: str | None = None) -> list[Model]:
    """The models of the built-in assignor called `assignor` (of one protocol, or all, eager first)."""
    return sorted((m for m in MODELS.values() if m.assignor == assignor and protocol in (None, m.protocol)),
                  key=lambda m: m.protocol != "eager")


def get_model(name: str) -> Model:
    try:
        return {**MODELS, **BROKEN, **VARIANTS}[name]
    except KeyError:
        known = ", ".join(sorted({**MODELS, **BROKEN, **VARIANTS}))
        raise InputError("--assignor", f"no symbolic model for {name!r}; models: {known}") from None
