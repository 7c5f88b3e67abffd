"""The oracle's figures for the last problem seen, so one report asks the (costly) oracle once.

The oracle itself (`spec.oracle`, OR-Tools min-cost flow) is imported lazily: only checks that need
an optimum pay for it.
"""

from __future__ import annotations

from .model import Problem

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
        from .oracle import optimal_sum_squares as compute

        memo[("sum_squares", "")] = compute(problem)
    return memo[("sum_squares", "")]  # type: ignore[return-value]


def max_retained(problem: Problem, balance: str) -> int | None:
    """The most validly owned partitions kept under `balance` ("none", "perfect", "optimal");
    None when no assignment meets that balance."""
    memo = _memo(problem)
    if ("max_retained", balance) not in memo:
        from .oracle import max_retained as compute

        memo[("max_retained", balance)] = compute(problem, balance)
    return memo[("max_retained", balance)]
