"""A finding as a pytest file: `test_<name>.py`, which `pytest` runs alone (nothing beyond pytest and the target's own
library; a Python object's assignor also imports assigncheck's model, the type its `assign` takes).

The file calls the target as assigncheck's adapters do (`targets.python_libs`: kafka-python's and aiokafka's
assignors on the metadata their consumers send; a Python object's `assign` on the `Problem`), and checks the broken
invariant in plain Python, failing with the rule in words (`rules`)."""

from __future__ import annotations

import inspect
import pprint
from typing import Any

from assigncheck.findings.export.case import Case
from assigncheck.findings.export.plan import CRASH, FED_BACK, REPEATED, ROUNDS, Plan, plan
from assigncheck.findings.export.reach import Reach
from assigncheck.findings.export.templates import check, text
from assigncheck.spec.errors import InputError

KAFKA_PYTHON = {
    "range": ("kafka.coordinator.assignors.range", "RangePartitionAssignor"),
    "roundrobin": ("kafka.coordinator.assignors.roundrobin", "RoundRobinPartitionAssignor"),
    "sticky": ("kafka.coordinator.assignors.sticky.sticky_assignor", "StickyPartitionAssignor"),
    "cooperative-sticky": ("kafka.coordinator.assignors.cooperative_sticky", "CooperativeStickyAssignor"),
}
AIOKAFKA = {
    "range": ("aiokafka.coordinator.assignors.range", "RangePartitionAssignor"),
    "roundrobin": ("aiokafka.coordinator.assignors.roundrobin", "RoundRobinPartitionAssignor"),
    "sticky": ("aiokafka.coordinator.assignors.sticky.sticky_assignor", "StickyPartitionAssignor"),
}

_OBJECT_IMPORTS = "from assigncheck.formats.documents import problem_from_json"


def python(name: str) -> str:
    return text("python", name)


def _literal(value: Any) -> str:
    return pprint.pformat(value, indent=1, width=110, sort_dicts=False)


def _driver(reach: Reach) -> tuple[list[str], str, str]:
    """The imports, the constants and the `assign(problem)` that run the target as its callers do."""
    if reach.kind in ("kafka-python", "aiokafka"):
        table = KAFKA_PYTHON if reach.kind == "kafka-python" else AIOKAFKA
        if reach.name not in table:
            raise InputError("finding.target.spec", f"{reach.kind} has no {reach.name!r} assignor")
        module, cls = table[reach.name]
        imports = [f"from {module} import {cls} as ASSIGNOR", python(f"{reach.kind}.imports").strip("\n")]
        return imports, f"KIND = {reach.name!r}  # which of {reach.kind}'s assignors", python(reach.kind)
    imported, call = _object_import(reach)
    return [imported, _OBJECT_IMPORTS], call, python("object")


def _object_import(reach: Reach) -> tuple[str, str]:
    """How the test gets the object's assign: a class is instantiated, an assignor's `assign` or the callable
    itself is called (as `--target` loads it: `targets.registry.from_object`)."""
    from assigncheck.impl import BUILTINS, import_attr

    path = f"assigncheck.impl.{BUILTINS[reach.name]}" if reach.kind == "builtin" else reach.name
    module, _, attr = path.partition(":")
    try:
        obj = import_attr(path, "--target")
    except Exception as e:  # noqa: BLE001 - any failure to import is the same bad input
        raise InputError("finding.target.spec", f"cannot import {path}: {e}") from None
    top = attr.partition(".")[0]
    if inspect.isclass(obj):
        return f"from {module} import {top}", f"CALL = {attr}().assign  # a class: instantiated, as --target loads it"
    if callable(getattr(obj, "assign", None)):
        return f"from {module} import {top}", f"CALL = {attr}.assign"
    return f"from {module} import {top}", f"CALL = {attr}"


def _constants(p: Plan) -> list[str]:
    case, f = p.case, p.case.figures
    out = [f"{r.key} = {r.text!r}" for r in p.rules]
    if case.invariant == "H5":
        out.append(f"RULE_H5 = {p.rules[0].key}")
    if case.invariant == "stickiness.max_retained":
        out += ["", "# The partitions each member validly owns: an existing partition of a topic it subscribes to, "
                    "claimed by it alone", "# at the highest generation (assigncheck's spec, docs/SPEC.md §2).",
                f"VALID = {_literal(f.valid)}",
                f"# The most of them any assignment under {f.retained_balance} balance keeps: assigncheck's oracle "
                "(spec.oracle.max_retained), a min-cost flow.",
                f"MAX_RETAINED = {f.max_retained}", f"BALANCE = {f.retained_balance!r}"]
    if case.invariant == "balance.optimal":
        out += ["# The least sum of squared member counts of any complete assignment: assigncheck's oracle "
                "(spec.oracle.optimal_sum_squares).", f"OPTIMUM = {f.optimum}"]
    if case.invariant == "exact":
        out += [f"# What {f.reference} assigns this group: assigncheck's reference assignor "
                f"(spec.reference.REFERENCES[{f.reference!r}]).", f"EXPECTED = {_literal(f.expected)}",
                f"REFERENCE = {f.reference + ' (the reference)'!r}"]
    if case.invariant == "streams.balance":
        out.append(f"BALANCE_KIND = {p.way!r}")
    if case.invariant == "streams.sticky":
        out += ["# Each client's valid previous active tasks: known tasks it alone ran (assigncheck's spec, "
                "docs/SPEC.md §7.4).", f"PREVIOUS = {_literal(f.previous)}"]
    if case.invariant == "cooperative.rounds":
        out.append(f"MAX_ROUNDS = {case.promises.max_rounds}")
    return out


