"""assigncheck: a merge gate for Kafka-style partition assignors.

The public surface, for a test suite or a script that checks an assignor in-process:

    from assigncheck import Promises, check_assignor, load_problem

    problem = load_problem("problem.json")       # or build one: Problem(members=..., topics=...)
    output, report = check_assignor(my_assignor, problem, promises=Promises.parse("balance=perfect"))
    assert report.ok, report.violations

- `Problem`, `Member`, `StreamsProblem`, `Assignment`: the model every part speaks (`assigncheck.spec.model`);
  `load_problem` reads one from a JSON file (`assigncheck.formats.documents`).
- `Promises`: what an assignor declares beyond H1-H8 (`assigncheck.spec.promises`), `Assignor` its protocol.
- `check_assignor` (run an assignor on a problem and check everything: `assigncheck.run.assignor_check`) and
  `check_assignment` (one output: `assigncheck.spec.assignment_check`), each giving a `Report` of `Violation`s.
- `AssigncheckError`: the root of every error assigncheck raises on purpose; `InputError` is bad input (also a
  `ValueError`), `TargetUnavailable` an assignor that cannot run at all, `TargetFailure` one that failed a call.

Everything else is reachable by its module (`assigncheck.generate.strategies` for hypothesis strategies,
`assigncheck.targets.registry.load_target` for `--target` specs, ...). The names here are loaded on first use,
so `import assigncheck` costs nothing and the command line starts fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assigncheck.formats.documents import load_problem
    from assigncheck.run.assignor_check import check_assignor
    from assigncheck.spec.assignment_check import Report, check_assignment
    from assigncheck.spec.errors import AssigncheckError, InputError, TargetFailure, TargetUnavailable
    from assigncheck.spec.model import Assignment, Member, Problem, StreamsProblem
    from assigncheck.spec.promises import Assignor, Promises
    from assigncheck.spec.violations import Violation

# public name -> the module that defines it
_WHERE = {
    "Problem": "assigncheck.spec.model", "Member": "assigncheck.spec.model",
    "StreamsProblem": "assigncheck.spec.model", "Assignment": "assigncheck.spec.model",
    "Promises": "assigncheck.spec.promises", "Assignor": "assigncheck.spec.promises",
    "Violation": "assigncheck.spec.violations", "load_problem": "assigncheck.formats.documents",
    "Report": "assigncheck.spec.assignment_check", "check_assignment": "assigncheck.spec.assignment_check",
    "check_assignor": "assigncheck.run.assignor_check",
    "AssigncheckError": "assigncheck.spec.errors", "InputError": "assigncheck.spec.errors",
    "TargetFailure": "assigncheck.spec.errors", "TargetUnavailable": "assigncheck.spec.errors",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'assigncheck' has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])


__all__ = ["AssigncheckError", "Assignment", "Assignor", "InputError", "Member", "Problem", "Promises", "Report",
           "StreamsProblem", "TargetFailure", "TargetUnavailable", "Violation", "check_assignment", "check_assignor",
           "load_problem"]
