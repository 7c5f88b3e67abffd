"""The law chains of the constrained model (verify.models.laws, chains): every law it notes is valid, a
wrong law is caught, the chains carry the counting arguments the proofs need, and the prover's chained
path (quick query, then facts under the non-flattening tactic) still refutes the broken variant."""

import z3

from assigncheck.verify.counterexamples import model_violations
from assigncheck.verify.models import BROKEN, MODELS, chains, laws
from assigncheck.verify.models import constrained as model
from assigncheck.verify.models.encoding import Shape, symbolic, valid_owned
from assigncheck.verify.models.facts import bitblast_solver, prove_fact
from assigncheck.verify.prove import Bound, prove


def _shape(members, topics):
    inp = symbolic(Shape(members, topics), 2, equal_subscriptions=True)
    props = MODELS["sticky-constrained"].invariants(inp)
    return inp, props


def test_every_noted_law_is_valid():
    inp, _ = _shape(3, (2, 1))
    keys = {key for key, _ in inp.facts}
    assert {k[1] for k in keys if k[0] == "law"} >= {"count_bound", "keep_step", "quota", "deal_pick", "deal_step",
                                                       "deal_done", "union_step", "cancel", "shift_step"}
    for key in keys:
        assert prove_fact(key, 60) == "proved", key


def test_a_false_law_is_caught():
    # count(bools[:20]) <= 20 says nothing about the "small" bound 15 of 6-bit counts: not valid
    assert prove_fact(("law", "count_bound", (20,), (6, "b")), 60) == "counterexample"
    assert prove_fact(("law", "count_bound", (3,), (6, "b")), 60) == "proved"


def test_chains_give_the_counting_arguments():
    """From the facts alone (plus the encoding), U's size is the sum of the needs, and a kept row counts its
    keep: the steps of H5 and balance that plain SAT finds hard."""
    inp, _ = _shape(3, (2, 2))
    w = inp.width
    known = [f for key, f in inp.facts if prove_fact(key, 60) == "proved"]
    valid = valid_owned(inp)
    keep, needs = model.plan(inp, [chains.row_count(inp, row) for row in valid])
    kept = [chains.keep_prefix(inp, valid[m], keep[m]) for m in range(3)]
    free = [z3.Not(z3.Or(*[row[p] for row, _ in kept])) for p in range(4)]
    claims = [laws.prefixes(free, w)[-1] == laws.total(needs, w), *[cnt == k for (_, cnt), k in zip(kept, keep)]]
    for claim in claims:
        solver = bitblast_solver(60)
        solver.add(*inp.domain, *known, z3.Not(claim))
        assert solver.check() == z3.unsat, claim


def test_slot_cache_tells_needs_apart():
    a, b = z3.BitVecs("na nb", 6)
    first = laws.slot_terms([a, b], 2)
    second = laws.slot_terms([b, a], 2)
    zero = z3.BitVecVal(0, 6)
    assert first[0][0][0].eq(z3.UGT(a, zero)) and second[0][0][0].eq(z3.UGT(b, zero))
    assert laws.slot_terms([a, b], 2) is first  # the same needs again: the cached terms


def test_chained_prover_reports_real_counterexamples():
    broken = BROKEN["sticky-constrained:ceiling-for-all"]
    result = prove(broken, Bound(3, 4, topics=2, generations=2), seconds=300)
    found = result.counterexamples
    assert found and {o.invariant for o in found} <= {"balance.quota", "balance.perfect", "stickiness.max_retained",
                                                      "fixpoint"}
    for outcome in found:
        assert model_violations(broken, outcome.problem), outcome.invariant


def test_facts_path_counterexamples_are_real():
    """Past the quick query (4 members x [2, 4]) the broken variant is refuted by the facts path, whose
    bit-blasting tactic must still hand back an input: the spec's checker confirms it on the model's output."""
    from assigncheck.verify.prove import Outcome, ProofResult, _invariant_names, _prove_shape

    broken = BROKEN["sticky-constrained:ceiling-for-all"]
    inp = symbolic(Shape(4, (2, 4)), 2, equal_subscriptions=True)
    props = broken.invariants(inp)
    names = _invariant_names(broken)
    outcomes = {n: Outcome(n) for n in names}
    assert _prove_shape(broken, inp, props, names, outcomes, lambda: 300.0,
                        ProofResult(broken.name, Bound(4, 6), outcomes)) is None
    found = [o for o in outcomes.values() if o.status == "counterexample"]
    assert {o.invariant for o in found} >= {"balance.perfect"}
    assert outcomes["H4"].status == outcomes["H5"].status == "open"  # not refuted here (proved: once every shape is)
    for outcome in found:
        assert model_violations(broken, outcome.problem), outcome.invariant
