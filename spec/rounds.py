"""The next rebalance of the same group: feed an assignment back as the members' claims."""

from __future__ import annotations

from .model import Assignment, Member, Problem


def next_generation(problem: Problem) -> int:
    """The generation every member holds after a completed rebalance (Kafka's start at 1)."""
    return max([m.generation for m in problem.members] + [0]) + 1


def next_round(problem: Problem, assignment: Assignment) -> Problem:
    """Members now claim what they were given, all at the next generation; nothing else changes.

    This is the input of the fixpoint check (SPEC.md §5) and of cooperative round 2 (§6).
    """
    gen = next_generation(problem)
    members = tuple(
        Member(m.member_id, m.subscription, assignment.get(m.member_id), gen, m.instance_id, m.rack)
        for m in problem.members
    )
    return problem.replace(members=members)
