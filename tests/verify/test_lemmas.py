"""The unbounded quota lemmas (docs/SPEC.md §8.3) are proved, and the prover refutes a false variant."""

import z3

from assigncheck.verify.lemmas import LEMMAS, Lemma, prove_lemma


def test_every_lemma_proved():
    results = {lemma.name: prove_lemma(lemma, 60)[0] for lemma in LEMMAS}
    assert set(results.values()) == {"proved"}, results
    assert any("steals" in name for name in results) and any("closed form, 6" in name for name in results)


def test_false_lemma_refuted():
    def off_by_one():
        P, C, f, r = z3.Ints("P C f r")
        k = z3.Int("k")
        hyp = [C >= 1, f >= 0, r >= 0, r < C, P == f * C + r, 0 <= k, k <= C, k * (f + 1) + (C - k) * f == P]
        return hyp, k == r + 1

    status, model = prove_lemma(Lemma("wrong ceiling count", off_by_one), 30)
    assert status == "counterexample" and model is not None
