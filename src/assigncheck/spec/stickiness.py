"""Stickiness (docs/SPEC.md §5): measures `retained`, `moves`, `withheld`, `per_topic_spread`, and the
promises' checks `max_retained_violations` and `per_topic_spread_violations` (KAFKA-16277) as lists of `Violation`.

Previous ownership is always `spec.ownership.valid_owned` (docs/SPEC.md §2), never the raw claims. On rack-aware
problems (`spec.racks`) rack matching ranks above stickiness: the oracle's `max_retained(..., racks=True)` is taken
among the assignments with the fewest rack mismatches.
"""

from __future__ import annotations

import numpy as np

from assigncheck.spec.invariants import CAP, and_more
from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.oracle import max_retained
from assigncheck.spec.partition_rows import assigned_rows, last_call_cache, layout, topic_counts, unassigned, valid_rows
from assigncheck.spec.racks import member_rack, rack_aware
from assigncheck.spec.violations import Violation


@last_call_cache
def _kept(problem: Problem, assignment: Assignment) -> np.ndarray:
    """Per valid-ownership row: did its owner get it again."""
    lay, valid, rows = layout(problem), valid_rows(problem), assigned_rows(problem, assignment)
    return np.isin(valid.keys(lay), rows.keys(lay))


def retained(problem: Problem, assignment: Assignment) -> int:
    """Σ over members of |assigned ∩ valid_owned|."""
    return int(_kept(problem, assignment).sum())


def moves(problem: Problem, assignment: Assignment) -> int:
    """Validly owned partitions given elsewhere or withheld (a valid owner is present and subscribed)."""
    return len(valid_rows(problem).gid) - retained(problem, assignment)


def withheld(problem: Problem, assignment: Assignment) -> int:
    """Partitions of subscribed topics that nobody got (a cooperative round withholds transfers)."""
    return len(unassigned(problem, assignment))


def per_topic_spread(problem: Problem, assignment: Assignment) -> int:
    """max over topics of (max - min) of that topic's count among its subscribers (0 if no topic)."""
    tc = topic_counts(problem, assignment)
    if not len(tc.topics):
        return 0
    return int((np.maximum.reduceat(tc.count, tc.starts) - np.minimum.reduceat(tc.count, tc.starts)).max())


