"""H8 across processes (`findings.processes`): two processes of a target, started with two values of one
environment variable, tell an assignor whose output follows the process (its string hash seed, or another
runtime's knob) from one whose output does not."""

from __future__ import annotations

import sys

from assigncheck.findings.processes import Pair, Processes
from assigncheck.formats.reproducer import TargetRef
from assigncheck.spec.model import Member, Problem
from tests.paths import ROOT

SET_ORDER = f"cmd:{sys.executable} {ROOT / 'tests' / 'fixtures' / 'set_order_target.py'}"
GROUPS = [Problem({"t": 6}, tuple(Member(f"m{i}", frozenset({"t"})) for i in range(n))) for n in range(2, 8)]


def test_two_processes_with_other_hash_seeds_tell_a_set_ordered_assignor_from_a_sorted_one():
    for spec, differs in (("tests.fixtures.set_order_target:SetOrder", True), ("range", False),
                          (SET_ORDER + " --sorted", False)):
        pair = Pair(TargetRef(spec), Processes(), spec)  # a Python target runs in a worker process
        try:
            found = [v for p in GROUPS for v in pair.compare(p, budget_s=10.0)]
        finally:
            pair.close()
        assert bool(found) == differs, (spec, found)
        assert all(v.invariant == "H8" and v.cause == "processes" and "PYTHONHASHSEED=1 and 2" in v.message
                   for v in found)


def test_a_runtime_with_another_knob_names_its_variable():
    spec = SET_ORDER + " --order-from ORDER_SEED"
    for processes, differs in ((Processes(), False), (Processes("ORDER_SEED", ("1", "2")), True)):
        pair = Pair(TargetRef(spec), processes, spec)
        try:
            assert bool([v for p in GROUPS for v in pair.compare(p, budget_s=10.0)]) == differs, processes
        finally:
            pair.close()


def test_what_differed_is_said_for_the_targets_runtime():
    from assigncheck.findings.processes import varied

    python = Processes("PYTHONHASHSEED", ("7", "9"))
    for spec in ("range", "tests.fixtures.set_order_target:SetOrder", SET_ORDER, "cmd:/usr/bin/env python3 x.py"):
        assert varied(TargetRef(spec), python) == "PYTHONHASHSEED=7 and 9", spec
    assert "Java's identity hashes" in varied(TargetRef("java:org.example.Sticky"), python)
    go = varied(TargetRef("cmd2:./bin/balancer sticky"), python)
    assert "Go's per-map seed" in go and "PYTHONHASHSEED" not in go
    # a variable the user named is the runtime's own knob, whatever the target
    assert varied(TargetRef("java:org.example.Sticky"), Processes("SEED", ("1", "2"))) == "SEED=1 and 2"
