"""Bounded proofs of the models at small bounds, the refutation of a deliberately broken variant, its
replay on the real code, and the helper lemmas. The big bounds are behind `slow` and in bench_prove."""

import pytest

from assigncheck.formats.documents import load_problem, problem_to_json
from assigncheck.verify.counterexamples import model_violations, replay, save_counterexample
from assigncheck.verify.models import BROKEN, MODELS, VARIANTS
from assigncheck.verify.models.facts import prove_fact
from assigncheck.verify.prove import Bound, prove, shapes, topic_vectors

SMALL = Bound(members=3, partitions=3, topics=2, generations=2)


def test_shapes_cover_the_bound_once():
    vectors = list(topic_vectors(4, 2))
    assert len(vectors) == len(set(vectors)) == 4 + 6  # one topic: 1..4; two topics: sum <= 4
    all_shapes = shapes(Bound(3, 4))
    assert len(all_shapes) == 3 * 10
    assert all_shapes[0].members == 1 and all_shapes[0].partition_count == 1


@pytest.mark.parametrize("name", sorted({**MODELS, **VARIANTS}))
def test_model_proved_at_small_bound(name):
    result = prove({**MODELS, **VARIANTS}[name], SMALL, seconds=300)
    assert result.shapes_done == result.shapes_total == 3 * 6
    statuses = {o.invariant: o.status for o in result.outcomes.values()}
    assert set(statuses.values()) == {"proved"}, statuses
    assert {"H3", "H4", "H5"} <= set(statuses)


def test_constrained_models_prove_their_promises():
    for name in ("sticky-constrained", "sticky-constrained-4phase"):
        names = set(prove(MODELS[name], Bound(1, 1), 60).outcomes)
        assert {"balance.perfect", "stickiness.max_retained", "fixpoint"} <= names
    assert {"H6", "cooperative.rounds"} <= set(prove(MODELS["cooperative-sticky"], Bound(1, 1), 60).outcomes)


def test_broken_variant_refuted_and_replayed(tmp_path):
    broken = BROKEN["sticky-constrained:ceiling-for-all"]
    result = prove(broken, Bound(3, 4, topics=2, generations=2), seconds=120, stop_at_first=True)
    assert result.counterexamples, "the ceiling-for-all variant must be refuted"
    outcome = result.counterexamples[0]
    assert outcome.invariant in ("balance.quota", "balance.perfect", "stickiness.max_retained")
    # The spec's own checker agrees on the model's output ...
    assert any(v.invariant.startswith(("balance", "stickiness")) for v in model_violations(broken, outcome.problem))
    # ... while the real code passes there: the model variant is what is broken.
    assert replay(broken, outcome.problem) == []
    path = save_counterexample(broken, outcome, [], tmp_path)
    assert problem_to_json(load_problem(path)) == problem_to_json(outcome.problem)
    assert "ceiling-for-all" in path.read_text()


def test_helper_lemmas_hold_and_can_fail():
    keys = [("keep", (2, 2), 6), ("deal", 3, 4, 2, 6), ("step", 3, 6), ("prefix", 4, 6), ("union", 4, 6),
            ("plan3", None, 3, 5, 6)]
    for key in keys:
        assert prove_fact(key, 60) == "proved", key
    # the broken variant's quota arithmetic is false, and the prover says so (prove() then drops it)
    assert prove_fact(("plan3", "ceiling-for-all", 3, 5, 6), 60) == "counterexample"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_proved_at_larger_bound(name):
    result = prove(MODELS[name], Bound(3, 6, topics=2, generations=2), seconds=1200)
    assert result.all_proved, {o.invariant: (o.status, o.note) for o in result.outcomes.values()}
