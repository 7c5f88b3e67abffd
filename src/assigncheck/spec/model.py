"""The problem model: immutable, compact, and the one vocabulary every part of assigncheck speaks.

Partitions are never objects of their own on the hot path. A topic carries a partition count, and a
set of partitions of several topics (a member's claims, a member's assignment) is a `Partitions`
mapping: topic name -> read-only int32 numpy array of partition indices, stored as one
`PartitionSet` (one index array for all its topics). An array may hold junk
(out-of-range or negative indices, repeats): claims are as sent, outputs are as returned, and it is
the spec's job, not the container's, to judge them.
"""

from __future__ import annotations

import sys
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import groupby
from operator import attrgetter, itemgetter
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeAlias, TypeVar

import numpy as np

from assigncheck.spec.native import by_member, cut_sets, group_runs, same_subscriptions

TopicPartition: TypeAlias = tuple[str, int]
Protocol: TypeAlias = Literal["eager", "cooperative"]
# Kafka's group types whose partitions an assignor hands out: "classic" (the client-side protocol, eager or
# cooperative), "consumer" (KIP-848: the broker's group coordinator assigns) and "share" (KIP-932: a partition may
# have several owners).
GroupType: TypeAlias = Literal["classic", "consumer", "share"]
GROUP_TYPES: tuple[str, ...] = ("classic", "consumer", "share")
T = TypeVar("T")

UNKNOWN_GENERATION = -1
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def read_only(values: Iterable[int] | np.ndarray, dtype: type = np.int32) -> np.ndarray:
    """`values` as a read-only array of `dtype`. An array already of that dtype is frozen in place (no copy):
    pass only arrays nobody else writes to, such as the ones a function just computed."""
    arr: np.ndarray = np.asarray(values if isinstance(values, np.ndarray) else list(values), dtype=dtype)
    arr.setflags(write=False)
    return arr


def index_array(values: Iterable[int] | np.ndarray, *, sort: bool = False) -> np.ndarray:
    """A read-only int32 array of partition indices (a copy: the caller's array stays writable)."""
    arr = np.array(values if isinstance(values, np.ndarray) else list(values), dtype=np.int32).reshape(-1)
    return read_only(np.sort(arr, kind="stable") if sort else arr)


class TopicTable:
    """Topic names interned once and numbered in name order; shared by the sets built together."""

    __slots__ = ("names", "code")

    def __init__(self, names: Iterable[str]) -> None:
        self.names: tuple[str, ...] = tuple(sorted(set(names)))
        self.code: dict[str, int] = {n: i for i, n in enumerate(self.names)}

    @staticmethod
    @lru_cache(maxsize=4096)
    def of(names: tuple[str, ...]) -> TopicTable:
        """The shared table of exactly these (sorted, distinct) names: sets of the same topics built
        separately (one per member, from JSON) then share one table, and whole-group code translates
        each table once. Its names are interned, as the JSON reader's topic names are: a problem read later
        names its topics by the very objects this table holds, whichever problem made it."""
        return TopicTable(sys.intern(n) if type(n) is str else n for n in names)


_MADE_LAZILY = frozenset(("_codes", "_bounds", "_indices", "_lists"))


