"""The checker: judge one output (`check_assignment`) or one assignor on one problem (`check_assignor`).

A `Report` carries every violation (hard invariants always; the promises the caller declares) and a
quality table of every measure, whether promised or not (docs/SPEC.md §8.1: undeclared promises are measured
and reported, not enforced).

Oracle figures (optimal Σ count², max retained) come from a min-cost flow whose size grows with the
(topic, subscriber) pairs; they are computed when the problem has at most `ORACLE_MAX_PAIRS` such pairs
and `ORACLE_MAX_MEMBERS` members, or whenever the caller passes `oracle=True` (`oracle=False` never).
Above that, promises that need them (balance "optimal", stickiness "max_retained") are not enforced
and their figures are None.

**Two paths, one answer**: every check runs either vectorized (`VECTORIZED`: `spec.invariants`, `balance`,
`stickiness`, `racks`) or in plain Python for a small problem and output (`SMALL`: `spec.small.assignment_check`;
`spec.small.views.is_small`), the same violations word for word and the same measures; `checks_for` is the one place
the choice is made, and `tests/spec/small/test_checks.py` holds the twins equal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from assigncheck.spec import balance as bal
from assigncheck.spec import racks, stickiness
from assigncheck.spec.groups import share_h4
from assigncheck.spec.invariants import check_hard, cooperative_withhold
from assigncheck.spec.model import Assignment, Problem, StreamsProblem, partitions_equal
from assigncheck.spec.oracle import max_retained, optimal_sum_squares
from assigncheck.spec.promises import Promises
from assigncheck.spec.small import assignment_check as sc
from assigncheck.spec.small.views import is_small, output_is_small
from assigncheck.spec.violations import Violation

ORACLE_MAX_PAIRS = 300_000  # measured: both figures together take about 3 s there
ORACLE_MAX_MEMBERS = 5_000

Quality = dict[str, int | float | None]


@dataclass(frozen=True)
class Report:
    violations: tuple[Violation, ...] = ()
    quality: Quality = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.violations

    def merge(self, *others: Report) -> Report:
        """Violations concatenated in order; quality figures of later reports win on equal names."""
        quality = dict(self.quality)
        for other in others:
            quality.update(other.quality)
        return Report(self.violations + tuple(v for o in others for v in o.violations), quality)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "violations": [v.to_json() for v in self.violations], "quality": dict(self.quality)}


def oracle_affordable(problem: Problem) -> bool:
    pairs = sum(len(m.subscription & problem.topics.keys()) for m in problem.members)
    return pairs <= ORACLE_MAX_PAIRS and len(problem.members) <= ORACLE_MAX_MEMBERS


def oracle_balance(problem: Problem, promises: Promises) -> str | None:
    """The balance the oracle's max_retained is taken under, or None when the oracle does not model it."""
    if promises.balance == "perfect":
        return "perfect" if problem.subscriptions_equal() else "none"
    if promises.balance == "uniform":  # local balance elsewhere: no oracle models it
        return "perfect" if problem.subscriptions_equal() else None
    if problem.group_type == "share":  # several owners per partition: no oracle models them
        return None
    return promises.balance if promises.balance in ("none", "optimal") else None


def in_domain(problem: Problem, promises: Promises) -> bool:
    return not (promises.equal_subscriptions_only and not problem.subscriptions_equal())


class _Checks(NamedTuple):
    """One implementation of every check `check_assignment` runs: vectorized (`spec.invariants`, `balance`,
    `stickiness`, `racks`) or plain Python for small problems (`spec.small.assignment_check`, held equal by tests)."""

    check_hard: Callable[[Problem, Assignment], list[Violation]]
    balance: Mapping[str, Callable[[Problem, Assignment], list[Violation]]]
    max_retained_violations: Callable[[Problem, Assignment, str, bool], list[Violation]]
    rack_violations: Callable[[Problem, Assignment, str], list[Violation]]
    per_topic_spread_violations: Callable[[Problem, Assignment], list[Violation]]
    spread: Callable[[Problem, Assignment], int]
    sum_squares: Callable[[Problem, Assignment], int]
    retained: Callable[[Problem, Assignment], int]
    moves: Callable[[Problem, Assignment], int]
    withheld: Callable[[Problem, Assignment], int]
    per_topic_spread: Callable[[Problem, Assignment], int]
    mismatches: Callable[[Problem, Assignment], int]
    cooperative_withhold: Callable[[Problem, Assignment, Assignment], list[Violation]]
    certify_max_retained: Callable[[Problem, Assignment, str, bool], None]  # settles the oracle's figure, if it can


VECTORIZED = _Checks(check_hard, bal.BALANCE_CHECKS, stickiness.max_retained_violations, racks.rack_violations,
                     stickiness.per_topic_spread_violations, bal.spread, bal.sum_squares, stickiness.retained,
                     stickiness.moves, stickiness.withheld,
                     stickiness.per_topic_spread, racks.mismatches, cooperative_withhold,
                     lambda *_: None)
