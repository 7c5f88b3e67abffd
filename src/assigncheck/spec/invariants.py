"""The hard invariants H1-H6 (docs/SPEC.md §3): one function each, `(problem, assignment) -> [Violation]`.

Each returns at most one `Violation` (H1: one for missing members, one for unknown ones) that counts
every offence and names the first `CAP` offending partitions and their members, so a report stays
small on a 1 M-partition problem. The work is numpy over `spec.partition_rows`: Python loops run over
(member, topic) arrays at most, and over partitions only for the offenders a message names.
H7 (no crash, budget) and H8 (determinism) need the assignor itself: see `run.assignor_check.check_assignor`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from assigncheck.spec.model import Assignment, Problem, TopicPartition
from assigncheck.spec.partition_rows import (
    Layout,
    Rows,
    assigned_count_per_partition,
    assigned_rows,
    claimed_rows,
    last_call_cache,
    layout,
    unassigned,
    valid_rows,
)
from assigncheck.spec.violations import Violation

CAP = 20  # offending partitions (and members) named per violation


def and_more(total: int, shown: int) -> str:
    return f", and {total - shown} more" if total > shown else ""


def _name_rows(rows: Rows, picked: np.ndarray) -> tuple[tuple[str, ...], tuple[TopicPartition, ...], str]:
    """Members and partitions of the first CAP picked rows, and 'm: t-1, t-2; n: u-0' for a message."""
    by_member: dict[str, list[str]] = {}
    parts = []
    for r in picked[:CAP].tolist():
        member = rows.member_ids[int(rows.member[r])]
        topic, index = rows.pair(r)
        parts.append((topic, index))
        by_member.setdefault(member, []).append(f"{topic}-{index}")
    text = "; ".join(f"{m}: {', '.join(ps)}" for m, ps in by_member.items())
    return tuple(by_member), tuple(parts), text + and_more(len(picked), min(len(picked), CAP))


def _name_gids(lay: Layout, gids: np.ndarray) -> tuple[tuple[TopicPartition, ...], str]:
    parts = tuple(lay.pair(g) for g in gids[:CAP].tolist())
    return parts, ", ".join(f"{t}-{i}" for t, i in parts) + and_more(len(gids), len(parts))


def h1_members(problem: Problem, assignment: Assignment) -> list[Violation]:
    """The output has exactly the problem's member ids (a member may get nothing)."""
    expected, got = set(problem.member_ids), set(assignment.by_member)
    out = []
    missing = [m for m in problem.member_ids if m not in got]
    if missing:
        names = ", ".join(missing[:CAP]) + and_more(len(missing), min(len(missing), CAP))
        out.append(Violation("H1", f"{len(missing)} member(s) missing from the output: {names}", tuple(missing[:CAP])))
    unknown = sorted(got - expected)
    if unknown:
        names = ", ".join(unknown[:CAP]) + and_more(len(unknown), min(len(unknown), CAP))
        out.append(Violation("H1", f"the output names {len(unknown)} member(s) not in the group: {names}",
                             tuple(unknown[:CAP])))
    return out


def h2_existence(problem: Problem, assignment: Assignment) -> list[Violation]:
    """Every assigned partition exists (known topic, 0 <= index < partition count)."""
    rows = assigned_rows(problem, assignment)
    bad = np.flatnonzero(rows.gid < 0)
    if not len(bad):
        return []
    members, parts, text = _name_rows(rows, bad)
    return [Violation("H2", f"{len(bad)} assigned partition(s) do not exist: {text}", members, parts)]


def h3_subscription(problem: Problem, assignment: Assignment) -> list[Violation]:
    """A member only gets partitions of topics it subscribes to (unknown members are H1's)."""
    rows = assigned_rows(problem, assignment)
    subs = [m.subscription for m in problem.members]
    n = len(subs)
    pieces = enumerate(zip(rows.piece_member, rows.piece_topic))
    bad_pieces = [k for k, (mi, t) in pieces if mi < n and t not in subs[mi]]
    if not bad_pieces:
        return []
    bad = np.flatnonzero(np.isin(rows.piece, np.array(bad_pieces, dtype=np.int64)))
    members, parts, text = _name_rows(rows, bad)
    return [Violation("H3", f"{len(bad)} partition(s) given to members not subscribed to their topic: {text}",
                      members, parts)]


def h4_exclusivity(problem: Problem, assignment: Assignment) -> list[Violation]:
    """No partition appears twice in the whole output (two members, or one member listing it twice)."""
    counts = assigned_count_per_partition(problem, assignment)
    dup = np.flatnonzero(counts > 1)
    if not len(dup):
        return []
    rows, lay = assigned_rows(problem, assignment), layout(problem)
    shown = dup[:CAP]
    holders = [rows.member_ids[int(i)] for g in shown.tolist() for i in rows.member[rows.gid == g].tolist()]
    members = tuple(dict.fromkeys(holders))[:CAP]
    texts = []
    for g in shown.tolist():
        t, i = lay.pair(g)
        texts.append(f"{t}-{i} to {', '.join(rows.member_ids[int(m)] for m in rows.member[rows.gid == g].tolist())}")
    parts = tuple(lay.pair(g) for g in shown.tolist())
    msg = f"{len(dup)} partition(s) assigned more than once: {'; '.join(texts)}{and_more(len(dup), len(shown))}"
    return [Violation("H4", msg, members, parts)]


@last_call_cache
def _claim_keys(problem: Problem) -> np.ndarray:
    """The raw claims as sorted unique (member, partition) keys (existing partitions only)."""
    return np.unique(claimed_rows(problem).keys(layout(problem)))