def _test_body(p: Plan, func: str) -> str:
    case = p.case
    if p.run == CRASH:
        return (f"def {func}():\n    try:\n        assign(PROBLEM)\n    except Exception as e:  # the call must not "
                "throw\n        raise AssertionError(say(H7, error=f\"{type(e).__name__}: {e}\")) from e\n")
    if p.run == REPEATED:
        return _h8_body(case, func)
    if p.run == ROUNDS:
        return (f"def {func}():\n    current = PROBLEM\n    for _ in range(MAX_ROUNDS):\n"
                "        out = assign(current)\n        still = waiting(current, out)\n        if not still:\n"
                "            return\n        current = next_round(current, out)\n"
                "    raise AssertionError(say(COOPERATIVE_ROUNDS, rounds=MAX_ROUNDS, partition=still[0]))\n")
    if p.run == FED_BACK:
        return (f"def {func}():\n    first = assign(PROBLEM)\n    again = assign(next_round(PROBLEM, first))\n"
                "    for member in sorted(set(first) | set(again)):\n"
                "        assert first.get(member, {}) == again.get(member, {}), say(\n"
                "            FIXPOINT, member=member, other=named(again.get(member, {})), "
                "first=named(first.get(member, {})))\n")
    return f"def {func}():\n    check(PROBLEM, assign(PROBLEM))\n"


def _h8_body(case: Case, func: str) -> str:
    if case.processes is not None:
        a, b = case.processes.values
        return (f"def {func}():\n    first = assign_in_process({a!r})\n"
                f"    same(first, assign_in_process({b!r}), \"a process started with {case.processes.env}={b}\")\n")
    lines = [f"def {func}():", "    first = assign(PROBLEM)", f"    for run in range(2, {case.runs + 1}):",
             "        same(first, assign(PROBLEM), f\"run {run}\")"]
    if len(case.listings) > 1:
        lines += [f"    for run in range(1, {case.runs + 1}):",
                  "        same(first, assign(LISTED_OTHERWISE), f\"run {run} of the group listed in another order\")"]
    return "\n".join(lines) + "\n"


def source(case: Case, reach: Reach) -> str:
    """The test file's text."""
    p = plan(case)
    func = "test_" + case.name.lower().replace("-", "_")
    doc = [f'"""{case.invariant} on {case.ref.spec}: exported by assigncheck from {case.source}.', "",
           f"`pytest {func}.py` fails while the bug is there and passes once it is fixed."]
    if case.note:
        doc += ["", *_wrapped(case.note)]
    imports, call, driver = _driver(reach)
    if case.processes is not None:
        imports = ["import json", "import os", "import subprocess", "import sys", *imports]
    if case.invariant == "streams.balance":
        imports = ["from fractions import Fraction", *imports]
    constants = [call, "", "# The rule this test holds the assignor to, in assigncheck's words (docs/SPEC.md §9.4).",
                 *_constants(p), "", "# The group, as the reproducer lists it.", f"PROBLEM = {_literal(case.doc())}"]
    if len(case.listings) > 1:
        constants += ["# The same group listed in another order (members, topics and claims), as assigncheck's H8 "
                      "check lists it.", f"LISTED_OTHERWISE = {_literal(case.doc(case.listings[1]))}"]
    if case.processes is not None:
        constants.append(f"ENV = {case.processes.env!r}  # the variable the two processes differ in")
    blocks = ["\n".join(doc) + '\n"""', "\n".join(imports), "\n".join(constants), python("helpers"), driver]
    if case.processes is not None:
        blocks.append(python("processes"))
    if p.run == REPEATED:
        blocks.append(python("same"))
    if p.run in (ROUNDS, FED_BACK):
        blocks.append(python("next-round"))
    checked = check("python", case.invariant)
    if checked is not None:
        blocks.append(checked)
    blocks.append(_test_body(p, func))
    return "\n\n\n".join(b.strip("\n") for b in blocks) + "\n"


def _wrapped(text: str, width: int = 116) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width) or [""]


def files(case: Case, reach: Reach) -> dict[str, str]:
    """The exported directory's files: the test alone."""
    return {f"test_{case.name.lower().replace('-', '_')}.py": source(case, reach)}


__all__ = ["AIOKAFKA", "KAFKA_PYTHON", "files", "source"]
