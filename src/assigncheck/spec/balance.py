"""Balance (docs/SPEC.md §4): the promises `perfect`, `per_topic`, `local`, `optimal` as
`(problem, assignment) -> [Violation]`, and the measures `spread` and `sum_squares`.

A member's count is every partition the output lists for it (the hard invariants judge what they are).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from assigncheck.spec.invariants import CAP, and_more
from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.oracle import optimal_sum_squares
from assigncheck.spec.partition_rows import assigned_rows, layout, member_counts, topic_counts
from assigncheck.spec.violations import Violation


def spread(problem: Problem, assignment: Assignment) -> int:
    """max - min member count (0 for an empty group)."""
    counts = member_counts(problem, assignment)
    return int(counts.max() - counts.min()) if len(counts) else 0


def sum_squares(problem: Problem, assignment: Assignment) -> int:
    """Σ count²: the quantity an optimally balanced assignment minimizes."""
    counts = member_counts(problem, assignment).astype(np.int64)
    return int((counts * counts).sum())


def _ids(problem: Problem, indices: np.ndarray) -> list[str]:
    return [problem.members[int(i)].member_id for i in indices[:CAP].tolist()]


def perfect(problem: Problem, assignment: Assignment) -> list[Violation]:
    """max - min member count <= 1; enforced only when every subscription is equal (else unreachable)."""
    if not problem.members or not problem.subscriptions_equal():
        return []
    counts = member_counts(problem, assignment)
    hi, lo = int(counts.max()), int(counts.min())
    if hi - lo <= 1:
        return []
    most, least = _ids(problem, np.flatnonzero(counts == hi)), _ids(problem, np.flatnonzero(counts == lo))
    msg = f"member counts range from {lo} ({', '.join(least)}) to {hi} ({', '.join(most)}); at most 1 apart promised"
    return [Violation("balance.perfect", msg, tuple(dict.fromkeys(most + least))[:CAP])]


def per_topic_spreads(problem: Problem, assignment: Assignment) -> list[tuple[str, int, list[str], int, list[str]]]:
    """Per subscribed topic: (topic, lowest count, who, highest count, who) among its subscribers."""
    tc, lay = topic_counts(problem, assignment), layout(problem)
    if not len(tc.topics):
        return []
    hi = np.maximum.reduceat(tc.count, tc.starts)
    lo = np.minimum.reduceat(tc.count, tc.starts)
    out = []
    for k in np.flatnonzero(hi - lo > 1).tolist():
        start = tc.starts[k]
        end = tc.starts[k + 1] if k + 1 < len(tc.starts) else len(tc.count)
        counts, members = tc.count[start:end], tc.member[start:end]
        out.append((lay.topics[int(tc.topics[k])], int(lo[k]), _ids(problem, members[counts == lo[k]]),
                    int(hi[k]), _ids(problem, members[counts == hi[k]])))
    return out


def per_topic_violations(problem: Problem, assignment: Assignment, invariant: str, why: str) -> list[Violation]:
    """Topics whose subscribers' counts differ by more than 1, as one violation named `invariant`."""
    return skew_violation(per_topic_spreads(problem, assignment), invariant, why)


def skew_violation(skewed: list[tuple[str, int, list[str], int, list[str]]], invariant: str, why: str
                   ) -> list[Violation]:
    """One violation listing skewed topics (topic, lowest count, its members, highest count, its members)."""
    if not skewed:
        return []
    texts = [f"{t}: {lo} ({', '.join(least)}) to {hi} ({', '.join(most)})" for t, lo, least, hi, most in skewed[:CAP]]
    members = [m for _, _, least, _, most in skewed[:CAP] for m in most + least]
    msg = f"{len(skewed)} topic(s) {why}: {'; '.join(texts)}{and_more(len(skewed), CAP)}"
    return [Violation(invariant, msg, tuple(dict.fromkeys(members))[:CAP])]