class PartitionSet(Mapping[str, np.ndarray]):
    """The storage of `Partitions`: topic -> read-only int32 index array, held compactly.

    One index array for all topics (grouped by topic, topics in name order) and the bounds of each
    topic's run, so a member holding one partition of each of 500 topics is one object, not 500.
    `rows()` gives the flat view that vectorized code uses; the mapping view serves everyone else.

    A small set may be built from plain tuples (`of_lists`): its arrays are then made on first use, and
    `lists()` gives the tuples back to plain-Python code (an array-built set makes them on first use). A whole
    group's sets are slices of shared arrays (`sets_by_member`), cut on first use: making 2,100 sets of one
    partition then takes about 1 ms, not 3.
    """

    __slots__ = ("table", "_codes", "_bounds", "_indices", "is_sorted", "_lists", "count", "_src", "_at")
    _at: int  # set with `_src` only (below)

    def __init__(self, table: TopicTable, codes: np.ndarray, bounds: np.ndarray, indices: np.ndarray,
                 is_sorted: bool) -> None:
        self.table = table
        self._codes: np.ndarray | None = codes  # int64, ascending: the topics present (each with at least one index)
        self._bounds: np.ndarray | None = bounds  # int64, len(codes) + 1
        self._indices: np.ndarray | None = indices  # int32, read-only
        self.is_sorted = is_sorted  # indices ascending within every topic
        self._lists: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None = None
        self.count = len(indices)  # partitions listed, repeats included
        # Set i of a group whose sets share arrays (`sets_by_member`): `_src` is (codes, bounds, indices, rows_at,
        # runs_at) and `_at` is i (set only with `_src`); its arrays are codes[runs_at[i]:runs_at[i + 1]], the next
        # len(codes) + 1 entries of bounds from runs_at[i] + i, and indices[rows_at[i]:rows_at[i + 1]], sliced on
        # first use.
        self._src: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    if not TYPE_CHECKING:  # hidden from the type checker, which would read every unknown attribute as None

        def __getattr__(self, name: str) -> None:
            # Only called for a slot never set: a set cut from shared arrays (`sets_of_grouped_rows`) sets five
            # slots, not nine (a fifth of the cost of making 2,100 sets); its arrays and lists read as not made yet.
            if name in _MADE_LAZILY:
                return None
            raise AttributeError(name)

    @classmethod
    def of_lists(cls, table: TopicTable, codes: tuple[int, ...], bounds: tuple[int, ...], indices: tuple[int, ...],
                 is_sorted: bool) -> PartitionSet:
        """From plain tuples (codes ascending, `bounds` from 0, int32 indices); no numpy call until asked."""
        out = cls.__new__(cls)
        out.table, out.is_sorted, out._lists, out.count = table, is_sorted, (codes, bounds, indices), len(indices)
        out._codes = out._bounds = out._indices = out._src = None
        return out

    def _arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Makes the three arrays (a set holds either its lists or its place in shared arrays) and returns them."""
        if self._src is not None:
            (codes, bounds, indices, rows_at, runs_at), i = self._src, self._at
            ra, rb, a, b = int(runs_at[i]), int(runs_at[i + 1]), int(rows_at[i]), int(rows_at[i + 1])
            made = codes[ra:rb], bounds[ra + i:rb + i + 1], indices[a:b]
        else:
            assert self._lists is not None
            codes_list, bounds_list, indices_list = self._lists
            made = read_only(codes_list, np.int64), read_only(bounds_list, np.int64), read_only(indices_list)
        self._codes, self._bounds, self._indices = made
        return made

    @property
    def codes(self) -> np.ndarray:
        codes = self._codes
        return codes if codes is not None else self._arrays()[0]

    @property
    def bounds(self) -> np.ndarray:
        bounds = self._bounds
        return bounds if bounds is not None else self._arrays()[1]

    @property
    def indices(self) -> np.ndarray:
        indices = self._indices
        return indices if indices is not None else self._arrays()[2]

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(codes, bounds, indices) in one call (whole-group code reads them for thousands of sets)."""
        codes, bounds, indices = self._codes, self._bounds, self._indices
        if codes is None or bounds is None or indices is None:
            return self._arrays()
        return codes, bounds, indices

    def lists(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """(topic codes, run bounds from 0, indices) as plain tuples, for plain-Python code on small sets."""
        if self._lists is None:
            codes, bounds, indices = self.arrays()
            b = bounds.tolist()
            self._lists = (tuple(codes.tolist()), tuple(x - b[0] for x in b), tuple(indices.tolist()))
        return self._lists

    @classmethod
    def from_rows(cls, table: TopicTable, topic_codes: np.ndarray, indices: np.ndarray, *,
                  sort: bool = False) -> PartitionSet:
        """From parallel per-partition arrays (topic code, index); keeps repeats and, unless `sort`,
        the given order inside each topic."""
        topic_codes = np.asarray(topic_codes, dtype=np.int64)
        indices = np.asarray(indices, dtype=np.int32)
        if len(topic_codes) > 1 and (sort or np.any(topic_codes[1:] < topic_codes[:-1])):
            order = np.lexsort((indices, topic_codes)) if sort else np.argsort(topic_codes, kind="stable")
            topic_codes, indices = topic_codes[order], indices[order]
        return cls._grouped(table, topic_codes, indices, sort or len(indices) <= 1)

    @classmethod
    def _grouped(cls, table: TopicTable, topic_codes: np.ndarray, indices: np.ndarray,
                 is_sorted: bool) -> PartitionSet:
        cut = np.flatnonzero(topic_codes[1:] != topic_codes[:-1]) + 1
        heads = np.concatenate(([0], cut)) if len(topic_codes) else cut
        bounds = np.concatenate((heads, [len(indices)])).astype(np.int64)
        if not indices.flags.writeable:
            frozen = indices
        else:
            frozen = np.array(indices, dtype=np.int32)
            frozen.setflags(write=False)
        return cls(table, topic_codes[heads].astype(np.int64), bounds, frozen, is_sorted)

    def _position(self, topic: str) -> int:
        code = self.table.code.get(topic)
        if code is not None:
            if self._lists is not None:
                listed = self._lists[0]
                return listed.index(code) if code in listed else -1
            codes = self.codes
            pos = int(np.searchsorted(codes, code))
            if pos < len(codes) and codes[pos] == code:
                return pos
        return -1

    def __getitem__(self, topic: str) -> np.ndarray:
        pos = self._position(topic)
        if pos < 0:
            raise KeyError(topic)
        return self.indices[self.bounds[pos]:self.bounds[pos + 1]]

    def __contains__(self, topic: object) -> bool:
        return isinstance(topic, str) and self._position(topic) >= 0

    def __iter__(self) -> Iterator[str]:
        names = self.table.names
        return (names[c] for c in (self._lists[0] if self._lists is not None else self.codes.tolist()))

    def __len__(self) -> int:
        return len(self._lists[0] if self._lists is not None else self.codes)

    # A generator, not Mapping's ItemsView: one pass over the shared arrays, no view object kept.
    def items(self) -> Iterator[tuple[str, np.ndarray]]:  # type: ignore[override]
        names, b, idx = self.table.names, self.bounds.tolist(), self.indices
        return ((names[c], idx[b[i]:b[i + 1]]) for i, c in enumerate(self.codes.tolist()))

    def rows(self) -> tuple[np.ndarray, np.ndarray]:
        """(topic code per partition in `table`, index per partition), in storage order."""
        return np.repeat(self.codes, np.diff(self.bounds)), self.indices

    def sorted(self) -> PartitionSet:
        if self.is_sorted:
            return self
        if self.count <= SMALL_ROWS:
            codes, bounds, indices = self.lists()
            flat = tuple(i for k in range(len(codes)) for i in sorted(indices[bounds[k]:bounds[k + 1]]))
            return PartitionSet.of_lists(self.table, codes, bounds, flat, True)
        return PartitionSet.from_rows(self.table, *self.rows(), sort=True)

    def __repr__(self) -> str:
        return f"PartitionSet({ {t: a.tolist() for t, a in self.items()} })"


# The model's container for a set of partitions: every `Member.owned`, `Client.active`/`standby` and `Assignment`
# value is one (the constructors convert what they are given).
Partitions: TypeAlias = PartitionSet

EMPTY = PartitionSet.of_lists(TopicTable(()), (), (0,), (), True)


def partitions_of(
    spec: Partitions | Mapping[str, Iterable[int]] | Iterable[TopicPartition] | None, *, sort: bool = False
) -> PartitionSet:
    """Build a `PartitionSet` from {topic: indices} or from (topic, index) pairs.

    Topics with no index are dropped, so two equal sets always compare equal key by key.
    """
    if spec is None:
        return EMPTY
    if isinstance(spec, PartitionSet):
        return spec.sorted() if sort else spec
    if not isinstance(spec, Mapping):
        grouped: dict[str, list[int]] = {}
        for topic, index in spec:
            grouped.setdefault(topic, []).append(index)
        spec = grouped
    small = _small_partitions(spec, sort)
    if small is not None:
        return small
    arrays = {str(t): np.asarray(v if isinstance(v, np.ndarray) else list(v), dtype=np.int32).reshape(-1)
              for t, v in spec.items()}
    arrays = {t: a for t, a in arrays.items() if len(a)}
    if not arrays:
        return EMPTY
    table = TopicTable.of(tuple(sorted(arrays)))
    codes = np.repeat(np.arange(len(table.names), dtype=np.int64), [len(arrays[t]) for t in table.names])
    indices = np.concatenate([arrays[t] for t in table.names])
    if sort:
        return PartitionSet.from_rows(table, codes, indices, sort=True)
    # Marked sorted when every topic's indices ascend, as claims built from ranges or a previous output do: a
    # rebalance can then hand those very sets back (`spec.ownership.valid_owned`).
    ascending = not (indices[1:] < indices[:-1])[codes[1:] == codes[:-1]].any()
    return PartitionSet._grouped(table, codes, indices, ascending)


def _small_partitions(spec: Mapping[str, Iterable[int]], sort: bool) -> PartitionSet | None:
    """`partitions_of` in plain Python for up to `SMALL_ROWS` plain ints in int32 range given as lists, tuples,
    ranges or 1-d integer arrays; None for anything else (the numpy path then converts, or raises, as always)."""
    groups: dict[str, list[int] | tuple[int, ...] | range] = {}
    total = 0
    for t, v in spec.items():
        if isinstance(v, np.ndarray):
            if v.ndim != 1 or v.dtype.kind not in "iu" or len(v) > SMALL_ROWS:
                return None
            v = v.tolist()
        elif not isinstance(v, list | tuple | range):
            return None
        total += len(v)
        if total > SMALL_ROWS:
            return None
        groups[str(t)] = v
    names = sorted(t for t, v in groups.items() if len(v))
    if not names:
        return EMPTY
    bounds, flat, is_sorted = [0], list[int](), True
    for t in names:
        values = groups[t]
        for x in values:
            if type(x) is not int or not INT32_MIN <= x <= INT32_MAX:
                return None
        if sort:
            values = sorted(values)
        elif is_sorted:
            is_sorted = all(a <= b for a, b in zip(values, values[1:]))
        flat.extend(values)
        bounds.append(len(flat))
    return PartitionSet.of_lists(TopicTable.of(tuple(names)), tuple(range(len(names))), tuple(bounds), tuple(flat),
                                 is_sorted)


# Below this many rows, plain Python beats numpy's per-call overhead (measured: 4 members x 10 rows,
# 12 us against 60 us); the fuzzer's problems are mostly this small.
SMALL_ROWS = 64


def sets_by_member(members: int, member_row: Sequence[int] | np.ndarray, table: TopicTable,
                   topic_row: Sequence[int] | np.ndarray, index_row: Sequence[int] | np.ndarray) -> list[PartitionSet]:
    """Group rows (member position, topic code, index) into one sorted `PartitionSet` per member;
    rows of a member position outside [0, members) are dropped. Plain int lists (a small path's rows) or
    arrays."""
    if len(member_row) <= SMALL_ROWS:
        return _sets_small(members, member_row, table, topic_row, index_row)
    return _sets_vectorized(members, np.asarray(member_row), table, np.asarray(topic_row), np.asarray(index_row))


_FIRST = itemgetter(0)


def _plain(values: Sequence[int] | np.ndarray) -> Sequence[int]:
    return values.tolist() if isinstance(values, np.ndarray) else values


def _sets_small(members: int, member_row: Sequence[int] | np.ndarray, table: TopicTable,
                topic_row: Sequence[int] | np.ndarray, index_row: Sequence[int] | np.ndarray) -> list[PartitionSet]:
    """One sort of the rows (linear when they come sorted, as valid claims do), then one pass per member."""
    out = [EMPTY] * members
    of_lists = PartitionSet.of_lists
    for m, rows in groupby(sorted(zip(_plain(member_row), _plain(topic_row), _plain(index_row))), _FIRST):
        if not 0 <= m < members:
            continue
        codes: list[int] = []
        bounds: list[int] = []
        flat: list[int] = []
        last = None
        for _, t, i in rows:
            if t != last:
                codes.append(t)
                bounds.append(len(flat))
                last = t
            flat.append(i)
        bounds.append(len(flat))
        out[m] = of_lists(table, tuple(codes), tuple(bounds), tuple(flat), True)
    return out


def _sets_vectorized(members: int, member_row: np.ndarray, table: TopicTable, topic_row: np.ndarray,
                     index_row: np.ndarray) -> list[PartitionSet]:
    """One sort for the whole group; every member's set is a slice of the shared sorted arrays."""
    return sets_of_grouped_rows(members, table, *_sorted_rows(members, member_row, table, topic_row, index_row))


def _sorted_rows(members: int, member_row: Sequence[int] | np.ndarray, table: TopicTable,
                 topic_row: Sequence[int] | np.ndarray, index_row: Sequence[int] | np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows sorted by (member position, topic code, index): int64, int64 and int32 arrays."""
    member_row = np.asarray(member_row, dtype=np.int64)
    topic_row = np.asarray(topic_row, dtype=np.int64)
    index_row = np.asarray(index_row, dtype=np.int32)
    span_t, span_i = max(len(table.names), 1), int(index_row.max(initial=0)) + 1
    if index_row.min(initial=0) >= 0 and max(members, 1) * span_t * span_i < 2**62:
        key = np.sort((member_row * span_t + topic_row) * span_i + index_row)  # one key beats lexsort
        index_row = (key % span_i).astype(np.int32)
        key //= span_i
        return key // span_t, key % span_t, index_row
    order = np.lexsort((index_row, topic_row, member_row))  # junk indices (negative, huge): the general sort
    return member_row[order], topic_row[order], index_row[order]


def sets_of_grouped_rows(members: int, table: TopicTable, member_row: np.ndarray, topic_row: np.ndarray,
                         index_row: np.ndarray, *, as_listed: bool = False) -> list[PartitionSet]:
    """One set per member position from rows grouped by (member, topic code), codes ascending within a member;
    each set is cut from the shared arrays on first use. With `as_listed`, each topic's indices stay in the
    order given and a set is marked sorted only if they ascend; otherwise they must ascend already."""
    index_row = np.ascontiguousarray(index_row, dtype=np.int32)
    index_row.setflags(write=False)
    # The shared arrays and the sets are made in compiled code (`spec.native`): in Python and numpy, 2,100 sets cost
    # 0.7 ms, more than the rest of an assign at KIP-615's size.
    codes, rel, rows_at, runs_at, ordered = group_runs(np.ascontiguousarray(member_row, dtype=np.int64),
                                                       np.ascontiguousarray(topic_row, dtype=np.int64), index_row,
                                                       members, as_listed)
    rows = np.frombuffer(rows_at, np.int64)
    shared = _Shared((np.frombuffer(codes, np.int64), np.frombuffer(rel, np.int64), index_row, rows,
                      np.frombuffer(runs_at, np.int64)))
    return cut_sets(PartitionSet, table, shared, rows, ordered, EMPTY)


class _Shared(tuple):  # (codes, bounds, indices, rows_at, runs_at) of `sets_of_grouped_rows`
    """One group's shared arrays, equal only to themselves: `list.count` then finds the sets cut from one group by
    identity alone (3 us for 2,100 sets, against 120 us for a set of their ids), never comparing arrays."""

    __slots__ = ()
    __eq__ = object.__eq__
    __ne__ = object.__ne__
    __hash__ = object.__hash__


_SRC, _AT, _TABLE = attrgetter("_src"), attrgetter("_at"), attrgetter("table")
_MEMBER_ID = attrgetter("member_id")


def gather(sets: Sequence[PartitionSet]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The sets' (codes, bounds, indices) concatenated, and each set's number of topic runs: what whole-group
    code reads. Sets cut from one group's shared arrays (`sets_by_member`: an assignment, or claims fed back
    from one) are gathered with three index arrays, not three slices per set; so are those of a few such groups
    (an output that replaced some members' sets, `Assignment.replacing`), group by group, then put back in order."""
    srcs = list(map(_SRC, sets))  # C-level passes throughout: a group can have thousands of members
    if srcs and srcs[0] is not None and srcs.count(srcs[0]) == len(srcs):  # one group (`_Shared`)
        return _gather_shared(srcs[0], np.fromiter(map(_AT, sets), dtype=np.int64, count=len(srcs)))[:4]
    shared = dict(zip(map(id, srcs), srcs))  # None (sets of their own) is one more key
    if len(shared) > _FEW_SOURCES or len(shared) * 4 > len(srcs):
        return _gather_each(sets)[:4]
    ids = np.fromiter(map(id, srcs), dtype=np.uint64, count=len(srcs))
    parts = []
    for key, src in shared.items():
        where = np.flatnonzero(ids == np.uint64(key))
        mine = list(map(sets.__getitem__, where.tolist()))
        got = _gather_each(mine) if src is None else _gather_shared(
            src, np.fromiter(map(_AT, mine), dtype=np.int64, count=len(mine)))
        parts.append((where, *got))
    where, codes, bounds, indices, runs, rows = (np.concatenate(column) for column in zip(*parts))
    order = np.argsort(where)  # per set, in the sets' order: its place in the concatenation
    run_at, bound_at, row_at = ((np.cumsum(n) - n)[order] for n in (runs, runs + 1, rows))
    runs, rows = runs[order], rows[order]
    return (codes[ranges(run_at, runs)], bounds[ranges(bound_at, runs + 1)], indices[ranges(row_at, rows)], runs)


_FEW_SOURCES = 8  # above, one slice per set costs less than a pass per source


def _gather_shared(src: tuple[np.ndarray, ...], at: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    codes, bounds, indices, rows_at, runs_at = src
    ra, a = runs_at[at], rows_at[at]
    runs, rows = runs_at[at + 1] - ra, rows_at[at + 1] - a
    return codes[ranges(ra, runs)], bounds[ranges(ra + at, runs + 1)], indices[ranges(a, rows)], runs, rows


def _gather_each(sets: Sequence[PartitionSet]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    arrays = [s.arrays() for s in sets]
    return (np.concatenate([c for c, _, _ in arrays]), np.concatenate([b for _, b, _ in arrays]),
            np.concatenate([i for _, _, i in arrays]), np.array([len(c) for c, _, _ in arrays], dtype=np.int64),
            np.array([len(i) for _, _, i in arrays], dtype=np.int64))


def run_lengths(bounds: np.ndarray, runs: np.ndarray) -> np.ndarray:
    """Every topic run's length, from `gather`'s concatenated bounds and runs per set (a set's bounds have one
    entry more than its runs, so the differences across two sets' bounds are dropped)."""
    last = np.cumsum(runs + 1) - 1  # where each set's bounds end
    return np.delete(bounds[1:] - bounds[:-1], last[:-1])


def tables_of(sets: Sequence[PartitionSet]) -> tuple[list[TopicTable], np.ndarray]:
    """The sets' distinct topic tables (first seen first) and, per set, where its table's names start among their
    concatenated names: whole-group code translates each table once. Sets built together share one table."""
    tables = list(map(_TABLE, sets))
    if tables and tables.count(tables[0]) == len(tables):  # one table (identity: tables have no __eq__)
        return [tables[0]], np.zeros(len(tables), dtype=np.int64)
    distinct = {id(t): t for t in tables}
    start = dict(zip(distinct, np.cumsum([0] + [len(t.names) for t in distinct.values()]).tolist()))
    return list(distinct.values()), np.array([start[id(t)] for t in tables], dtype=np.int64)


def ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """starts[0] .. starts[0] + lengths[0] - 1, then the same for every k, as one array."""
    before = np.cumsum(lengths) - lengths
    return np.arange(int(lengths.sum()), dtype=np.int64) + np.repeat(starts - before, lengths)


def iter_pairs(parts: Partitions) -> Iterator[TopicPartition]:
    """Every (topic, index) of a `Partitions`, repeats included, in storage order."""
    for topic, arr in parts.items():
        for index in arr.tolist():
            yield topic, index


def count_of(parts: Partitions) -> int:
    if isinstance(parts, PartitionSet):
        return parts.count
    return sum(len(arr) for arr in parts.values())


def partitions_equal(a: Partitions, b: Partitions) -> bool:
    """Equality as multisets (order inside a topic does not matter, repeats do)."""
    if a is b:
        return True
    a, b = partitions_of(a, sort=True), partitions_of(b, sort=True)
    if a.count != b.count:
        return False
    if a.count <= SMALL_ROWS:
        (ac, ab, ai), (bc, bb, bi) = a.lists(), b.lists()
        if ai != bi or ab != bb:
            return False
        return ac == bc if a.table is b.table else [a.table.names[c] for c in ac] == [b.table.names[c] for c in bc]
    if a.table is b.table or a.table.names == b.table.names:  # two outputs of one assignor: compare bytes
        return (a.codes.tobytes() == b.codes.tobytes() and a.indices.tobytes() == b.indices.tobytes()
                and (a.bounds - a.bounds[0]).tobytes() == (b.bounds - b.bounds[0]).tobytes())
    if list(a) != list(b):
        return False
    return bool(np.array_equal(a.indices, b.indices) and np.array_equal(np.diff(a.bounds), np.diff(b.bounds)))


def rack_sets(racks: Iterable[Iterable[str]]) -> tuple[frozenset[str], ...]:
    """One shared frozenset per distinct rack set: 10 M partitions over a few racks hold a few sets and 10 M
    references (80 MB), not 10 M sets (2 GB)."""
    table: dict[frozenset[str], frozenset[str]] = {}
    intern = table.setdefault
    return tuple(intern(r, r) for r in map(frozenset, racks))  # frozenset(a frozenset) is that frozenset


@dataclass(frozen=True, slots=True)
class Member:
    """A group member as it joins: its subscription and its (raw, possibly junk) ownership claims."""

    member_id: str
    subscription: frozenset[str]
    owned: Partitions = field(default_factory=lambda: partitions_of(None))
    generation: int = UNKNOWN_GENERATION
    instance_id: str | None = None  # group.instance.id: a static member
    rack: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.subscription, frozenset):
            object.__setattr__(self, "subscription", frozenset(self.subscription))
        if not isinstance(self.owned, PartitionSet):
            object.__setattr__(self, "owned", partitions_of(self.owned))

    def sort_key(self) -> tuple[int, str, str]:
        """Kafka's MemberInfo order: static members first (by instance id), then by member id."""
        if self.instance_id is not None:
            return (0, self.instance_id, self.member_id)
        return (1, "", self.member_id)


@dataclass(frozen=True, slots=True)
class TopicOffsets:
    """Per-partition offsets of one topic (int64 arrays; `committed` uses -1 for "no commit")."""

    begin: np.ndarray
    end: np.ndarray
    committed: np.ndarray

    def lag(self, auto_offset_reset: str) -> np.ndarray:
        """docs/SPEC.md §7.3: end - committed; with no commit, 0 for `latest`, else end - begin. Never negative."""
        no_commit = self.committed < 0
        fallback = np.zeros_like(self.end) if auto_offset_reset == "latest" else self.end - self.begin
        lag = np.where(no_commit, fallback, self.end - self.committed)
        return np.maximum(lag, 0)


@dataclass(frozen=True, slots=True)
class LagInfo:
    offsets: Mapping[str, TopicOffsets]
    auto_offset_reset: str = "latest"

    def lag(self, topic: str) -> np.ndarray:
        return self.offsets[topic].lag(self.auto_offset_reset)


@dataclass(frozen=True, slots=True)
class Problem:
    """One rebalance of a consumer group: topic metadata and the members' join requests."""

    topics: Mapping[str, int]
    members: tuple[Member, ...]
    protocol: Protocol = "eager"
    # Per topic, per partition: the racks of its replicas (KIP-881). None = no rack information.
    partition_racks: Mapping[str, tuple[frozenset[str], ...]] | None = None
    lag: LagInfo | None = None
    # A KIP-848 or KIP-932 group's members claim their previous target assignment; the protocol is then "eager":
    # the coordinator revokes during reconciliation, after the assignor ran.
    group_type: GroupType = "classic"
    # Derived data computed once per problem (valid ownership: an assignor and the checks of its output
    # all need it); immutable values only, since every reader shares them.
    _derived: dict[str, object] = field(default_factory=dict, init=False, repr=False, compare=False)

    def derived(self, key: str, compute: Callable[[Problem], T]) -> T:
        """`compute(self)`, computed once per problem; `compute` must return a value nobody mutates and must not
        depend on the protocol (`with_protocol` shares the cache)."""
        if key not in self._derived:
            self._derived[key] = compute(self)
        return self._derived[key]  # type: ignore[return-value]  # the value `compute` made for this key

    def has_derived(self, key: str) -> bool:
        """Whether `derived(key, ...)` is computed already (a consumer may then prefer reading it)."""
        return key in self._derived

    def __post_init__(self) -> None:
        if not isinstance(self.topics, MappingProxyType):
            object.__setattr__(self, "topics", MappingProxyType(dict(self.topics)))
        if not isinstance(self.members, tuple):
            object.__setattr__(self, "members", tuple(self.members))
        if self.partition_racks is not None and not isinstance(self.partition_racks, MappingProxyType):
            racks = {t: rack_sets(r) for t, r in self.partition_racks.items()}
            object.__setattr__(self, "partition_racks", MappingProxyType(racks))

    @property
    def member_ids(self) -> tuple[str, ...]:
        return self.derived("member_ids", lambda p: tuple(map(_MEMBER_ID, p.members)))

    def member(self, member_id: str) -> Member:
        for m in self.members:
            if m.member_id == member_id:
                return m
        raise KeyError(member_id)

    @property
    def partition_count(self) -> int:
        return sum(self.topics.values())

    def subscribers(self, topic: str) -> tuple[Member, ...]:
        return tuple(m for m in self.members if topic in m.subscription)

    def subscribed_topics(self) -> tuple[str, ...]:
        """Topics that exist and have at least one subscriber, sorted by name."""
        wanted = set().union(*(m.subscription for m in self.members)) if self.members else set()
        return tuple(sorted(t for t in self.topics if t in wanted))

    def subscriptions_equal(self) -> bool:
        return self.derived("subscriptions_equal", _subscriptions_equal)

    def replace(self, **changes: Any) -> Problem:
        """A new problem with these fields changed (no derived data carried over). Built directly: the checks
        make several per problem, and `dataclasses.replace` reads the fields' metadata every time."""
        fields: dict[str, Any] = {"topics": self.topics, "members": self.members, "protocol": self.protocol,
                  "partition_racks": self.partition_racks, "lag": self.lag, "group_type": self.group_type}
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(f"Problem has no field {', '.join(sorted(unknown))}")
        fields.update(changes)
        return Problem(**fields)

    def with_protocol(self, protocol: Protocol) -> Problem:
        """The same group under another protocol, sharing the derived data (none of it depends on the protocol:
        valid ownership, views, oracle optima are the group's)."""
        if protocol == self.protocol:
            return self
        out = self.replace(protocol=protocol)
        object.__setattr__(out, "_derived", self._derived)
        return out


def _subscriptions_equal(problem: Problem) -> bool:
    return same_subscriptions(problem.members, Member)  # compiled: compares by identity first (shared sets)


def topic_sizes(problem: Problem) -> tuple[TopicTable, np.ndarray]:
    """Every topic of the metadata, numbered by name, and its partition count (int64, read-only): once per problem
    (whole-group valid ownership and the pair table both read them)."""
    return problem.derived("topic_sizes", _topic_sizes)


def _topic_sizes(problem: Problem) -> tuple[TopicTable, np.ndarray]:
    table = TopicTable.of(tuple(sorted(problem.topics)))
    return table, read_only(list(map(problem.topics.__getitem__, table.names)), np.int64)


NO_STANDBY: Mapping[str, Partitions] = MappingProxyType({})


class GroupedRows(NamedTuple):
    """The rows an output's sets are cut from, sorted by (member, topic code, index): one per assigned partition.
    `member` indexes `member_ids`, `topic` indexes `table.names` (int64 arrays), `indices` are int32."""

    member_ids: Sequence[str]
    table: TopicTable
    member: np.ndarray
    topic: np.ndarray
    indices: np.ndarray


@dataclass(frozen=True)
class Assignment:
    """An assignor's output: member id -> `Partitions`. Holds whatever an assignor returned
    (unknown members, repeats, junk indices), sorted inside each topic so equal outputs compare equal. A Streams
    output's `by_member` is each client's active tasks, `standby` its standby tasks (empty for consumer groups)."""

    by_member: Mapping[str, Partitions]
    standby: Mapping[str, Partitions] = field(default_factory=lambda: NO_STANDBY)

    def __post_init__(self) -> None:
        canonical = {str(m): partitions_of(p, sort=True) for m, p in self.by_member.items()}
        object.__setattr__(self, "by_member", MappingProxyType(canonical))
        if self.standby:
            standby = {str(m): partitions_of(p, sort=True) for m, p in self.standby.items()}
            object.__setattr__(self, "standby", MappingProxyType(standby))

    @classmethod
    def of(
        cls, spec: Mapping[str, Partitions | Mapping[str, Iterable[int]] | Iterable[TopicPartition]],
        standby: Mapping[str, Partitions | Mapping[str, Iterable[int]] | Iterable[TopicPartition]] | None = None,
    ) -> Assignment:
        return cls({m: partitions_of(p) for m, p in spec.items()},
                   {m: partitions_of(p) for m, p in (standby or {}).items()})

    def standby_of(self, member_id: str) -> Partitions:
        return self.standby.get(member_id, EMPTY)

    @classmethod
    def from_rows(cls, member_ids: Sequence[str], member_row: Sequence[int] | np.ndarray, table: TopicTable,
                  topic_row: Sequence[int] | np.ndarray, index_row: Sequence[int] | np.ndarray) -> Assignment:
        """The fast constructor: one row per assigned partition (member position, topic code, index), as arrays
        or (small paths) plain int lists."""
        if len(member_row) <= SMALL_ROWS:
            return cls._of_canonical(member_ids, _sets_small(len(member_ids), member_row, table, topic_row,
                                                             index_row))
        return cls.from_grouped_rows(member_ids, table,
                                     *_sorted_rows(len(member_ids), member_row, table, topic_row, index_row))

    @classmethod
    def from_grouped_rows(cls, member_ids: Sequence[str], table: TopicTable, member_row: np.ndarray,
                          topic_row: np.ndarray, index_row: np.ndarray) -> Assignment:
        """`from_rows` for rows sorted by (member position, topic code, index) already (int64 arrays, the indices
        int32): nothing to sort. The output keeps the rows (`grouped_rows`)."""
        sets = sets_of_grouped_rows(len(member_ids), table, member_row, topic_row, index_row)
        out = cls._of_canonical(member_ids, sets)
        if len(member_row) and 0 <= member_row[0] and member_row[-1] < len(member_ids):  # every row in a set
            src = next(s._src for s in sets if s.count)
            object.__setattr__(out, "_cut_from", (member_ids, table, src))
        return out

    @classmethod
    def _of_canonical(cls, member_ids: Sequence[str], sets: list[PartitionSet]) -> Assignment:
        out = object.__new__(cls)  # the sets are canonical already: skip __post_init__'s re-sorting
        ids = member_ids if isinstance(member_ids, list | tuple) else list(member_ids)
        object.__setattr__(out, "by_member", MappingProxyType(by_member(ids, sets)))  # dict(zip(ids, sets)), compiled
        object.__setattr__(out, "standby", NO_STANDBY)
        return out

    @property
    def grouped_rows(self) -> GroupedRows | None:
        """The rows this output was cut from (`from_rows`, `from_grouped_rows` on more than `SMALL_ROWS` rows), made
        again from its sets' shared arrays (a few numpy calls, no pass over the members, no copy kept), so a
        whole-group reader needs no pass over its members; None for an output made otherwise."""
        cut = self.__dict__.get("_cut_from")
        if cut is None:
            return None
        member_ids, table, (codes, bounds, indices, rows_at, runs_at) = cut
        members = np.arange(len(member_ids))
        at = np.arange(len(codes)) + np.repeat(members, np.diff(runs_at))  # each run's start among the bounds
        return GroupedRows(member_ids, table, np.repeat(members, np.diff(rows_at)),
                           np.repeat(codes, bounds[at + 1] - bounds[at]), indices)

    def replacing(self, changed: Mapping[str, PartitionSet]) -> Assignment:
        """This output with the sets of the members in `changed` replaced by those (sorted) sets; every other member
        keeps its very set."""
        assert all(p.is_sorted for p in changed.values())
        by_member = dict(self.by_member)
        by_member.update(changed)
        out = object.__new__(Assignment)
        object.__setattr__(out, "by_member", MappingProxyType(by_member))
        object.__setattr__(out, "standby", self.standby)
        return out

    @classmethod
    def from_gids(cls, member_ids: Sequence[str], owners: Sequence[int], gids: Sequence[int], table: TopicTable,
                  offsets: Sequence[int]) -> Assignment:
        """A small output from plain lists of (member position, global id), where topic k of `table` holds the ids
        offsets[k] .. offsets[k + 1] - 1: each member's ids sorted once make its set, with no grouping pass."""
        per: list[list[int]] = [[] for _ in member_ids]
        for m, g in zip(owners, gids):
            per[m].append(g)
        sets = []
        of_lists = PartitionSet.of_lists
        for mine in per:
            if not mine:
                sets.append(EMPTY)
                continue
            mine.sort()
            k = bisect_right(offsets, mine[0]) - 1
            if mine[-1] < offsets[k + 1]:  # all of one topic: the common case, one comprehension
                base = offsets[k]
                sets.append(of_lists(table, (k,), (0, len(mine)), tuple([g - base for g in mine]), True))
                continue
            codes: list[int] = []
            bounds: list[int] = []
            flat: list[int] = []
            k, end = -1, -1
            for g in mine:
                if g >= end:
                    k = bisect_right(offsets, g) - 1
                    end = offsets[k + 1]
                    codes.append(k)
                    bounds.append(len(flat))
                flat.append(g - offsets[k])
            bounds.append(len(flat))
            sets.append(of_lists(table, tuple(codes), tuple(bounds), tuple(flat), True))
        return cls._of_canonical(member_ids, sets)

    @classmethod
    def of_sets(cls, by_member: Mapping[str, PartitionSet]) -> Assignment:
        """From sets that are sorted already (`PartitionSet.is_sorted`), without re-canonicalizing them."""
        assert all(p.is_sorted for p in by_member.values())
        out = object.__new__(cls)
        object.__setattr__(out, "by_member", MappingProxyType(dict(by_member)))
        object.__setattr__(out, "standby", NO_STANDBY)
        return out

    def get(self, member_id: str) -> Partitions:
        return self.by_member.get(member_id, EMPTY)

    def count(self, member_id: str) -> int:
        return count_of(self.get(member_id))

    def counts(self) -> dict[str, int]:
        return {m: count_of(p) for m, p in self.by_member.items()}

    def pairs(self, member_id: str) -> Iterator[TopicPartition]:
        return iter_pairs(self.get(member_id))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Assignment):
            return NotImplemented
        if set(self.by_member) != set(other.by_member):
            return False
        return (all(partitions_equal(p, other.by_member[m]) for m, p in self.by_member.items())
                and _same_standby(self.standby, other.standby))

    def __hash__(self) -> int:
        return hash(tuple(sorted((m, self.count(m)) for m in self.by_member)))

    def as_lists(self) -> dict[str, dict[str, list[int]]]:
        """Plain Python form, e.g. for printing and tests."""
        return {m: {t: arr.tolist() for t, arr in sorted(p.items())} for m, p in self.by_member.items()}


def _same_standby(a: Mapping[str, Partitions], b: Mapping[str, Partitions]) -> bool:
    """Equal standby mappings (a client with no standby and one left out are the same)."""
    if not a and not b:
        return True
    a = {m: p for m, p in a.items() if count_of(p)}
    b = {m: p for m, p in b.items() if count_of(p)}
    return set(a) == set(b) and all(partitions_equal(p, b[m]) for m, p in a.items())


# ---- Kafka Streams task problems (docs/SPEC.md §1.2) ---------------------------------------------
# A task is (subtopology, partition); a set of tasks uses the same `Partitions` container.


# Kafka Streams' own limits on client tags (StreamsConfig: client.tag.* and rack.aware.assignment.tags): a
# problem past them is one no Streams client or config can state, so the reader refuses it.
MAX_CLIENT_TAGS = 5
MAX_TAG_KEY_LENGTH = 20
MAX_TAG_VALUE_LENGTH = 30
# Streams' acceptable.recovery.lag default: what an assignor reads when the problem does not set one.
DEFAULT_ACCEPTABLE_RECOVERY_LAG = 10_000


@dataclass(frozen=True, slots=True)
class Client:
    """A Streams client (one KafkaStreams process): its stream threads, the tasks it ran before, and what it
    reports to the assignor: per-task lags, its rack id and its client tags.

    `lags` maps a task (sub-topology, partition) to the changelog records the client's state for it is behind
    (end offsets minus its offset sum: KIP-924 `KafkaStreamsState.lagFor`, KIP-1071 task offsets against end
    offsets). A task it reports no lag for is read as caught up if the client held it (running, if it ran it as
    active), else as the whole changelog behind, as Streams reads a client with no state for it. Empty, rack
    None and no tags: what every problem meant before these fields existed."""

    client_id: str
    capacity: int  # number of stream threads
    active: Partitions = field(default_factory=lambda: partitions_of(None))  # previous active tasks
    standby: Partitions = field(default_factory=lambda: partitions_of(None))  # previous standby tasks
    lags: Mapping[TopicPartition, int] = field(default_factory=dict)  # task -> reported lag (records behind)
    rack: str | None = None  # its rack id (KIP-924 rackId(), KIP-1071 the member's rack)
    client_tags: Mapping[str, str] = field(default_factory=dict)  # client.tag.<key> = <value>

    def __post_init__(self) -> None:
        for name in ("active", "standby"):
            value = getattr(self, name)
            if not isinstance(value, PartitionSet):
                object.__setattr__(self, name, partitions_of(value))
        for name in ("lags", "client_tags"):
            value = getattr(self, name)
            if not isinstance(value, MappingProxyType):
                object.__setattr__(self, name, MappingProxyType(dict(sorted(value.items()))))


@dataclass(frozen=True, slots=True)
class StreamsProblem:
    """Sub-topology -> number of tasks, and the clients with their capacities and previous tasks; how many
    standby replicas each stateful task may have (Streams' `num.standby.replicas`), and the sub-topologies with
    no state store (their tasks are stateless: nothing to keep a standby of).

    `acceptable_recovery_lag` is Streams' `acceptable.recovery.lag` (None: not set by the problem, the
    assignor's configured value, Streams' default `DEFAULT_ACCEPTABLE_RECOVERY_LAG`); `rack_aware_assignment_tags`
    its `rack.aware.assignment.tags` (the client tag keys standbys are spread over)."""

    subtopologies: Mapping[str, int]
    clients: tuple[Client, ...]
    num_standby_replicas: int = 0
    stateless: frozenset[str] = frozenset()
    acceptable_recovery_lag: int | None = None
    rack_aware_assignment_tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.subtopologies, MappingProxyType):
            object.__setattr__(self, "subtopologies", MappingProxyType(dict(self.subtopologies)))
        if not isinstance(self.clients, tuple):
            object.__setattr__(self, "clients", tuple(self.clients))
        if not isinstance(self.stateless, frozenset):
            object.__setattr__(self, "stateless", frozenset(self.stateless))
        if not isinstance(self.rack_aware_assignment_tags, tuple):
            object.__setattr__(self, "rack_aware_assignment_tags", tuple(self.rack_aware_assignment_tags))

    def stateful(self, subtopology: str) -> bool:
        return subtopology not in self.stateless

    @property
    def client_ids(self) -> tuple[str, ...]:
        return tuple(c.client_id for c in self.clients)

    @property
    def task_count(self) -> int:
        return sum(self.subtopologies.values())

    @property
    def total_capacity(self) -> int:
        return sum(c.capacity for c in self.clients)


AnyProblem: TypeAlias = Problem | StreamsProblem

__all__ = [
    "AnyProblem", "Assignment", "Client", "DEFAULT_ACCEPTABLE_RECOVERY_LAG", "EMPTY", "GROUP_TYPES", "GroupType",
    "GroupedRows", "INT32_MAX", "INT32_MIN", "LagInfo", "MAX_CLIENT_TAGS", "MAX_TAG_KEY_LENGTH",
    "MAX_TAG_VALUE_LENGTH", "Member", "PartitionSet", "Partitions", "Problem", "Protocol", "SMALL_ROWS",
    "StreamsProblem", "TopicOffsets", "TopicPartition", "TopicTable", "UNKNOWN_GENERATION", "count_of", "gather",
    "index_array", "iter_pairs", "partitions_equal", "partitions_of", "rack_sets", "ranges", "read_only",
    "run_lengths", "sets_by_member", "sets_of_grouped_rows", "tables_of", "topic_sizes"
]
