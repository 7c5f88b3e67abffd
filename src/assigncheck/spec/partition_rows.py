"""Whole-group views for the checks: every partition numbered, every held partition one numpy row.

A check over 1 M partitions and 2000 members must not loop over partitions in Python. Here the
problem's partitions get global ids (topics sorted by name, then index), and a collection of
`Partitions` per member (an assignment, the raw claims, the valid claims) becomes flat arrays:
one row per (member, partition) as listed, with the member's position and the partition's global
id (-1 when the partition does not exist). The only Python loop is over (member, topic) arrays.

The views are cached for the last problem/assignment seen (by identity): a report runs a dozen
checks on the same pair.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar, cast

import numpy as np

from assigncheck.spec.model import (
    SMALL_ROWS,
    Assignment,
    Partitions,
    PartitionSet,
    Problem,
    TopicPartition,
    gather,
    partitions_of,
    run_lengths,
    tables_of,
    topic_sizes,
)
from assigncheck.spec.ownership import valid_claims, valid_owned

T = TypeVar("T")


@dataclass(frozen=True)
class Layout:
    """The problem's partitions numbered 0..total-1, topic by topic in name order."""

    topics: tuple[str, ...]
    code: Mapping[str, int]
    sizes: np.ndarray  # partitions per topic code
    offsets: np.ndarray  # global id of partition 0 of each topic code
    total: int
    subscribed: np.ndarray  # per topic code: does any member subscribe to it

    def pair(self, gid: int) -> TopicPartition:
        k = int(np.searchsorted(self.offsets, gid, side="right")) - 1
        return self.topics[k], int(gid - self.offsets[k])

    def subscribed_partitions(self) -> np.ndarray:
        """Per global id: is its topic subscribed by someone (so H5 wants it assigned)."""
        return np.repeat(self.subscribed, self.sizes)


@dataclass(frozen=True)
class Rows:
    """One row per listed (member, partition); `member` indexes `member_ids`."""

    member_ids: tuple[str, ...]  # the problem's members in problem order, then unknown ones sorted
    member: np.ndarray  # int64 per row
    index: np.ndarray  # int64 per row, as listed
    gid: np.ndarray  # int64 per row, -1 when the partition is not in the problem
    piece: np.ndarray  # int64 per row: which (member, topic) array it came from
    piece_member: tuple[int, ...]
    piece_topic: tuple[str, ...]

    def pair(self, row: int) -> TopicPartition:
        return self.piece_topic[int(self.piece[row])], int(self.index[row])

    def keys(self, layout: Layout) -> np.ndarray:
        """member * total + gid per row of an existing partition: a (member, partition) pair as one int64."""
        ok = self.gid >= 0
        return self.member[ok] * max(layout.total, 1) + self.gid[ok]


def last_call_cache(fn: Callable[..., T]) -> Callable[..., T]:
    """Remember the result for the last arguments, compared by identity (problems are immutable)."""
    last_args: tuple[object, ...] = (object(),)  # matches no call
    last: T | None = None

    @functools.wraps(fn)
    def wrapper(*args: object) -> T:
        nonlocal last_args, last
        if len(args) == len(last_args) and all(map(operator.is_, args, last_args)):
            return last  # type: ignore[return-value]  # set by the call these arguments match
        result = fn(*args)
        last_args, last = args, result
        return result

    return wrapper


@last_call_cache
def layout(problem: Problem) -> Layout:
    table, sizes = topic_sizes(problem)
    topics = table.names
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64) if len(topics) else sizes
    wanted = set().union(*map(operator.attrgetter("subscription"), problem.members))
    subscribed = np.array([t in wanted for t in topics], dtype=bool)
    return Layout(topics, table.code, sizes, offsets, int(sizes.sum()), subscribed)


