"""Stage contracts and composed proofs (verify.models.contracts): the real stages meet their contracts, a
wrong stage does not, and a composed cell proves exactly what the shape-by-shape proofs prove, falling back
to the real model (and its real counterexamples) where the composition says nothing."""

from dataclasses import replace

import pytest
import z3

from assigncheck.verify.counterexamples import model_violations
from assigncheck.verify.models import BROKEN, MODELS, chains, contracts
from assigncheck.verify.models.encoding import Shape
from assigncheck.verify.prove import Bound, prove, shapes

MODEL = MODELS["sticky-constrained"]


def _width(members: int, partitions: int) -> int:
    return Shape(members, (partitions,)).width(2)


@pytest.mark.parametrize("partitions", [1, 3, 5])
def test_keep_stage_meets_its_contract_for_every_topic_split(partitions: int) -> None:
    key = ("contract", "keep", partitions, 2, _width(3, partitions))
    splits = [inp.shape.topics for inp, _ in contracts.obligations(key)]
    assert sorted(splits) == sorted({(partitions,), *((a, partitions - a) for a in range(1, partitions))})
    assert contracts.prove_contract(key, 60) == "proved"


@pytest.mark.parametrize("members,partitions", [(1, 4), (2, 5), (3, 4)])
def test_deal_stage_meets_its_contract(members: int, partitions: int) -> None:
    laps = -(-partitions // members)
    assert contracts.prove_contract(("contract", "deal", members, partitions, laps, _width(members, partitions)),
                                    60) == "proved"


def test_a_stage_that_keeps_one_too_many_breaks_the_keep_contract(monkeypatch: pytest.MonkeyPatch) -> None:
    real = chains.keep_prefix
    monkeypatch.setattr(chains, "keep_prefix", lambda inp, valid, k: real(inp, valid, k + 1))
    assert contracts.prove_contract(("contract", "keep", 4, 2, _width(2, 4)), 60) == "counterexample"


def test_a_deal_with_too_few_laps_breaks_the_deal_contract(monkeypatch: pytest.MonkeyPatch) -> None:
    real = chains.deal
    monkeypatch.setattr(chains, "deal", lambda inp, needs, free, laps: real(inp, needs, free, laps - 1))
    assert contracts.prove_contract(("contract", "deal", 2, 4, 2, _width(2, 4)), 60) == "counterexample"


def test_the_deal_guarantee_is_not_vacuous() -> None:
    """Two members may not both receive a partition, and a member may not exceed its need."""
    w = 5
    needs = [z3.BitVecVal(1, w), z3.BitVecVal(1, w)]
    free = [z3.BoolVal(True), z3.BoolVal(True)]
    both = [[z3.BoolVal(True), z3.BoolVal(False)], [z3.BoolVal(True), z3.BoolVal(False)]]
    fair = [[z3.BoolVal(True), z3.BoolVal(False)], [z3.BoolVal(False), z3.BoolVal(True)]]
    assert z3.is_false(z3.simplify(contracts.deal_guarantee(needs, free, both, 1)))
    assert z3.is_true(z3.simplify(contracts.deal_guarantee(needs, free, fair, 1)))


def test_composed_cells_cover_every_shape_of_the_bound() -> None:
    bound = Bound(3, 5, topics=2, generations=2)
    composed = prove(MODEL, bound, seconds=600)
    by_shape = prove(replace(MODEL, composed=None), bound, seconds=600)
    assert composed.all_proved and by_shape.all_proved
    assert composed.shapes_done == by_shape.shapes_done == len(shapes(bound))
    assert composed.cells_composed == 3 * 5  # every (members, partition count) cell, none fell back


def test_composed_cells_in_worker_processes() -> None:
    result = prove(MODEL, Bound(2, 4, topics=2, generations=2), seconds=600, jobs=2)
    assert result.all_proved and result.cells_composed == 2 * 4
    assert result.cpu_seconds > 0  # the workers' CPU time is counted


def test_the_broken_variant_falls_back_to_a_real_counterexample() -> None:
    """Its quota arithmetic (the plan's fact) is false, so no composed cell proves anything: the real model
    decides shape by shape, and the counterexample it returns breaks the broken model's invariant."""
    broken = BROKEN["sticky-constrained:ceiling-for-all"]
    result = prove(broken, Bound(3, 4, topics=2, generations=2), seconds=600)
    assert result.counterexamples
    assert all(o.problem is not None and o.shape is not None for o in result.counterexamples)
    assert result.cells_composed < 3 * 4


def test_cooperative_round_composes_too() -> None:
    """The cooperative model runs the eager constrained algorithm twice (round 2 for cooperative.rounds): both
    rounds' contracts must reach the queries, or its composed cells would prove nothing."""
    result = prove(MODELS["cooperative-sticky"], Bound(3, 4, topics=2, generations=2), seconds=600)
    assert result.all_proved and result.cells_composed == 3 * 4


def test_workers_return_the_same_counterexamples_as_one_process() -> None:
    """The broken variant's open cells are proved shape by shape in the workers; their counterexamples
    travel back as problem JSON, and the smallest shape's wins, as in one process."""
    broken = BROKEN["sticky-constrained:ceiling-for-all"]
    bound = Bound(3, 4, topics=2, generations=2)
    one, two = prove(broken, bound, seconds=600), prove(broken, bound, seconds=600, jobs=2)
    assert [(o.invariant, o.shape) for o in one.counterexamples] == \
        [(o.invariant, o.shape) for o in two.counterexamples] != []
    for outcome in two.counterexamples:  # the solver may pick another input of the shape, but a real one
        assert model_violations(broken, outcome.problem)


def test_models_without_composition_prove_their_shapes_in_workers() -> None:
    result = prove(MODELS["roundrobin"], Bound(3, 4, topics=2, generations=2), seconds=600, jobs=2)
    assert result.all_proved and result.shapes_done == result.shapes_total and result.cells_composed == 0
