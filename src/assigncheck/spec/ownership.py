"""`valid_owned` (docs/SPEC.md §2): which of the members' raw claims count as previous ownership."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from operator import attrgetter

import numpy as np

from assigncheck.spec import native
from assigncheck.spec.model import (
    SMALL_ROWS,
    Member,
    Partitions,
    PartitionSet,
    Problem,
    TopicTable,
    read_only,
    sets_by_member,
    topic_sizes,
)

SEVERAL = -2  # `raw_claimants`: two or more members claim the partition


def raw_claimants(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Who claims each claimed partition raw, whatever the generation and the subscription: the partitions' global ids
    (topics by name, then index), ascending, and per partition the position of its only claimant (a member's repeats
    count once) or `SEVERAL`. Once per problem, in one compiled pass (`spec.native.raw_claimants`): a cooperative
    round waits on these. Read-only int64 arrays."""
    return problem.derived("raw_claimants", _raw_claimants)


def _raw_claimants(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    table, sizes = topic_sizes(problem)
    claimed, claimant = native.raw_claimants(problem.members, Member, PartitionSet, TopicTable, table.code,
                                             sizes.tolist())
    return np.frombuffer(claimed, np.int64), np.frombuffer(claimant, np.int64)


_OWNED, _COUNT = attrgetter("owned"), attrgetter("count")
_IS_SORTED = attrgetter("is_sorted")


class ValidClaims:
    """`valid_owned` as flat rows, sorted by (member position, topic code, index), for vectorized
    consumers: row i says member `member[i]` (its position in `problem.members`) validly owns
    partition `index[i]` of topic `table.names[topic[i]]`. Built from arrays, or (small groups) from plain rows
    whose arrays are made on first use. Read-only."""

    __slots__ = ("table", "_member", "_topic", "_index", "_rows")

    def __init__(self, table: TopicTable, member: np.ndarray | None = None, topic: np.ndarray | None = None,
                 index: np.ndarray | None = None, rows: list[tuple[int, int, int]] | None = None) -> None:
        self.table, self._member, self._topic, self._index, self._rows = table, member, topic, index, rows

    def _arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Makes the three arrays from the plain rows and returns them."""
        rows = self._rows or []
        made = (read_only([r[0] for r in rows], np.int64), read_only([r[1] for r in rows], np.int64),
                read_only([r[2] for r in rows]))
        self._member, self._topic, self._index = made
        return made

    @property
    def member(self) -> np.ndarray:
        member = self._member
        return member if member is not None else self._arrays()[0]

    @property
    def topic(self) -> np.ndarray:
        topic = self._topic
        return topic if topic is not None else self._arrays()[1]

    @property
    def index(self) -> np.ndarray:
        index = self._index
        return index if index is not None else self._arrays()[2]

    def __len__(self) -> int:
        return len(self._rows) if self._rows is not None else len(self.member)

    def rows(self) -> list[tuple[int, int, int]]:
        """(member, topic code, index) per row, as plain ints (for the small paths; do not mutate)."""
        if self._rows is None:
            self._rows = list(zip(self.member.tolist(), self.topic.tolist(), self.index.tolist()))
        return self._rows


def valid_claims(problem: Problem) -> ValidClaims:
    """docs/SPEC.md §2 over the whole group at once. Rule 3: a member listing a partition twice counts it
    once. Rule 4: of several claimants of one partition, the single one with the highest generation
    owns it; if two or more share the highest generation, nobody does (KAFKA-12984, KAFKA-14639).
    Computed once per problem (the arrays are read-only)."""
    return problem.derived("valid_claims", _valid_claims)


def _valid_claims(problem: Problem) -> ValidClaims:
    if len(problem.members) > SMALL_ROWS:  # the compiled pass, not a pass over the members to count their claims
        return _valid_claims_vectorized(problem)
    counts = list(map(_COUNT, map(_OWNED, problem.members)))
    if sum(counts) <= SMALL_ROWS:
        return _valid_claims_small(problem, counts)
    return _valid_claims_vectorized(problem)


def _valid_claims_small(problem: Problem, counts: Sequence[int] | None = None) -> ValidClaims:
    """The same rules claim by claim, for groups with few claims (numpy's per-call cost dominates there). Only the
    members with claims (`counts`: each member's, when known) are visited: a big fresh group has none."""
    table = TopicTable.of(tuple(sorted(problem.topics)))
    code_of, topics, members = table.code, problem.topics, problem.members
    if counts is None:
        counts = list(map(_COUNT, map(_OWNED, members)))
    best: dict[tuple[int, int], tuple[int, int, bool]] = {}  # (topic code, index) -> (generation, member, tied)
    for who in compress(range(len(members)), counts):
        m = members[who]
        codes, bounds, indices = m.owned.lists()
        names, subscription, generation = m.owned.table.names, m.subscription, m.generation
        mine: set[tuple[int, int]] = set()
        for k, c in enumerate(codes):
            topic = names[c]
            code = code_of.get(topic)
            if code is None or topic not in subscription:  # rule 2
                continue
            size = topics[topic]
            for i in indices[bounds[k]:bounds[k + 1]]:
                key = (code, i)
                if not 0 <= i < size or key in mine:  # rule 1; rule 3
                    continue
                mine.add(key)
                held = best.get(key)
                if held is None or generation > held[0]:
                    best[key] = (generation, who, False)
                elif generation == held[0]:
                    best[key] = (generation, held[1], True)  # rule 4: a tie at the top means nobody
    rows = [(who, code, i) for (code, i), (_, who, tied) in best.items() if not tied]
    rows.sort()
    return ValidClaims(table, rows=rows)


def _valid_claims_vectorized(problem: Problem) -> ValidClaims:
    """The same rules over the whole group in one compiled pass (`spec.native.valid_claim_rows`), reading the
    members' and their sets' slots directly. A cooperative round waits on the raw claimants as well
    (`raw_claimants`): the same pass reads those for it."""
    table, sizes = topic_sizes(problem)
    members = problem.members
    one = members[0].subscription if problem.subscriptions_equal() else None
    raw = problem.protocol == "cooperative" and not problem.has_derived("raw_claimants")
    member, topic, index, claimed, claimant = native.valid_claim_rows(
        members, Member, PartitionSet, TopicTable, table.code, sizes.tolist(), one, raw)
    if claimed is not None and claimant is not None:
        read = np.frombuffer(claimed, np.int64), np.frombuffer(claimant, np.int64)
        problem.derived("raw_claimants", lambda _: read)
    return ValidClaims(table, np.frombuffer(member, np.int64), np.frombuffer(topic, np.int64),
                       np.frombuffer(index, np.int32))


def claimed_when_all_valid(problem: Problem, valid: int) -> list[PartitionSet] | None:
    """The members' claimed sets (problem order) when they are the valid ownership: every set sorted and `valid`, the
    number of valid claims, equal to the raw claims' (valid claims are distinct, existing, subscribed raw claims).
    Returning the very objects lets a rebalance that keeps everything (the fixpoint; a round in which nobody
    joined, left or re-subscribed) hand them back as its output, with no copy. None otherwise."""
    claimed = list(map(_OWNED, problem.members))
    if all(map(_IS_SORTED, claimed)) and valid == sum(map(_COUNT, claimed)):
        return claimed
    return None


def _valid_sets(problem: Problem) -> list[PartitionSet]:
    v = valid_claims(problem)
    claimed = claimed_when_all_valid(problem, len(v))
    if claimed is not None:
        return claimed
    if len(v) <= SMALL_ROWS:
        rows = v.rows()
        return sets_by_member(len(problem.members), [r[0] for r in rows], v.table, [r[1] for r in rows],
                              [r[2] for r in rows])
    return sets_by_member(len(problem.members), v.member, v.table, v.topic, v.index)


def valid_owned(problem: Problem) -> dict[str, Partitions]:
    """Member id -> the partitions it validly owns (sorted, no repeats): docs/SPEC.md §2. When every raw claim is valid
    and each claimed set sorted, these are the claimed sets themselves."""
    sets = problem.derived("valid_sets", _valid_sets)
    return {m.member_id: s for m, s in zip(problem.members, sets)}


def all_claims_valid(problem: Problem) -> bool:
    """Is every raw claim valid (docs/SPEC.md §2)? Valid claims are distinct, existing, subscribed raw claims, so equal
    totals say so."""
    return len(valid_claims(problem)) == sum(map(_COUNT, map(_OWNED, problem.members)))

__all__ = ["SEVERAL", "all_claims_valid", "claimed_when_all_valid", "raw_claimants", "valid_claims",
           "valid_owned"]
