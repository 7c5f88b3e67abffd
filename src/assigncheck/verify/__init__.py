"""Z3: bounded proofs of the built-in assignors' symbolic models (`prove`, `models`), the quota lemmas (`lemmas`),
the optimum oracle recomputed by Z3 (`z3_oracle`), every small problem run through any assignor (`exhaustive`),
and counterexamples replayed on the code (`counterexamples`)."""