def _build(problem: Problem, member_ids: Sequence[str], parts_of: Mapping[str, Partitions]) -> Rows:
    """One row per listed partition. Every member's `PartitionSet` already is flat arrays (topic codes, run
    bounds, indices): they are concatenated, and each topic table is translated once, so the Python work is
    a few attribute reads per member, never per (member, topic) array or per partition."""
    lay = layout(problem)
    found = list(map(parts_of.get, member_ids))  # C-level passes: a group can have thousands of members
    if set(map(type, found)) <= {PartitionSet}:
        sets = cast(list[PartitionSet], found)
    else:
        sets = [p if type(p) is PartitionSet else partitions_of(p) for p in found]
    counts = list(map(operator.attrgetter("count"), sets))
    positions = list(itertools.compress(range(len(sets)), counts))
    if not positions:
        empty = np.zeros(0, dtype=np.int64)
        return Rows(tuple(member_ids), empty, empty, empty, empty, (), ())
    held = sets if len(positions) == len(sets) else list(itertools.compress(sets, counts))
    if len(held) <= SMALL_ROWS and sum(counts) <= SMALL_ROWS:  # each held set has a row
        return _build_small(lay, tuple(member_ids), list(zip(positions, held)))
    return _build_vectorized(lay, tuple(member_ids), positions, held)


def _build_small(lay: Layout, member_ids: tuple[str, ...], held: list[tuple[int, PartitionSet]]) -> Rows:
    """The same rows in plain Python, for the few rows of small groups (numpy's per-call cost dominates)."""
    member: list[int] = []
    index: list[int] = []
    gid: list[int] = []
    piece: list[int] = []
    piece_member: list[int] = []
    piece_topic: list[str] = []
    for mi, parts in held:
        for topic, arr in parts.items():
            k = lay.code.get(topic)
            size = int(lay.sizes[k]) if k is not None else 0
            offset = int(lay.offsets[k]) if k is not None else 0
            values = arr.tolist()
            member += [mi] * len(values)
            piece += [len(piece_topic)] * len(values)
            index += values
            gid += [offset + i if 0 <= i < size else -1 for i in values]
            piece_member.append(mi)
            piece_topic.append(topic)
    return Rows(member_ids, np.array(member, dtype=np.int64), np.array(index, dtype=np.int64),
                np.array(gid, dtype=np.int64), np.array(piece, dtype=np.int64), tuple(piece_member),
                tuple(piece_topic))


def _build_vectorized(lay: Layout, member_ids: tuple[str, ...], positions: list[int], sets: list[PartitionSet]
                      ) -> Rows:
    tables, base = tables_of(sets)
    names = [n for t in tables for n in t.names]
    codes, bounds, indices, pieces = gather(sets)  # bounds: each set's, back to back
    piece_name = codes + np.repeat(base, pieces)  # per piece, into `names`
    runs = run_lengths(bounds, pieces)
    piece_member = np.repeat(np.array(positions, dtype=np.int64), pieces)
    index = indices.astype(np.int64)
    piece = np.repeat(np.arange(len(piece_name), dtype=np.int64), runs)
    name_code = np.fromiter(map(lay.code.get, names, itertools.repeat(-1)), dtype=np.int64, count=len(names))
    code = name_code[piece_name][piece]
    known = code >= 0
    safe = np.where(known, code, 0)
    size = lay.sizes[safe] if len(lay.sizes) else np.zeros(len(code), dtype=np.int64)
    valid = known & (index >= 0) & (index < size)
    gid = np.where(valid, (lay.offsets[safe] if len(lay.offsets) else 0) + index, -1)
    topic_names = np.array(names, dtype=object)[piece_name]
    return Rows(member_ids, piece_member[piece], index, gid, piece, tuple(piece_member.tolist()),
                tuple(topic_names.tolist()))


def output_member_ids(problem: Problem, assignment: Assignment) -> tuple[str, ...]:
    extra = set(assignment.by_member).difference(problem.member_ids)
    return problem.member_ids + tuple(sorted(extra)) if extra else problem.member_ids


@last_call_cache
def assigned_rows(problem: Problem, assignment: Assignment) -> Rows:
    """The output as rows; members the problem does not know come after its own (H1 reports them)."""
    return _build(problem, output_member_ids(problem, assignment), assignment.by_member)


@last_call_cache
def claimed_rows(problem: Problem) -> Rows:
    """The raw claims (`owned` as sent) as rows."""
    return _build(problem, problem.member_ids, {m.member_id: m.owned for m in problem.members})


