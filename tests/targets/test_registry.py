"""The registry (`targets/registry.py`): every built-in resolves, unknown names and broken targets are
InputErrors naming the flag, and `load_target` takes names, `module:object` and prefix plug-ins."""

from __future__ import annotations

import pytest

from assigncheck.spec.errors import InputError
from assigncheck.spec.model import Assignment, Member, Problem
from assigncheck.spec.promises import Assignor, Promises
from assigncheck.targets import registry

PROBLEM = Problem({"t": 3}, (Member("a", {"t"}), Member("b", {"t"})))
BUILTINS = ["cooperative-sticky", "lag", "range", "roundrobin", "sticky", "sticky-constrained",
            "sticky-constrained-4phase", "streams-sticky"]


# ---- objects for `load_target("tests.targets.test_registry:...")` ----------------------------------------------
def everything_to_first(problem: Problem) -> Assignment:
    ids = [m.member_id for m in problem.members]
    return Assignment.of({m: ({t: range(n) for t, n in problem.topics.items()} if m == ids[0] else {}) for m in ids})


class FullAssignor:
    name = "mine"
    promises = Promises(balance="perfect")

    def assign(self, problem: Problem) -> Assignment:
        return everything_to_first(problem)


class NameOnly:
    def assign(self, problem: Problem) -> Assignment:
        return everything_to_first(problem)


class NeedsArguments:
    def __init__(self, x: int) -> None:
        self.x = x


INSTANCE = FullAssignor()
NOT_CALLABLE = 42
TEXT_PROMISES = NameOnly()
TEXT_PROMISES.promises = "balance=perfect,fixpoint"  # type: ignore[attr-defined]
BAD_PROMISES = NameOnly()
BAD_PROMISES.promises = "balance=sometimes"  # type: ignore[attr-defined]
WRONG_PROMISES = NameOnly()
WRONG_PROMISES.promises = {"balance": "perfect"}  # type: ignore[attr-defined]


def as_plain_mapping(problem: Problem) -> dict:
    return everything_to_first(problem).as_lists()


def not_quite_a_mapping(problem: Problem) -> dict:
    return {m.member_id: {t: "0,1" for t in problem.topics} for m in problem.members}


def test_names_are_every_builtin_sorted():
    assert registry.names() == BUILTINS


@pytest.mark.parametrize("name", [n for n in BUILTINS if n != "streams-sticky"])
def test_every_consumer_builtin_resolves_and_assigns(name):
    assignor = registry.get(name)
    assert isinstance(assignor, Assignor)
    assert assignor.name == name and isinstance(assignor.promises, Promises)
    assert sorted(assignor.assign(PROBLEM).counts().values()) == [1, 2]
    assert registry.get(name) is assignor and registry.load_target(name) is assignor


def test_unknown_assignor_names_the_flag_and_lists_the_names():
    with pytest.raises(InputError) as e:
        registry.get("stiky")
    assert e.value.path == "--assignor"
    assert "stiky" in e.value.message and "sticky-constrained" in e.value.message


def test_a_complete_assignor_class_is_instantiated_under_its_own_name():
    target = registry.load_target("tests.targets.test_registry:FullAssignor")
    assert target.name == "mine" and target.promises == Promises(balance="perfect")
    assert target.assign(PROBLEM) == everything_to_first(PROBLEM)


def test_promises_may_be_their_text_and_nothing_else():
    target = registry.load_target("tests.targets.test_registry:TEXT_PROMISES")
    assert target.promises == Promises(balance="perfect", fixpoint=True)
    for spec, words in (("BAD_PROMISES", "sometimes"), ("WRONG_PROMISES", "their text")):
        with pytest.raises(InputError) as e:
            registry.load_target(f"tests.targets.test_registry:{spec}")
        assert e.value.path == f"tests.targets.test_registry:{spec}.promises" and words in e.value.message


def test_a_plain_mapping_answer_is_an_assignment_and_anything_else_fails_h7():
    from assigncheck.run.assignor_check import check_assignor

    target = registry.load_target("tests.targets.test_registry:as_plain_mapping")
    assert target.assign(PROBLEM) == everything_to_first(PROBLEM)
    out, report = check_assignor(registry.load_target("tests.targets.test_registry:not_quite_a_mapping"), PROBLEM)
    assert out is None and [v.invariant for v in report.violations] == ["H7"]
    assert "not {member: {topic: [partitions]}}" in report.violations[0].message


def test_a_function_or_instance_is_wrapped_under_the_spec_string():
    fn = registry.load_target("tests.targets.test_registry:everything_to_first")
    assert fn.name == "tests.targets.test_registry:everything_to_first" and fn.promises == Promises()
    assert fn.assign(PROBLEM).counts() == {"a": 3, "b": 0}
    inst = registry.load_target("tests.targets.test_registry:INSTANCE")
    assert inst.name == "tests.targets.test_registry:INSTANCE" and inst.promises == Promises(balance="perfect")
    plain = registry.load_target("tests.targets.test_registry:NameOnly")
    assert plain.promises == Promises() and plain.assign(PROBLEM).count("a") == 3


@pytest.mark.parametrize("spec, words", [
    ("no.such.module:thing", "cannot import"),
    ("tests.targets.test_registry:missing", "no attribute"),
    ("tests.targets.test_registry:NOT_CALLABLE", "neither"),
    ("tests.targets.test_registry:NeedsArguments", "cannot instantiate"),
    ("justaword", "not a built-in"),
    ("kafka-python:nonsense", "no 'nonsense'"),
])
def test_bad_targets_are_input_errors_naming_the_flag(spec, words):
    with pytest.raises(InputError) as e:
        registry.load_target(spec)
    assert e.value.path == "--target" and words in e.value.message


def test_prefix_targets_plug_in_through_the_loader_table():
    target = registry.load_target("kafka-python:range")
    assert target.name == "kafka-python:range"
    assert target.assign(PROBLEM) == registry.get("range").assign(PROBLEM)
    assert set(registry.TARGET_LOADERS) >= {"cmd", "kafka-python", "aiokafka"}


@pytest.mark.parametrize("name", ["range", "roundrobin", "sticky-constrained", "sticky-constrained-4phase",
                                  "cooperative-sticky"])
def test_a_streams_problem_is_an_input_error_not_a_crash(name):
    from assigncheck.spec.model import Client, StreamsProblem

    with pytest.raises(InputError) as e:
        registry.get(name).assign(StreamsProblem({"s": 2}, (Client("c", 1),)))
    assert e.value.path == "problem" and name in e.value.message