@last_call_cache
def _claim_count(problem: Problem) -> np.ndarray:
    """Per global id: how many distinct members claim it raw (any generation)."""
    lay = layout(problem)
    return np.bincount(_claim_keys(problem) % max(lay.total, 1), minlength=lay.total)


def h5_completeness(problem: Problem, assignment: Assignment) -> list[Violation]:
    """Every partition of a subscribed topic is assigned; in a cooperative round one may be withheld
    only if some member still claims it (raw), since H6 then forbids handing it to anyone else."""
    missing = unassigned(problem, assignment)
    if problem.protocol == "cooperative" and len(missing):
        missing = missing[_claim_count(problem)[missing] == 0]
    if not len(missing):
        return []
    parts, text = _name_gids(layout(problem), missing)
    why = " that nobody claims" if problem.protocol == "cooperative" else ""
    return [Violation("H5", f"{len(missing)} partition(s) of subscribed topics{why} are unassigned: {text}", (), parts)]


def h6_cooperative_safety(problem: Problem, assignment: Assignment) -> list[Violation]:
    """Cooperative: a partition newly given to b (not in b's raw claims) is claimed by no other member
    (any generation), since that member consumes it until it revokes (KAFKA-14639)."""
    if problem.protocol != "cooperative":
        return []
    lay, rows, claims = layout(problem), assigned_rows(problem, assignment), claimed_rows(problem)
    ok = rows.gid >= 0
    own = np.isin(rows.member[ok] * max(lay.total, 1) + rows.gid[ok], _claim_keys(problem))
    claimed = _claim_count(problem)[rows.gid[ok]] > 0
    bad = np.flatnonzero(ok)[~own & claimed]
    if not len(bad):
        return []
    texts, members = [], []
    for r in bad[:CAP].tolist():
        receiver = rows.member_ids[int(rows.member[r])]
        holders = [claims.member_ids[int(m)] for m in np.unique(claims.member[claims.gid == rows.gid[r]]).tolist()]
        t, i = rows.pair(r)
        texts.append(f"{t}-{i} given to {receiver} while {', '.join(holders)} still claim(s) it")
        members.extend([receiver, *holders])
    parts = tuple(rows.pair(r) for r in bad[:CAP].tolist())
    msg = f"{len(bad)} partition(s) handed over before being revoked: {'; '.join(texts)}{and_more(len(bad), CAP)}"
    return [Violation("H6", msg, tuple(dict.fromkeys(members))[:CAP], parts)]


def cooperative_withhold(problem: Problem, assignment: Assignment, eager: Assignment) -> list[Violation]:
    """Cooperative (KIP-429, docs/ALGORITHMS.md): a round is the assignor's eager assignment `eager` (the
    same problem, eager protocol) minus exactly the transfers it must hold back: p given to b is withheld
    iff b does not validly own p (docs/SPEC.md §2) while another member claims it (raw, any generation).

    H5/H6 only bound the round from one side; this catches the rest: needless withholding (b validly owns
    p, or nobody else claims it, yet b does not get it), a transfer b raw-claims without owning it handed
    over anyway (a stale or disputed claim of b, KAFKA-14639/12984), and partitions the eager assignment
    does not give at all."""
    if problem.protocol != "cooperative":
        return []
    lay, n = layout(problem), len(problem.members)
    total = max(lay.total, 1)

    def keys(rows: Rows) -> np.ndarray:  # (member, partition) keys of the problem's own members
        k = np.unique(rows.keys(lay))
        return k[k < n * total]

    planned, got = keys(assigned_rows(problem, eager)), keys(assigned_rows(problem, assignment))
    others = _claim_count(problem)[planned % total] - np.isin(planned, _claim_keys(problem))
    hold = (others > 0) & ~np.isin(planned, keys(valid_rows(problem)))
    kinds = (
        ("withheld needlessly", planned[~hold & ~np.isin(planned, got)]),
        ("handed over before its claimant revoked", planned[hold & np.isin(planned, got)]),
        ("not in the eager assignment", got[~np.isin(got, planned)]),
    )
    bad = [(what, k) for what, ks in kinds for k in ks.tolist()]
    if not bad:
        return []
    ids = problem.member_ids
    return withhold_violation([(what, ids[k // total], lay.pair(k % total)) for what, k in bad[:CAP]], len(bad))


def withhold_violation(shown: list[tuple[str, str, tuple[str, int]]], count: int) -> list[Violation]:
    """`cooperative.withhold` for `count` bad partitions, `shown` as (what is wrong, member, partition)."""
    texts = [f"{t}-{i} for {m} ({what})" for what, m, (t, i) in shown]
    msg = (f"{count} partition(s) break the cooperative withholding rule: {'; '.join(texts)}"
           f"{and_more(count, len(shown))}")
    members = tuple(dict.fromkeys(m for _, m, _ in shown))
    return [Violation("cooperative.withhold", msg, members, tuple(tp for _, _, tp in shown))]


HARD: tuple[Callable[[Problem, Assignment], list[Violation]], ...] = (
    h1_members,
    h2_existence,
    h3_subscription,
    h4_exclusivity,
    h5_completeness,
    h6_cooperative_safety,
)


def check_hard(problem: Problem, assignment: Assignment) -> list[Violation]:
    """H1-H6, in order."""
    return [v for check in HARD for v in check(problem, assignment)]

__all__ = [
    "CAP", "HARD", "and_more", "check_hard", "cooperative_withhold", "h1_members", "h2_existence", "h3_subscription",
    "h4_exclusivity", "h5_completeness", "h6_cooperative_safety", "withhold_violation"
]