@last_call_cache
def valid_rows(problem: Problem) -> Rows:
    """`valid_owned` as rows (docs/SPEC.md §2): no junk, no repeats, one owner per partition. Large groups read
    `valid_claims`' flat rows directly (the same rows in the same order), not one set per member."""
    claims = valid_claims(problem)
    if len(claims) <= SMALL_ROWS:
        return _build(problem, problem.member_ids, valid_owned(problem))
    lay = layout(problem)  # the same topic numbering as `valid_claims`' table: topic names in sorted order
    member, code, index = claims.member, claims.topic, claims.index.astype(np.int64)
    starts = np.ones(len(member), dtype=bool)
    starts[1:] = (member[1:] != member[:-1]) | (code[1:] != code[:-1])
    heads = np.flatnonzero(starts)
    names = np.array(claims.table.names, dtype=object)
    return Rows(problem.member_ids, member.astype(np.int64), index, lay.offsets[code] + index,
                np.cumsum(starts) - 1, tuple(member[heads].tolist()), tuple(names[code[heads]].tolist()))


def assigned_count_per_partition(problem: Problem, assignment: Assignment) -> np.ndarray:
    """Per global id: how many times the output lists it (any member)."""
    rows, lay = assigned_rows(problem, assignment), layout(problem)
    return np.bincount(rows.gid[rows.gid >= 0], minlength=lay.total)


def unassigned(problem: Problem, assignment: Assignment) -> np.ndarray:
    """Global ids of partitions of subscribed topics that nobody got."""
    missing = layout(problem).subscribed_partitions() & (assigned_count_per_partition(problem, assignment) == 0)
    return np.flatnonzero(missing)


def member_counts(problem: Problem, assignment: Assignment) -> np.ndarray:
    """Per problem member (problem order): how many partitions the output lists for it, junk included."""
    rows = assigned_rows(problem, assignment)
    n = len(problem.members)
    return np.bincount(rows.member[rows.member < n], minlength=n)[:n]


@dataclass(frozen=True)
class TopicCounts:
    """For every (topic, subscriber) pair of an existing topic: how many of its partitions it got.

    Pairs are sorted by (topic code, member); `starts[k]` is where topic `topics[k]` begins.
    """

    topic: np.ndarray  # topic code per pair
    member: np.ndarray  # problem member index per pair
    count: np.ndarray
    topics: np.ndarray  # topic codes that have subscribers
    starts: np.ndarray


@last_call_cache
def subscription_keys(problem: Problem) -> np.ndarray:
    """Sorted topic code * members + member index, one per (existing topic, subscriber)."""
    lay = layout(problem)
    n = max(len(problem.members), 1)
    codes, members = [], []
    for mi, m in enumerate(problem.members):
        for topic in m.subscription:
            k = lay.code.get(topic)
            if k is not None:
                codes.append(k)
                members.append(mi)
    return np.sort(np.array(codes, dtype=np.int64) * n + np.array(members, dtype=np.int64))


@last_call_cache
def topic_counts(problem: Problem, assignment: Assignment) -> TopicCounts:
    lay = layout(problem)
    n = max(len(problem.members), 1)
    pair_key = subscription_keys(problem)
    rows = assigned_rows(problem, assignment)
    ok = (rows.gid >= 0) & (rows.member < len(problem.members))
    gid = rows.gid[ok]
    row_code = np.searchsorted(lay.offsets, gid, side="right") - 1
    row_key = np.sort(row_code * n + rows.member[ok])
    count = np.searchsorted(row_key, pair_key, side="right") - np.searchsorted(row_key, pair_key, side="left")
    topic, member = pair_key // n, pair_key % n
    topics, starts = np.unique(topic, return_index=True)
    return TopicCounts(topic, member, count, topics, starts)

__all__ = [
    "Layout", "Rows", "assigned_count_per_partition", "assigned_rows", "claimed_rows", "last_call_cache", "layout",
    "member_counts", "output_member_ids", "topic_counts", "unassigned", "valid_claims", "valid_rows"
]
