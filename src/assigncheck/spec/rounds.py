"""The next rebalance of the same group: feed an assignment back as the members' claims."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from assigncheck.spec.model import SMALL_ROWS, Assignment, Member, Partitions, PartitionSet, Problem, iter_pairs


def next_generation(problem: Problem) -> int:
    """The generation every member holds after a completed rebalance (Kafka's start at 1)."""
    return max([m.generation for m in problem.members] + [0]) + 1


def next_round(problem: Problem, assignment: Assignment) -> Problem:
    """Members now claim what they were given, all at the next generation; nothing else changes.

    This is the input of the fixpoint check (docs/SPEC.md §5.3) and of cooperative round 2 (§6.2).
    """
    gen = next_generation(problem)
    members = tuple(
        Member(m.member_id, m.subscription, assignment.get(m.member_id), gen, m.instance_id, m.rack)
        for m in problem.members
    )
    return problem.replace(members=members)


def unassigned(problem: Problem, assignment: Assignment) -> list[tuple[str, int]]:
    """Partitions of subscribed topics that nobody got (withheld, in a cooperative round)."""
    if sum(problem.topics.values()) <= SMALL_ROWS:  # plain sets beat a numpy call per topic
        got = {(t, i) for p in assignment.by_member.values() for t, i in _pairs(p)}
        return [(t, i) for t in problem.subscribed_topics() for i in range(problem.topics[t]) if (t, i) not in got]
    missing: list[tuple[str, int]] = []
    for topic in problem.subscribed_topics():
        n = problem.topics[topic]
        seen = np.zeros(n, dtype=bool)
        for parts in assignment.by_member.values():
            arr = parts.get(topic)
            if arr is not None:
                seen[arr[(arr >= 0) & (arr < n)]] = True
        missing.extend((topic, int(i)) for i in np.flatnonzero(~seen))
    return missing


def _pairs(parts: Partitions) -> list[tuple[str, int]]:
    if isinstance(parts, PartitionSet) and parts.count <= SMALL_ROWS:
        codes, bounds, indices = parts.lists()
        names = parts.table.names
        return [(names[c], i) for k, c in enumerate(codes) for i in indices[bounds[k]:bounds[k + 1]]]
    return list(iter_pairs(parts))


def run_rounds(
    assign: Callable[[Problem], Assignment], problem: Problem, max_rounds: int = 4
) -> list[tuple[Problem, Assignment]]:
    """Cooperative rebalancing (docs/SPEC.md §6.2): rebalance until nothing is withheld, at most `max_rounds`.

    Returns each round's input and output; the caller judges whether the last round completed.
    """
    rounds = []
    current = problem
    for _ in range(max_rounds):
        out = assign(current)
        rounds.append((current, out))
        if not unassigned(current, out):
            break
        current = next_round(current, out)
    return rounds

__all__ = ["next_round", "run_rounds", "unassigned"]
