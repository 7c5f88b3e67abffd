"""Z3: bounded proofs of the built-in assignors' symbolic models (`prove`, `models`), the quota lemmas (`lemmas`),
the optimum oracle recomputed by Z3 (`z3_oracle`), every small problem run through any assignor (`exhaustive`),
counterexamples replayed on the code (`counterexamples`), and a model.conformance finding replayed
(`model_replay`, the `model` kind of `findings.replay`)."""