def _class_spreads(problem: Problem, assignment: Assignment) -> list[tuple[str, int, list[str], int, list[str]]]:
    """Per (topic, class of members with identical subscriptions, and racks on a rack-aware problem) whose
    counts differ by more than 1: (topic, lowest count, who, highest count, who)."""
    tc, lay = topic_counts(problem, assignment), layout(problem)
    if not len(tc.topic):
        return []
    aware = rack_aware(problem)  # members on different racks are not interchangeable there
    classes: dict[tuple[frozenset[str], str | None], int] = {}
    member_class = np.array([classes.setdefault((m.subscription, member_rack(m.rack) if aware else None),
                                                len(classes)) for m in problem.members], dtype=np.int64)
    group = tc.topic * max(len(classes), 1) + member_class[tc.member]
    order = np.lexsort((tc.member, group))
    group, count, member = group[order], tc.count[order], tc.member[order]
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    hi, lo = np.maximum.reduceat(count, starts), np.minimum.reduceat(count, starts)
    out = []
    for k in np.flatnonzero(hi - lo > 1).tolist():
        end = starts[k + 1] if k + 1 < len(starts) else len(group)
        c, ms = count[starts[k]:end], member[starts[k]:end]
        ids = [problem.members[int(i)].member_id for i in ms.tolist()]
        out.append((lay.topics[int(group[starts[k]] // max(len(classes), 1))], int(lo[k]),
                    [i for i, x in zip(ids, c.tolist()) if x == lo[k]][:CAP], int(hi[k]),
                    [i for i, x in zip(ids, c.tolist()) if x == hi[k]][:CAP]))
    return out


def per_topic_spread_violations(problem: Problem, assignment: Assignment) -> list[Violation]:
    """KAFKA-16277, as docs/ALGORITHMS.md promises it for the sticky assignors ("wherever possible", made
    decidable; both parts are always reachable together with the balance and stickiness promises):
    (a) fresh problem (no valid claims): among members with identical subscriptions (and, on a rack-aware
        problem, the same rack: `spec.racks`), each topic's counts differ by <= 1 (with equal subscriptions
        and no rack awareness: among all members);
    (b) equal subscriptions, not rack-aware, any claims: a member that gave up a valid claim of topic u
        keeps, of any topic t, at most kept(u) + 1 of its valid claims."""
    valid = valid_rows(problem)
    if not len(valid.gid):
        skewed = _class_spreads(problem, assignment)
        if not skewed:
            return []
        texts = [f"{t}: {lo} ({', '.join(least)}) to {hi} ({', '.join(most)})"
                 for t, lo, least, hi, most in skewed[:CAP]]
        members = [m for _, _, least, _, most in skewed[:CAP] for m in most + least]
        msg = (f"{len(skewed)} topic(s) split more than 1 apart among members with identical subscriptions "
               f"on a fresh assignment: {'; '.join(texts)}{and_more(len(skewed), CAP)}")
        return [Violation("per_topic_spread", msg, tuple(dict.fromkeys(members))[:CAP])]
    if not problem.subscriptions_equal() or rack_aware(problem):
        return []
    lay = layout(problem)
    kept = _kept(problem, assignment)
    topics = max(len(lay.topics), 1)
    code = np.searchsorted(lay.offsets, valid.gid, side="right") - 1
    group, inverse = np.unique(valid.member * topics + code, return_inverse=True)
    kept_n = np.bincount(inverse, weights=kept, minlength=len(group)).astype(np.int64)
    gave = np.bincount(inverse, weights=~kept, minlength=len(group)) > 0
    member, topic = group // topics, group % topics
    big = np.iinfo(np.int64).max // 2
    most = np.zeros(len(problem.members), dtype=np.int64)
    np.maximum.at(most, member, kept_n)
    least_given_up = np.full(len(problem.members), big, dtype=np.int64)
    np.minimum.at(least_given_up, member[gave], kept_n[gave])
    bad = np.flatnonzero(most > least_given_up + 1)
    if not len(bad):
        return []
    texts = []
    parts: list[tuple[str, int]] = []
    for mi in bad[:CAP].tolist():
        mine = member == mi
        t = int(topic[mine][np.argmax(kept_n[mine])])
        u_candidates = mine & gave & (kept_n == least_given_up[mi])
        u = int(topic[np.flatnonzero(u_candidates)[0]])
        texts.append(f"{problem.members[mi].member_id} kept {most[mi]} of {lay.topics[t]} "
                     f"but only {least_given_up[mi]} of {lay.topics[u]}, which it gave up partitions of")
        lost = np.flatnonzero((valid.member == mi) & (code == u) & ~kept)
        parts.extend(valid.pair(r) for r in lost[:CAP].tolist())
    msg = f"{len(bad)} member(s) kept a skewed topic mix: {'; '.join(texts)}{and_more(len(bad), CAP)}"
    ids = tuple(problem.members[mi].member_id for mi in bad[:CAP].tolist())
    return [Violation("per_topic_spread", msg, ids, tuple(parts[:CAP]))]


def max_retained_violations(problem: Problem, assignment: Assignment, balance: str = "none", racks: bool = False
                            ) -> list[Violation]:
    """The promise `stickiness=max_retained`: retained == the most any assignment meeting H1-H5 and `balance`
    ("none", "perfect", "optimal") retains (`spec.oracle.max_retained`); with `racks`, among those with the fewest
    rack mismatches (`spec.racks`: rack matching ranks above stickiness). Nothing to enforce when no assignment meets
    the balance."""
    return retained_violation(retained(problem, assignment), max_retained(problem, balance, racks), balance, racks)


def retained_violation(got: int, best: int | None, balance: str, racks: bool) -> list[Violation]:
    """`stickiness.max_retained` when `got` falls short of the oracle's `best` (None: nothing to enforce)."""
    if best is None or got >= best:
        return []
    under = f"{balance} balance{' and the fewest rack mismatches' if racks else ''}"
    msg = f"retained {got} validly owned partitions; {best} can be kept under {under} ({best - got} moved)"
    return [Violation("stickiness.max_retained", msg)]

__all__ = [
    "max_retained_violations", "moves", "per_topic_spread", "per_topic_spread_violations", "retained",
    "retained_violation", "withheld"
]
