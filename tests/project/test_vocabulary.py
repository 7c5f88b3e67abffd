"""One vocabulary of invariant ids: defined once in `spec.violations`, used by the checker, the Z3 models, the
gate's cases, the zoo and replay."""

import pytest

from assigncheck.ci.stages.properties import promised_ids
from assigncheck.spec.violations import INVARIANTS, JUDGED_AS, Violation, judged_as
from assigncheck.targets import registry
from assigncheck.verify.models import BROKEN, MODELS, VARIANTS
from assigncheck.verify.prove import Bound, prove


@pytest.mark.parametrize("name", sorted({**MODELS, **BROKEN, **VARIANTS}))
def test_every_id_a_model_proves_is_one_the_checker_knows(name):
    model = {**MODELS, **BROKEN, **VARIANTS}[name]
    ids = set(prove(model, Bound(1, 1, 1, 0), 30).outcomes)
    assert ids and ids <= set(INVARIANTS), ids - set(INVARIANTS)
    assert {judged_as(i) for i in ids} <= set(INVARIANTS)


def test_an_unknown_id_cannot_be_reported():
    with pytest.raises(ValueError, match="unknown invariant id 'balance.per_topic'"):
        Violation("balance.per_topic", "the model's old spelling")
    assert set(JUDGED_AS.values()) <= set(INVARIANTS)


def test_the_gate_holds_every_built_in_to_ids_the_checker_reports():
    for name in registry.names():
        assert set(promised_ids(registry.get(name))) <= set(INVARIANTS), name


def test_the_zoo_expects_known_ids():
    from benchmarks.zoo import ZOO
    from benchmarks.zoo.measure import expected_invariants

    for module in ZOO:
        assert set(expected_invariants(module)) <= set(INVARIANTS), module
