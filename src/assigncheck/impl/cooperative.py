"""Cooperative sticky (KIP-429): the eager sticky result minus the partitions still owned elsewhere.

A partition may only move once its previous owner has revoked it, so a round withholds every partition
a member would newly get while another member still claims it (H6 of docs/SPEC.md §3, read with valid ownership, see
`withhold`); the follow-up round, fed the output as claims, hands those out (`spec.rounds.run_rounds`
drives the rounds).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import cached_property
from typing import NamedTuple

import numpy as np

from assigncheck import impl
from assigncheck.impl import native
from assigncheck.impl.constrained import CONSTRAINED_PROMISES
from assigncheck.impl.problem_kind import require_problem
from assigncheck.spec.model import (
    AnyProblem,
    Assignment,
    Problem,
    TopicTable,
    partitions_of,
    sets_by_member,
    sets_of_grouped_rows,
    topic_sizes,
)
from assigncheck.spec.ownership import all_claims_valid, raw_claimants, valid_claims
from assigncheck.spec.partition_rows import assigned_rows
from assigncheck.spec.promises import Assignor, Promises
from assigncheck.spec.small.views import is_small, output_is_small, problem_view


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
    """Only a partition its receiver does not validly own can be held back: one compiled pass over the output's rows
    (`impl.native.withheld`) looks each up among the valid owners, then among the raw claimants
    (`spec.ownership.raw_claimants`). Only the members that lose a partition get a new set; every other member keeps
    the eager output's own."""
    ids, member, table, topic, indices, grouped = _output_rows(problem, eager)
    names, sizes = topic_sizes(problem)
    if list(ids) == list(problem.member_ids):
        receiver: Sequence[int] = range(len(ids))
    else:
        position = {m: k for k, m in enumerate(problem.member_ids)}
        receiver = [position.get(m, -1) for m in ids]
    v = valid_claims(problem)
    losers, rank, kept = (np.frombuffer(b, np.int64) for b in native.withheld(
        member, topic, indices, [names.code.get(t, -1) for t in table.names], sizes.tolist(), list(receiver),
        v.member, v.topic, v.index, *raw_claimants(problem)))
    if not len(losers):
        return eager
    if grouped:  # the eager output's own rows, sorted by (member, topic, index): so are the losers' kept rows
        sets = sets_of_grouped_rows(len(losers), table, rank, topic[kept], indices[kept])
    else:
        sets = sets_by_member(len(losers), rank, table, topic[kept], indices[kept])
    return eager.replacing(dict(zip(map(ids.__getitem__, losers.tolist()), sets)))


class _OutputRows(NamedTuple):
    """The eager output as rows: the member (a position in `ids`) and the partition (a topic code in `table`, its
    index)."""

    ids: Sequence[str]
    member: np.ndarray
    table: TopicTable
    topic: np.ndarray
    indices: np.ndarray
    grouped: bool  # the rows are sorted by (member, topic, index)


def _output_rows(problem: Problem, eager: Assignment) -> _OutputRows:
    """The rows an output was cut from, when it keeps them (the built-in assignors' large outputs): no pass over
    its members; else `spec.partition_rows.assigned_rows`."""
    cut = eager.grouped_rows
    if cut is not None:
        return _OutputRows(cut.member_ids, cut.member, cut.table, cut.topic, cut.indices, True)
    given = assigned_rows(problem, eager)
    table = TopicTable.of(tuple(sorted(set(given.piece_topic))))
    code = np.fromiter(map(table.code.__getitem__, given.piece_topic), dtype=np.int64, count=len(given.piece_topic))
    return _OutputRows(given.member_ids, given.member, table, code[given.piece],
                       given.index.astype(np.int32), False)  # a set's indices are int32


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
    return impl.get("sticky-constrained" if problem.subscriptions_equal() else "sticky")


class CooperativeStickyAssignor:
    name = "cooperative-sticky"

    @cached_property  # read by every check; the wrapped assignors' promises never change
    def promises(self) -> Promises:
        """What both wrapped assignors promise (optimal balance is perfect on equal subscriptions)."""
        general = impl.get("sticky").promises
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


__all__ = ["CooperativeStickyAssignor", "withhold"]
