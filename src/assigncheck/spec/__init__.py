"""The executable spec (docs/SPEC.md): what a correct assignment is, as plain definitions to read beside the doc.

- `model`: `Problem`, `Member`, `StreamsProblem`, `Assignment`, the one vocabulary of every part.
- `ownership` (which claims count), `invariants` (H1-H6), `balance`, `stickiness`, `racks`, `groups` (Kafka 4's
  group types), `streams_checks`: each check `(problem, assignment) -> [Violation]`; `check.check_assignment`
  runs them all for a set of `promises.Promises` and returns a `Report`.
- `violations` (`Violation`, the invariant ids), `errors` (one root, `AssigncheckError`), `limits`.
- `oracle` (optimum figures by min-cost flow) and `reference` (slow, obviously correct assignors).
- `small`: the checker's plain-Python fast path for small problems, held equal to the definitions by tests.
"""
