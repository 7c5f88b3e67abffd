"""The one input check every built-in assignor shares: it was handed the kind of problem it solves."""

from __future__ import annotations

from assigncheck.spec.errors import InputError
from assigncheck.spec.model import AnyProblem, Problem, StreamsProblem


def require_problem(problem: AnyProblem, name: str) -> Problem:
    """A consumer-group `Problem`, or InputError naming the assignor."""
    if not isinstance(problem, Problem):
        raise InputError("problem", f"{name} assigns consumer-group problems, not {type(problem).__name__}")
    return problem


def require_streams_problem(problem: AnyProblem, name: str) -> StreamsProblem:
    """A Streams `StreamsProblem`, or InputError naming the assignor."""
    if not isinstance(problem, StreamsProblem):
        raise InputError("problem", f"{name} assigns Streams task problems, not {type(problem).__name__}")
    return problem


__all__ = ["require_problem", "require_streams_problem"]
