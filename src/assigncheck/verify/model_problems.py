"""Between concrete problems and a model's inputs: evaluate a model on a `Problem` (conformance), and turn
a solver's counterexample back into a `Problem` (replay, regression vectors)."""

from __future__ import annotations

import z3

from assigncheck.spec.errors import InputError
from assigncheck.spec.model import Assignment, Member, Problem, iter_pairs, partitions_of
from assigncheck.verify.models.base import Model
from assigncheck.verify.models.encoding import Inputs, Shape, concrete


def _member_order(model: Model, problem: Problem) -> list[Member]:
    if model.member_order == "sort_key":
        return sorted(problem.members, key=Member.sort_key)
    return sorted(problem.members, key=lambda m: m.member_id)


def _topics(model: Model, problem: Problem) -> list[str]:
    if model.equal_subscriptions:
        return list(problem.subscribed_topics())
    return sorted(problem.topics)


def problem_inputs(model: Model, problem: Problem) -> tuple[Inputs, list[str], list[str]]:
    """The model's concrete inputs for `problem`, with the member ids and topic names in shape order.

    Generations are replaced by their rank among the problem's distinct generations (0 = lowest):
    valid ownership only compares them. Junk claims are dropped: no rule lets them count, and the
    cooperative withholding only asks about partitions the assignor hands out, which exist.
    """
    if not problem.members:
        raise InputError("members", "a model needs at least one member")
    if model.equal_subscriptions and not problem.subscriptions_equal():
        raise InputError("members", f"the {model.name} model needs equal subscriptions")
    members = _member_order(model, problem)
    topics = _topics(model, problem)
    shape = Shape(len(members), tuple(problem.topics[t] for t in topics))
    slot = {tp: p for p, tp in enumerate((topics[t], i) for t, i in shape.partitions)}
    claims = [[False] * shape.partition_count for _ in members]
    for row, m in zip(claims, members):
        for tp in iter_pairs(m.owned):
            if tp in slot:
                row[slot[tp]] = True
    ranks = {g: i for i, g in enumerate(sorted({m.generation for m in members}))}
    gens = [ranks[m.generation] for m in members]
    subs = [[t in m.subscription for t in topics] for m in members]
    return concrete(shape, claims, gens, subs), [m.member_id for m in members], topics


def evaluate(model: Model, problem: Problem) -> Assignment:
    """The model's output on `problem` (every output term simplifies to a constant)."""
    inp, ids, topics = problem_inputs(model, problem)
    out = model.assign(inp)
    by_member: dict[str, list[tuple[str, int]]] = {}
    for m, row in zip(ids, out):
        pairs = []
        for p, term in enumerate(row):
            value = z3.simplify(term)
            if not z3.is_true(value) and not z3.is_false(value):
                raise AssertionError(f"model output for {m} did not reduce to a constant: {value}")
            if z3.is_true(value):
                t, i = inp.shape.partitions[p]
                pairs.append((topics[t], i))
        by_member[m] = pairs
    for member in problem.members:  # members of the problem the order missed cannot exist; keep H1 literal
        by_member.setdefault(member.member_id, [])
    return Assignment.of(by_member)


def problem_from_model(model: Model, inp: Inputs, solution: z3.ModelRef) -> Problem:
    """The concrete problem a counterexample describes: members m0.. (in shape order), topics t0..."""
    shape = inp.shape
    width = len(str(max(shape.members - 1, 0)))
    topics = {f"t{t:0{len(str(max(len(shape.topics) - 1, 0)))}d}": n for t, n in enumerate(shape.topics)}
    names = list(topics)
    members = []
    for m in range(shape.members):
        owned = [
            (names[t], i)
            for p, (t, i) in enumerate(shape.partitions)
            if z3.is_true(solution.eval(inp.claims[m][p], model_completion=True))
        ]
        code = solution.eval(inp.gens[m], model_completion=True).as_long()
        subs = frozenset(names[t] for t in range(len(names)) if z3.is_true(solution.eval(inp.subs[m][t], True)))
        members.append(Member(f"m{m:0{width}d}", subs, partitions_of(owned), -1 if code == 0 else code))
    return Problem(topics, tuple(members), protocol=model.protocol)
