"""Cooperative sticky (KIP-429): the eager sticky result minus the partitions still owned elsewhere.

A partition may only move once its previous owner has revoked it, so a round withholds every partition
a member would newly get while another member still claims it (H6 of docs/SPEC.md §3, read with valid ownership, see
`withhold`); the follow-up round, fed the output as claims, hands those out (`spec.rounds.run_rounds`
drives the rounds).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property

import numpy as np

from assigncheck.impl import registry
from assigncheck.impl.constrained import CONSTRAINED_PROMISES
from assigncheck.impl.problem_kind import require_problem
from assigncheck.spec.model import AnyProblem, Assignment, Problem, TopicTable, partitions_of
from assigncheck.spec.ownership import all_claims_valid, existing_claims, valid_claims
from assigncheck.spec.partition_rows import assigned_rows, layout
from assigncheck.spec.promises import Assignor, Promises
from assigncheck.spec.small.views import is_small, output_is_small, problem_view


def _contains(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    at = np.searchsorted(sorted_keys, keys)
    return (at < len(sorted_keys)) & (sorted_keys[np.minimum(at, len(sorted_keys) - 1)] == keys) \
        if len(sorted_keys) else np.zeros(len(keys), dtype=bool)


def withhold(problem: Problem, eager: Assignment) -> Assignment:
    """Drop from each member `b` every partition it does not validly own (docs/SPEC.md §2) while another member
    claims it (raw, any generation): that member is still consuming it until it revokes.

    Valid, not raw, ownership of `b` decides: a stale claim (KAFKA-14639) or a same-generation double claim
    (KAFKA-12984) does not make `b` the current consumer, so the real one must revoke first. Whole-group rows
    (`spec.partition_rows`), no loop over members; small groups in plain Python."""
    if not any(m.owned.count for m in problem.members):
        return eager  # nobody claims anything: nothing to wait for
    if _keeps_valid_claims(problem, eager):
        return eager  # nobody gets a partition it does not validly own already
    if is_small(problem) and output_is_small(eager):
        return _withhold_small(problem, eager)
    return _withhold_rows(problem, eager)


def _keeps_valid_claims(problem: Problem, eager: Assignment) -> bool:
    """Does every member get its very claimed set back, with every claim valid? (A settled round: the eager
    assignors return the claimed sets themselves then, as `spec.ownership.valid_owned` does.)"""
    out, members = eager.by_member, problem.members
    return (len(out) == len(members) and all(out.get(m.member_id) is m.owned for m in members)
            and all_claims_valid(problem))


def _withhold_rows(problem: Problem, eager: Assignment) -> Assignment:
    """Only a partition its receiver does not validly own can be held back: those rows are found with one lookup
    per row in the array of valid owners, and only their partitions' raw claims are looked at (a second round
    of 1 M partitions, where every member keeps what it owns, sorts nothing)."""
    lay, n = layout(problem), len(problem.members)
    total = max(lay.total, 1)
    v = valid_claims(problem)  # topic codes number the problem's topics by name, as the layout does
    owner = np.full(total, -1, dtype=np.int64)
    owner[lay.offsets[v.topic] + v.index] = v.member  # one valid owner at most per partition (docs/SPEC.md §2)
    given = assigned_rows(problem, eager)
    ok = (given.gid >= 0) & (given.member < n)
    new = np.flatnonzero(ok & (owner[np.where(ok, given.gid, 0)] != given.member))
    if not len(new):
        return eager
    asked = np.zeros(total, dtype=bool)
    asked[given.gid[new]] = True
    who, gid, _, _ = existing_claims(problem)
    mine = asked[gid]
    claims = np.unique(who[mine] * total + gid[mine])  # distinct (member, partition) raw claims of those
    claimants = np.bincount(claims % total, minlength=total)
    others = claimants[given.gid[new]] - _contains(claims, given.member[new] * total + given.gid[new])
    held = np.zeros(len(given.gid), dtype=bool)
    held[new[others > 0]] = True
    if not held.any():
        return eager
    keep = ~held
    table = TopicTable.of(tuple(sorted(set(given.piece_topic))))
    code = np.fromiter(map(table.code.__getitem__, given.piece_topic), dtype=np.int64, count=len(given.piece_topic))
    return Assignment.from_rows(given.member_ids, given.member[keep], table, code[given.piece[keep]],
                                given.index[keep])


def _withhold_small(problem: Problem, eager: Assignment) -> Assignment:
    """`withhold` on the plain-Python views of a small problem (`spec.small.views`): the same partitions dropped;
    a member that loses none keeps its very set (the wrapped assignors' sets are sorted: no re-sorting)."""
    pv = problem_view(problem)
    claimants, claims, valid, claimed = pv.claimants, pv.claims, pv.valid_keys, pv.claimed_topics
    position = {m: k for k, m in enumerate(pv.ids)}
    out = dict(eager.by_member)
    for member_id, parts in eager.by_member.items():
        m = position.get(member_id)
        if m is None or not parts.count:
            continue
        codes, bounds, indices = parts.lists()
        names = parts.table.names
        if not any(names[c] in claimed for c in codes):
            continue  # nobody claims any topic it gets
        kept, dropped = [], False
        for k, c in enumerate(codes):
            t = names[c]
            base, n = pv.offset.get(t, 0), pv.size.get(t, 0)
            for i in indices[bounds[k]:bounds[k + 1]]:
                g = base + i
                if 0 <= i < n and claimants.get(g, 0) - ((m, g) in claims) > 0 and (m, g) not in valid:
                    dropped = True
                else:
                    kept.append((t, i))
        if dropped:
            out[member_id] = partitions_of(kept, sort=True)
    return Assignment.of_sets(out)


def _wrapped(problem: Problem) -> Assignor:
    return registry.get("sticky-constrained" if problem.subscriptions_equal() else "sticky")


class CooperativeStickyAssignor:
    name = "cooperative-sticky"

    @cached_property  # read by every check; the wrapped assignors' promises never change
    def promises(self) -> Promises:
        """What both wrapped assignors promise (optimal balance is perfect on equal subscriptions)."""
        general = registry.get("sticky").promises
        return replace(
            general,
            per_topic_spread=general.per_topic_spread and CONSTRAINED_PROMISES.per_topic_spread,
            fixpoint=general.fixpoint and CONSTRAINED_PROMISES.fixpoint,
            max_rounds=2,
        )

    def assign(self, problem: AnyProblem) -> Assignment:
        problem = require_problem(problem, self.name)
        eager = _wrapped(problem).assign(problem)
        return eager if problem.protocol == "eager" else withhold(problem, eager)

