"""The oracle's figures for the last problem seen, so one report asks the (costly) oracle once.

The oracle itself (`spec.oracle`, OR-Tools min-cost flow) is imported lazily: only checks that need
an optimum pay for it.
"""

from __future__ import annotations

from assigncheck.spec.model import Problem

_last: tuple[object, dict[tuple[str, str], int | None]] | None = None


def _memo(problem: Problem) -> dict[tuple[str, str], int | None]:
    global _last
    cached = _last
    if cached is None or cached[0] is not problem:
        cached = (problem, {})
        _last = cached
    return cached[1]


def optimal_sum_squares(problem: Problem) -> int:
    """The minimum Σ count² over assignments meeting H1-H5."""
    memo = _memo(problem)
    if ("sum_squares", "") not in memo:
        from assigncheck.spec.oracle import optimal_sum_squares as compute

        memo[("sum_squares", "")] = compute(problem)
    return memo[("sum_squares", "")]  # type: ignore[return-value]  # always a figure, never None


def max_retained(problem: Problem, balance: str, racks: bool = False) -> int | None:
    """The most validly owned partitions kept under `balance` ("none", "perfect", "optimal") and, with
    `racks`, the fewest rack mismatches under it; None when no assignment meets that balance."""
    memo = _memo(problem)
    key = ("max_retained", f"{balance}{'+racks' if racks else ''}")
    if key not in memo:
        from assigncheck.spec.oracle import max_retained as compute

        memo[key] = compute(problem, balance, racks)
    return memo[key]


def min_mismatches(problem: Problem, balance: str) -> int | None:
    """The fewest rack mismatches under `balance` (`spec.racks`); None when no assignment meets it."""
    memo = _memo(problem)
    key = ("min_mismatches", balance)
    if key not in memo:
        from assigncheck.spec.oracle import min_mismatches as compute

        memo[key] = compute(problem, balance)
    return memo[key]


def settle_max_retained(problem: Problem, balance: str, racks: bool, value: int) -> None:
    """Record `max_retained(problem, balance, racks)` proved without the oracle (a feasible assignment that
    reaches an upper bound: `spec.small.assignment_check.certify_max_retained`)."""
    _memo(problem)[("max_retained", f"{balance}{'+racks' if racks else ''}")] = value


def settle_min_mismatches(problem: Problem, balance: str, value: int) -> None:
    """Record `min_mismatches(problem, balance)` proved without the oracle (an output meeting the balance with no
    mismatch)."""
    _memo(problem)[("min_mismatches", balance)] = value

__all__ = ["max_retained", "min_mismatches", "optimal_sum_squares", "settle_max_retained", "settle_min_mismatches"]
