"""The checks that run the assignor (docs/SPEC.md §3-§8): `check_assignor` runs it under H7 and judges its output
(`spec.assignment_check.check_assignment`), then runs it again for H8 (determinism, order independence), `fixpoint`,
`exact` and cooperative rounds, as its promises ask."""

from __future__ import annotations

import random
from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import replace
from typing import Any

import numpy as np

from assigncheck.run.calls import hang_limit, run_assignor, timer_handlers
from assigncheck.spec.assignment_check import (
    SMALL,
    VECTORIZED,
    Quality,
    Report,
    check_assignment,
    checks_for,
    differing_members,
    in_domain,
)
from assigncheck.spec.errors import AssignorFailed, InputError
from assigncheck.spec.groups import protocol_form
from assigncheck.spec.invariants import CAP, and_more
from assigncheck.spec.model import (
    Assignment,
    Member,
    Partitions,
    PartitionSet,
    Problem,
    StreamsProblem,
    partitions_of,
)
from assigncheck.spec.promises import Assignor, Promises
from assigncheck.spec.rounds import next_round, run_rounds
from assigncheck.spec.small.views import is_small
from assigncheck.spec.violations import Violation


def _differs(invariant: str, what: str, a: Assignment, b: Assignment) -> list[Violation]:
    diff = differing_members(a, b)
    if not diff:
        return []
    names = ", ".join(diff[:CAP]) + and_more(len(diff), CAP)
    return [Violation(invariant, f"{what}; members whose partitions differ: {names}", tuple(diff[:CAP]))]


def _shuffled_parts(parts: Partitions, rng: np.random.Generator) -> Partitions:
    topics = list(parts)
    return partitions_of({topics[i]: rng.permutation(parts[topics[i]]) for i in rng.permutation(len(topics)).tolist()})


def shuffled_problem(problem: Problem | StreamsProblem, seed: int) -> Problem | StreamsProblem:
    """The same problem with members, topics, subscriptions and claims listed in another (seeded) order; the
    members' order always differs when there are two or more (a random one could be the identity)."""
    if isinstance(problem, Problem) and is_small(problem):
        return _shuffled_small(problem, seed)
    rng = np.random.default_rng(seed)
    if isinstance(problem, StreamsProblem):
        clients = [
            replace(c, active=_shuffled_parts(c.active, rng), standby=_shuffled_parts(c.standby, rng))
            for c in problem.clients
        ]
        return replace(problem, clients=tuple(clients[i] for i in _moved(rng.permutation(len(clients)))))
    members = [
        Member(m.member_id, frozenset(rng.permutation(sorted(m.subscription)).tolist()),
               _shuffled_parts(m.owned, rng), m.generation, m.instance_id, m.rack)
        for m in problem.members
    ]
    names = list(problem.topics)
    topics = {names[i]: problem.topics[names[i]] for i in rng.permutation(len(names)).tolist()}
    order = _moved(rng.permutation(len(members)))
    return problem.replace(members=tuple(members[i] for i in order), topics=topics)


def _moved(order: Any) -> list[int]:
    """A permutation that is not the identity (reversed if it was), when it has two or more entries."""
    order = list(order)
    return order[::-1] if len(order) > 1 and order == sorted(order) else order


def _shuffled_small(problem: Problem, seed: int) -> Problem:
    """`shuffled_problem` with Python's seeded generator: a few list sorts by random keys instead of a numpy call
    per array (and cheaper than `random.shuffle`'s bounded draws). A `PartitionSet` keeps its topics in name
    order; only the order inside each topic can change."""
    draw = random.Random(seed).random

    def mixed(values: Iterable[Any]) -> list[Any]:
        return sorted(values, key=lambda _: draw())

    members = []
    for m in problem.members:
        owned = m.owned
        if owned.count:
            codes, bounds, indices = owned.lists()
            flat = tuple(i for k in range(len(codes)) for i in mixed(indices[bounds[k]:bounds[k + 1]]))
            owned = PartitionSet.of_lists(owned.table, codes, bounds, flat, False)
        members.append(Member(m.member_id, frozenset(mixed(sorted(m.subscription))), owned, m.generation,
                              m.instance_id, m.rack))
    names = mixed(problem.topics)
    return problem.replace(members=tuple(members[i] for i in _moved(mixed(range(len(members))))),
                           topics={t: problem.topics[t] for t in names})


def _with_round(report: Report, k: int) -> list[Violation]:
    return [Violation(v.invariant, f"round {k}: {v.message}", v.members, v.partitions) for v in report.violations]


def check_assignor(
    assignor: Assignor, problem: Problem | StreamsProblem, *, promises: Promises | None = None,
    budget_s: float | None = 10.0, seed: int = 0, oracle: bool | None = None, measure: bool = True,
    hang_s: float | None = None,
) -> tuple[Assignment | None, Report]:
    """Run `assignor` on `problem` and check everything it must and promises to do (docs/SPEC.md §3-§8):
    H7 (no crash, within `budget_s` per call), the output (`check_assignment`), H8 determinism and
    order independence (when promised), `fixpoint`, `exact` and cooperative rounds (when promised).
    Never raises for an assignor's failure; an unknown `exact` reference name is an `InputError`.
    `measure=False` leaves the quality table out (see `check_assignment`)."""
    with timer_handlers() if budget_s is not None else nullcontext():
        return _check_assignor(assignor, problem, promises, budget_s, seed, oracle, measure, hang_s)