SMALL = _Checks(sc.check_hard, sc.BALANCE_CHECKS, sc.max_retained_violations, sc.rack_violations,
                sc.per_topic_spread_violations, sc.spread, sc.sum_squares, sc.retained, sc.moves, sc.withheld,
                sc.per_topic_spread, sc.mismatches, sc.cooperative_withhold, sc.certify_max_retained)


def checks_for(problem: Problem, assignment: Assignment) -> _Checks:
    """The plain-Python checks for a small problem and output, the vectorized ones otherwise."""
    return SMALL if is_small(problem) and output_is_small(assignment) else VECTORIZED


def check_assignment(
    problem: Problem | StreamsProblem, assignment: Assignment, promises: Promises | None = None,
    *, oracle: bool | None = None, measure: bool = True, checks: _Checks | None = None,
) -> Report:
    """H1-H6 always; the promised balance, stickiness and per-topic spread when nothing is withheld and
    the problem is in the assignor's domain (docs/SPEC.md §6.2, §8.1); every measure in `quality` (unless not
    `measure`: a caller that wants only the verdict, such as the fuzzer, skips the measures' cost).
    `checks` forces one implementation (`VECTORIZED` or `SMALL`); by default the problem's size picks."""
    if isinstance(problem, StreamsProblem):
        from assigncheck.spec.streams_checks import check_streams

        return check_streams(problem, assignment, promises, measure)
    c = checks or checks_for(problem, assignment)
    promises = promises or Promises()
    use_oracle = oracle_affordable(problem) if oracle is None else oracle
    ob = oracle_balance(problem, promises)
    held = c.withheld(problem, assignment)
    violations = c.check_hard(problem, assignment)
    if problem.group_type == "share":
        violations = [v for v in violations if v.invariant != "H4"] + share_h4(problem, assignment)
    enforce = held == 0 and in_domain(problem, promises)
    if use_oracle and ob is not None and held == 0 and not violations:
        c.certify_max_retained(problem, assignment, ob, promises.racks)
    if enforce:
        violations += _promised(c, problem, assignment, promises, ob if use_oracle else None, use_oracle)
    if not measure:
        return Report(tuple(violations), {"withheld": held, "promises_enforced": int(enforce)})
    quality = _measures(c, problem, assignment, use_oracle, ob if use_oracle else None, promises.racks)
    return Report(tuple(violations), {**quality, "withheld": held, "promises_enforced": int(enforce)})


def _promised(c: _Checks, problem: Problem, assignment: Assignment, promises: Promises, ob: str | None,
              use_oracle: bool) -> list[Violation]:
    """The violations of the promises (`ob`: the oracle's balance, None when the oracle is not used or cannot say)."""
    out: list[Violation] = []
    if promises.balance != "none" and (promises.balance != "optimal" or use_oracle):
        out += c.balance[promises.balance](problem, assignment)
    if promises.stickiness == "max_retained" and ob is not None:
        out += c.max_retained_violations(problem, assignment, ob, promises.racks)
    if promises.racks and ob is not None:
        out += c.rack_violations(problem, assignment, ob)
    if promises.per_topic_spread:
        out += c.per_topic_spread_violations(problem, assignment)
    return out


def _measures(c: _Checks, problem: Problem, assignment: Assignment, use_oracle: bool, ob: str | None,
              racks: bool) -> Quality:
    """Every measure but the two the caller knows (withheld, promises_enforced), in the report's order."""
    return {
        "members": len(problem.members),
        "partitions": problem.partition_count,
        "spread": c.spread(problem, assignment),
        "sum_squares": c.sum_squares(problem, assignment),
        "optimal_sum_squares": optimal_sum_squares(problem) if use_oracle else None,
        "retained": c.retained(problem, assignment),
        "max_retained": max_retained(problem, ob, racks) if ob is not None else None,
        "moves": c.moves(problem, assignment),
        "withheld": None,  # the caller's, kept here for the order
        "per_topic_spread": c.per_topic_spread(problem, assignment),
        "rack_mismatches": c.mismatches(problem, assignment),
        "promises_enforced": None,  # the caller's
    }


def differing_members(a: Assignment, b: Assignment) -> list[str]:
    """Member ids whose partitions differ between two outputs (or that only one output names)."""
    x, y = a.by_member, b.by_member
    ids = sorted(set(x) | set(y))
    return [m for m in ids if m not in x or m not in y or (x[m] is not y[m] and not partitions_equal(x[m], y[m]))]

__all__ = [
    "Quality", "Report", "SMALL", "VECTORIZED", "check_assignment", "checks_for", "differing_members", "in_domain",
    "oracle_affordable", "oracle_balance"
]
