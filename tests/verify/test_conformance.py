"""Each Z3 model, evaluated on concrete problems, equals the Python implementation's output: without this
a proof about the model says nothing about our code. Problems: `generate.seeded` "small" profile, seeded,
adapted to what the model covers (no racks, no lag; equal subscriptions for the constrained models)."""

import pytest

from assigncheck.generate.seeded import generate
from assigncheck.spec.model import Member, Problem
from assigncheck.targets import registry
from assigncheck.verify.model_problems import evaluate
from assigncheck.verify.models import MODELS

PROBLEMS = 60  # the slow test below runs 500


def adapt(problem: Problem, equal: bool, protocol: str) -> Problem:
    union = frozenset().union(*(m.subscription for m in problem.members))
    members = tuple(
        Member(m.member_id, union if equal else m.subscription, m.owned, m.generation, m.instance_id, None)
        for m in problem.members
    )
    return Problem(problem.topics, members, protocol=protocol)


def problems(model, how_many=PROBLEMS):
    out = []
    for k in range(how_many):
        p = generate("small", 4, 0, k)
        if p.members:  # a model's shape has at least one member
            out.append(adapt(p, model.equal_subscriptions, model.protocol))
    return out


def assert_conforms(name, how_many):
    model = MODELS[name]
    assignor = registry.get(model.assignor)
    cases = problems(model, how_many)
    assert len(cases) >= 0.95 * how_many
    mismatches = []
    for problem in cases:
        expected = assignor.assign(problem)
        got = evaluate(model, problem)
        if got != expected:
            mismatches.append((problem, expected.as_lists(), got.as_lists()))
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[0]}"


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_equals_implementation(name):
    assert_conforms(name, PROBLEMS)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_equals_implementation_500(name):
    assert_conforms(name, 500)


def test_conformance_is_not_vacuous():
    """The broken variant of the constrained model must disagree with the implementation somewhere."""
    from assigncheck.verify.models import BROKEN

    broken = BROKEN["sticky-constrained:ceiling-for-all"]
    assignor = registry.get("sticky-constrained")
    assert any(evaluate(broken, p) != assignor.assign(p) for p in problems(broken))