def per_topic(problem: Problem, assignment: Assignment) -> list[Violation]:
    """For each topic, its subscribers' counts of it differ by at most 1 (range)."""
    return per_topic_violations(problem, assignment, "balance.per-topic", "split more than 1 apart among subscribers")


def local(problem: Problem, assignment: Assignment) -> list[Violation]:
    """No improving single move (Kafka's isBalanced after KAFKA-15106): for every partition of member a
    and every member b subscribed to its topic, |A_a| <= |A_b| + 1."""
    n = len(problem.members)
    if not n:
        return []
    lay, tc, counts = layout(problem), topic_counts(problem, assignment), member_counts(problem, assignment)
    least = np.full(len(lay.topics), np.iinfo(np.int64).max // 2, dtype=np.int64)  # topics nobody subscribes
    least_member = np.full(len(lay.topics), -1, dtype=np.int64)
    if len(tc.topics):
        pair_load = counts[tc.member]
        least[tc.topics] = np.minimum.reduceat(pair_load, tc.starts)
        # the first subscriber at that minimum, to name it
        at_min = pair_load == np.repeat(least[tc.topics], np.diff(np.append(tc.starts, len(pair_load))))
        first = np.flatnonzero(at_min)
        topic_of_first = tc.topic[first]
        _, where = np.unique(topic_of_first, return_index=True)
        least_member[topic_of_first[where]] = tc.member[first[where]]
    rows = assigned_rows(problem, assignment)
    ok = np.flatnonzero((rows.gid >= 0) & (rows.member < n))
    code = np.searchsorted(lay.offsets, rows.gid[ok], side="right") - 1
    bad_mask = counts[rows.member[ok]] > least[code] + 1
    bad, bad_code = ok[bad_mask], code[bad_mask]
    if not len(bad):
        return []
    texts, members, parts = [], [], []
    for r, k in zip(bad[:CAP].tolist(), bad_code[:CAP].tolist()):
        holder, other = problem.members[int(rows.member[r])].member_id, problem.members[int(least_member[k])].member_id
        t, i = rows.pair(r)
        texts.append(f"{holder} ({counts[rows.member[r]]}) holds {t}-{i}, which {other} ({least[k]}) could take")
        members.extend([holder, other])
        parts.append((t, i))
    msg = f"{len(bad)} partition(s) could move to a member with 2+ fewer: {'; '.join(texts)}{and_more(len(bad), CAP)}"
    return [Violation("balance.local", msg, tuple(dict.fromkeys(members))[:CAP], tuple(parts))]


def optimal(problem: Problem, assignment: Assignment) -> list[Violation]:
    """Σ count² equals the minimum reachable under the subscriptions (min-cost flow oracle)."""
    best, got = optimal_sum_squares(problem), sum_squares(problem, assignment)
    if got <= best:
        return []
    counts = member_counts(problem, assignment)
    most = _ids(problem, np.flatnonzero(counts == counts.max()))
    msg = f"sum of squared counts is {got}, the optimum is {best} (gap {got - best}); most loaded: {', '.join(most)}"
    return [Violation("balance.optimal", msg, tuple(most))]


def as_uniform(violations: list[Violation]) -> list[Violation]:
    """The perfect or local violation, named for the promise it breaks."""
    return [replace(v, invariant="balance.uniform") for v in violations]


def uniform(problem: Problem, assignment: Assignment) -> list[Violation]:
    """Kafka 4's UniformAssignor: perfect on equal subscriptions (its homogeneous builder), local elsewhere."""
    return as_uniform(perfect(problem, assignment) if problem.subscriptions_equal() else local(problem, assignment))


BALANCE_CHECKS = {"perfect": perfect, "per-topic": per_topic, "local": local, "uniform": uniform, "optimal": optimal}

__all__ = [
    "BALANCE_CHECKS", "as_uniform", "local", "optimal", "per_topic", "perfect", "skew_violation", "spread",
    "sum_squares"
]