def _check_assignor(
    assignor: Assignor, problem: Problem | StreamsProblem, promises: Promises | None, budget_s: float | None,
    seed: int, oracle: bool | None, measure: bool, hang_s: float | None,
) -> tuple[Assignment | None, Report]:
    promises = promises or assignor.promises
    name = getattr(assignor, "name", type(assignor).__name__)
    problem = protocol_form(problem, promises)
    listed = shuffled_problem(problem, seed) if promises.order_independent else None
    _prefetch(assignor, [problem, problem, *([listed] if listed is not None else [])], budget_s, hang_s)
    try:
        out = run_assignor(assignor, problem, budget_s, hang_s)
    except AssignorFailed as f:
        return None, Report((f.violation,), {})
    report = check_assignment(problem, out, promises, oracle=oracle, measure=measure)
    extra: list[Violation] = []
    quality: Quality = {}
    try:
        extra += _determinism(assignor, name, problem, listed, out, budget_s, hang_s)
        domain = isinstance(problem, StreamsProblem) or in_domain(problem, promises)
        if promises.exact is not None and domain:
            extra += _exact(promises.exact, problem, out)
        final_problem, final_out = problem, out
        if isinstance(problem, Problem) and problem.protocol == "cooperative" and promises.max_rounds and domain:
            final_problem, final_out, rounds_violations, n_rounds = _cooperative_rounds(
                assignor, problem, out, promises, budget_s, oracle, hang_s)
            extra += rounds_violations
            quality["rounds"] = n_rounds
        if (promises.fixpoint and domain and isinstance(final_problem, Problem)
                and checks_for(final_problem, final_out).withheld(final_problem, final_out) == 0):
            again = run_assignor(assignor, next_round(final_problem, final_out), budget_s, hang_s)
            extra += _differs("fixpoint", f"feeding {name}'s output back as the owned partitions changes it",
                              final_out, again)
    except AssignorFailed as f:
        extra.append(f.violation)
    return out, report.merge(Report(tuple(extra), quality))


def _prefetch(assignor: Assignor, problems: list[Problem | StreamsProblem], budget_s: float | None,
              hang_s: float | None) -> None:
    """An outside process: the runs known in advance in one round trip, if it can."""
    prefetch = getattr(assignor, "prefetch", None) if hasattr(assignor, "assign_metered") else None
    if prefetch is not None:
        prefetch(problems, cpu_budget_s=budget_s,
                 hang_s=hang_s if hang_s is not None or budget_s is None else hang_limit(budget_s))


def _determinism(assignor: Assignor, name: str, problem: Problem | StreamsProblem,
                 listed: Problem | StreamsProblem | None, out: Assignment, budget_s: float | None,
                 hang_s: float | None) -> list[Violation]:
    """H8: a second run on the same problem, and one on the problem listed in another order (`listed`, when order
    independence is promised), give `out` again."""
    again = run_assignor(assignor, problem, budget_s, hang_s)
    found = _differs("H8", f"two runs of {name} on the same problem differ", out, again)
    if listed is not None:
        shuffled = run_assignor(assignor, listed, budget_s, hang_s)
        found += _differs("H8", f"{name} depends on the order members, topics or claims are listed in", out, shuffled)
    return found


def _exact(reference_name: str, problem: Problem | StreamsProblem, out: Assignment) -> list[Violation]:
    from assigncheck.spec.reference import REFERENCES

    if reference_name not in REFERENCES:
        raise InputError("promises.exact", f"unknown reference {reference_name!r}; known: {', '.join(REFERENCES)}")
    expected = REFERENCES[reference_name].assign(problem)
    return _differs("exact", f"differs from the {reference_name} reference", expected, out)


def _cooperative_rounds(
    assignor: Assignor, problem: Problem, first: Assignment, promises: Promises, budget_s: float | None,
    oracle: bool | None, hang_s: float | None,
) -> tuple[Problem, Assignment, list[Violation], int]:
    """Rebalance until nothing is withheld (docs/SPEC.md §6.2): every round meets H1-H6, the rounds converge
    within `max_rounds`, and the promises hold on the final round. Round 1 (`first`, the output already
    run and checked, H8 included) is not run again."""
    assert promises.max_rounds is not None

    def assign(p: Problem) -> Assignment:
        return first if p is problem else run_assignor(assignor, p, budget_s, hang_s)

    rounds = run_rounds(assign, problem, promises.max_rounds)
    violations: list[Violation] = []
    for k, (p, out) in enumerate(rounds[1:], start=2):
        violations += _with_round(check_assignment(p, out, promises, oracle=oracle, measure=False), k)
    if promises.eager:  # it speaks both protocols: each round is its eager assignment minus the transfers
        for k, (p, out) in enumerate(rounds, start=1):
            eager = run_assignor(assignor, p.with_protocol("eager"), budget_s, hang_s)
            c = checks_for(p, out) if checks_for(p, eager) is SMALL else VECTORIZED
            violations += _with_round(Report(tuple(c.cooperative_withhold(p, out, eager))), k)
    last_problem, last_out = rounds[-1]
    still = checks_for(last_problem, last_out).withheld(last_problem, last_out)
    if still:
        violations.append(Violation(
            "cooperative.rounds",
            f"still withholding {still} partition(s) after {len(rounds)} round(s); "
            f"promised at most {promises.max_rounds}",
        ))
    return last_problem, last_out, violations, len(rounds)

__all__ = ["check_assignor", "shuffled_problem"]
