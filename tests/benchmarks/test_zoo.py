"""The bug zoo (benchmarks/zoo): every entry loads as an outside target, names its bug, and on its
documented triggering shape the checker reports the expected invariant while the unbroken assignor,
held to the same promises, passes."""

from __future__ import annotations

import importlib
import re

import pytest

from assigncheck.run.assignor_check import check_assignor
from assigncheck.spec.model import Member, Problem, partitions_of
from assigncheck.targets.registry import get, load_target
from benchmarks.zoo import ZOO, target_spec


def member(member_id, subscription, owned=None, generation=-1):
    return Member(member_id, frozenset(subscription), partitions_of(owned or {}), generation)


# (zoo module, the built-in it breaks, the triggering problem of its docstring, the invariant expected)
CASES = [
    ("kafka_3661", "roundrobin",
     Problem({"t0": 2}, (member("c0", {"t0", "gone"}), member("c1", {"t0"}))), "H7"),
    ("kafka_7026", "sticky-constrained",
     Problem({"t0": 7}, (member("c1", {"t0"}), member("c2", {"t0"}, {"t0": [1, 6]}, 2),
                         member("c3", {"t0"}, {"t0": [2, 6]}, 1))), "H4"),
    ("kafka_7962", "sticky-constrained",
     Problem({"t0": 2}, (member("c0", {"t0", "gone"}, {"gone": [0], "t0": [0]}, 1),
                         member("c1", {"t0", "gone"}, {"t0": [1]}, 1))), "H7"),
    ("kafka_10082", "sticky-constrained",
     Problem({"t0": 6}, (member("c0", {"t0"}, {"t0": [0, 1]}, 3), member("c1", {"t0"}, {"t0": [2, 3]}, 3),
                         member("c2", {"t0"}, {"t0": [4, 5]}, 2), member("c3", {"t0"}))),
     "stickiness.max_retained"),
    ("kafka_12984", "sticky-constrained",
     Problem({"t0": 2}, (member("c0", {"t0"}, {"t0": [0]}, 1), member("c1", {"t0"}, {"t0": [0, 1]}, 1))), "H7"),
    ("kafka_13406", "cooperative-sticky",
     Problem({"t0": 2, "t1": 2}, (member("c0", {"t1"}, {"t0": [0, 1]}, 1), member("c1", {"t1"}, {"t1": [0, 1]}, 1)),
             protocol="cooperative"), "H3"),
    ("kafka_14639", "cooperative-sticky",
     Problem({"t0": 4}, (member("c0", {"t0"}, {"t0": [0, 1]}, 1), member("c1", {"t0"}, {"t0": [2, 3]}, 2),
                         member("c2", {"t0"}, {}, 2)), protocol="cooperative"), "H6"),
    ("kafka_15106", "cooperative-sticky",  # (b) the isBalanced loop
     Problem({"t0": 3}, (member("c0", {"t0"}), member("c1", {"t0", "t1"}))), "H7"),
    ("kafka_15106", "cooperative-sticky",  # (a) the owner map over three generations
     Problem({"t0": 3, "t1": 3}, (member("c0", {"t0"}, {"t0": [0]}, 3), member("c1", {"t0", "t1"}, {"t0": [0]}, 2),
                                  member("c2", {"t0", "t1"}, {"t0": [0]}, 1))), "H4"),
    ("kafka_15170", "sticky-constrained",
     Problem({"t0": 7}, (member("c0", {"t0"}, {"t0": [0, 1, 2]}, 1), member("c1", {"t0"}, {"t0": [3, 4, 5]}, 1),
                         member("c2", {"t0"}, {"t0": [6]}, 1))), "H7"),
    ("kafka_16277", "sticky-constrained",
     Problem({"t0": 2, "t1": 2}, (member("c0", {"t0", "t1"}, {"t0": [0, 1], "t1": [0, 1]}, 1),
                                  member("c1", {"t0", "t1"}))), "per_topic_spread"),
    ("kafka_16930", "sticky",
     Problem({"t0": 2}, (member("c0", {"t0"}), member("c1", set()))), "H7"),
    ("kafka_18688", "sticky-constrained",
     Problem({"t0": 3}, (member("c0", {"t0"}, {"t0": [0]}, 1), member("c1", {"t0"}, {"t0": [1, 2]}, 1))),
     "stickiness.max_retained"),
    ("librdkafka_4783", "cooperative-sticky",
     Problem({"t0": 1, "t1": 1}, (member("c0", {"t0"}), member("c1", {"t0"}), member("c2", {"t1"}))), "H7"),
]


def bug_id(module: str) -> str:
    """kafka_14639 -> KAFKA-14639; librdkafka_4783 -> #4783."""
    project, number = module.split("_")
    return f"KAFKA-{number}" if project == "kafka" else f"#{number}"


def test_every_zoo_entry_has_a_triggering_case_and_there_are_at_least_twelve():
    assert len(ZOO) >= 12
    assert sorted(ZOO) == sorted({module for module, *_ in CASES})


@pytest.mark.parametrize("module", ZOO)
def test_entry_loads_through_the_plugin_path_and_names_its_bug(module):
    imported = importlib.import_module(f"benchmarks.zoo.{module}")
    doc = imported.__doc__ or ""
    assert bug_id(module) in doc
    assert re.search(r"Triggering shape", doc)
    expected = {invariant for m, _, _, invariant in CASES if m == module}
    stated = [s.rstrip(".") for s in re.findall(r"Expected(?: finding)?:\s+([\w.]+)", doc)]
    assert expected <= set(stated), (expected, stated)
    target = load_target(target_spec(module))
    assert target.promises == imported.Assignor().promises  # the class, instantiated
    assert target.name.startswith("zoo-")
    assert load_target(target.spec).name == target.name  # what fuzz jobs and Spark executors load


@pytest.mark.parametrize(("module", "base", "problem", "invariant"), CASES,
                         ids=[f"{c[0]}-{c[3]}" for c in CASES])
def test_triggering_shape_breaks_the_entry_and_not_the_assignor_it_breaks(module, base, problem, invariant):
    broken = load_target(target_spec(module))
    assert importlib.import_module(f"benchmarks.zoo.{module}").BREAKS == base
    healthy = get(base)
    assert broken.promises == healthy.promises  # the entry is held to the promises of what it breaks
    _, report = check_assignor(broken, problem, budget_s=20)
    assert invariant in {v.invariant for v in report.violations}, report.violations
    _, baseline = check_assignor(healthy, problem, promises=broken.promises, budget_s=20)
    assert baseline.ok, baseline.violations


def test_a_catch_needs_a_reproducer_that_replays(tmp_path, steady):
    from assigncheck.targets.registry import load
    from benchmarks.zoo.measure import run_stage

    cell = run_stage(load("tests.fixtures.verdict_targets:OnceInAProcess"), "properties", tmp_path, "roundrobin")
    assert cell["unconfirmed"] == 1 and not cell["caught"] and not cell["found"]
