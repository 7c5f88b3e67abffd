"""The quota arithmetic of the constrained algorithms (docs/SPEC.md §8.3, docs/ALGORITHMS.md), proved by Z3 over
unbounded integers: no bound on partitions, members or owned counts.

P = f*C + r with 0 <= r < C stands for f = P div C, r = P mod C (that is their definition), which keeps
the statements free of div/mod. Member vectors cannot be unbounded, so the counting arguments are stated
over the aggregates the algorithms use (how many members are below, at, above f; their kept sums).
The closed form of max_retained ranges over every member vector of up to MAX_RETAINED_MEMBERS members
(unbounded owned counts and f), against the definition: the best over every choice of the r members
given the ceiling quota.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import z3

MAX_RETAINED_MEMBERS = 6


@dataclass(frozen=True)
class Lemma:
    name: str
    statement: Callable[[], tuple[list[z3.BoolRef], z3.BoolRef]]  # (hypotheses, claim)


def _quota() -> tuple[z3.ArithRef, z3.ArithRef, z3.ArithRef, z3.ArithRef, z3.ArithRef, list[z3.BoolRef]]:
    P, C, f, r = z3.Ints("P C f r")
    c = z3.If(r > 0, f + 1, f)
    return P, C, f, r, c, [C >= 1, f >= 0, r >= 0, r < C, P == f * C + r]


def _totals() -> tuple[list[z3.BoolRef], z3.BoolRef]:
    P, C, f, r, _, hyp = _quota()
    return hyp, r * (f + 1) + (C - r) * f == P


def _ceiling_count() -> tuple[list[z3.BoolRef], z3.BoolRef]:
    """Perfect balance with total P forces exactly r members at the ceiling f + 1 (when r > 0)."""
    P, C, f, r, _, hyp = _quota()
    k = z3.Int("k")
    return hyp + [r > 0, 0 <= k, k <= C, k * (f + 1) + (C - k) * f == P], k == r


def _ceiling_is_ceil() -> tuple[list[z3.BoolRef], z3.BoolRef]:
    P, C, f, r, c, hyp = _quota()
    return hyp, z3.And(c * C >= P, (c - 1) * C < P)


def _aggregates() -> tuple[z3.ArithRef, ...]:
    a, e, n_max, s = z3.Ints("below at above below_sum")  # members with v < f, v == f, v > f; sum of v below f
    return a, e, n_max, s


def _four_phase_steals() -> tuple[list[z3.BoolRef], z3.BoolRef]:
    """KIP-615 phase 3 steals exactly n_max - r when that is positive, phase 4 hands out r - n_max
    otherwise, and the queue (n_max) and the members outside it (C - n_max) always suffice."""
    P, C, f, r, c, hyp = _quota()
    a, e, n_max, s = _aggregates()
    hyp = hyp + [a >= 0, e >= 0, n_max >= 0, a + e + n_max == C, s >= 0, s <= a * (f - 1), z3.Or(a == 0, f >= 1)]
    kept = s + e * f + n_max * c
    unkept, need = P - kept, a * f - s
    short = need - unkept
    claim = z3.And(
        z3.Implies(r == 0, short == 0),
        z3.Implies(r > 0, short == n_max - r),
        z3.Implies(short > 0, short <= n_max),
        z3.Implies(short < 0, -short <= C - n_max),
    )
    return hyp, claim


def _two_phase_fill() -> tuple[list[z3.BoolRef], z3.BoolRef]:
    """KAFKA-12464 phase 2: the unkept partitions are exactly the members' needs (H5 and balance follow),
    given phase 1 lets at most r members keep c."""
    P, C, f, r, c, hyp = _quota()
    n_max, low_sum, rest = z3.Ints("n_max low_sum others")  # keepers of c; sum of min(v, f) of the others
    hyp = hyp + [n_max >= 0, n_max <= r, rest == C - n_max, low_sum >= 0, low_sum <= rest * f]
    kept = n_max * c + low_sum
    need = rest * f + (r - n_max) - low_sum  # targets f, plus c for r - n_max of the others
    return hyp, z3.And(P - kept == need, r - n_max <= rest)


def _max_retained_closed_form(members: int) -> Callable[[], tuple[list[z3.BoolRef], z3.BoolRef]]:
    """Definition: max over the sets S of r ceiling members of sum min(v_m, f + [m in S]).
    Closed form: sum min(v_m, f) + min(r, #{v_m >= c})."""

    def statement() -> tuple[list[z3.BoolRef], z3.BoolRef]:
        f = z3.Int("f")
        v = z3.Ints(" ".join(f"v{m}" for m in range(members)))
        claims = []
        for r in range(members):
            c = f + (1 if r else 0)
            closed = z3.Sum([z3.If(x < f, x, f) for x in v]) + z3.If(
                r < z3.Sum([z3.If(x >= c, 1, 0) for x in v]), r, z3.Sum([z3.If(x >= c, 1, 0) for x in v])
            )
            options = [
                z3.Sum([z3.If(x < f + (1 if m in ceiling else 0), x, f + (1 if m in ceiling else 0)) for m, x in
                        enumerate(v)])
                for ceiling in combinations(range(members), r)
            ]
            claims.append(z3.And(*[o <= closed for o in options], z3.Or(*[o == closed for o in options])))
        return [f >= 0, *[x >= 0 for x in v]], z3.And(*claims)

    return statement


LEMMAS: tuple[Lemma, ...] = (
    Lemma("totals: r*(f+1) + (C-r)*f == P", _totals),
    Lemma("ceiling count: perfect balance puts exactly r members at f+1", _ceiling_count),
    Lemma("c == ceil(P/C)", _ceiling_is_ceil),
    Lemma("2-phase: unkept partitions == sum of needs", _two_phase_fill),
    Lemma("4-phase: phase 3 steals n_max - r, phase 4 gives r - n_max", _four_phase_steals),
    *(
        Lemma(f"max_retained closed form, {n} members", _max_retained_closed_form(n))
        for n in range(1, MAX_RETAINED_MEMBERS + 1)
    ),
)


def prove_lemma(lemma: Lemma, seconds: float = 30.0) -> tuple[str, z3.ModelRef | None]:
    """("proved" | "counterexample" | "unknown", the counterexample model if any)."""
    hypotheses, claim = lemma.statement()
    solver = z3.Solver()
    solver.set("timeout", int(seconds * 1000))
    solver.add(*hypotheses, z3.Not(claim))
    status = solver.check()
    if status == z3.unsat:
        return "proved", None
    if status == z3.sat:
        return "counterexample", solver.model()
    return "unknown", None
