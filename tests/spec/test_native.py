"""The checker's compiled helpers (native/spec/, `assigncheck.spec.native`): the sets they cut read as the rows they
were cut from, valid ownership read from every form a claimed set takes equals the plain-Python rules', and they
refuse what they cannot read, leaving the collector and reference counts as found; the module holds what its stub
names and no kernel of impl's. (`tests/spec/test_model_small.py`
and `tests/spec/test_ownership.py` hold both equal to the plain-Python paths on small groups too.)"""

import ast
import gc
import sys
from itertools import groupby

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assigncheck.spec import model, native, ownership
from assigncheck.spec.model import EMPTY, Member, PartitionSet, Problem, TopicTable, sets_of_grouped_rows
from assigncheck.spec.native import cut_sets, valid_claim_rows
from assigncheck.spec.subscriptions import subscription_codes
from tests.paths import PACKAGE

TABLE = TopicTable.of(("a", "b", "c"))

# (member, topic) groups in order, each with its indices in the order given (not necessarily ascending)
grouped = st.integers(1, 6).flatmap(lambda members: st.tuples(st.just(members), st.lists(
    st.tuples(st.integers(0, members - 1), st.integers(0, 2), st.lists(st.integers(0, 9), min_size=1, max_size=4)),
    max_size=12)))


@settings(max_examples=100, deadline=None)
@given(grouped)
def test_sets_cut_as_listed_read_as_their_rows(case):
    members, runs = case
    runs = sorted({(m, t): (m, t, i) for m, t, i in runs}.values(), key=lambda r: r[:2])  # one run per (m, t)
    rows = [(m, t, i) for m, t, indices in runs for i in indices]
    member, topic, index = (np.array([r[k] for r in rows], dtype=np.int64 if k < 2 else np.int32).reshape(-1)
                            for k in range(3))
    sets = sets_of_grouped_rows(members, TABLE, member, topic, index, as_listed=True)
    assert len(sets) == members
    by_member = {m: list(g) for m, g in groupby(runs, key=lambda r: r[0])}
    for m, s in enumerate(sets):
        mine = by_member.get(m, [])
        if not mine:
            assert s is EMPTY
            continue
        assert {t: a.tolist() for t, a in s.items()} == {TABLE.names[t]: i for _, t, i in mine}
        assert s.count == sum(len(i) for _, _, i in mine) and s.table is TABLE
        assert s.is_sorted == all(i == sorted(i) for _, _, i in mine)


def test_the_references_it_takes_are_given_back():
    table, shared = TopicTable.of(("t",)), ("shared",)
    before = sys.getrefcount(table), sys.getrefcount(shared), sys.getrefcount(EMPTY)
    sets = cut_sets(PartitionSet, table, shared, np.array([0, 2, 2, 5]), None, EMPTY)
    assert [s.count if s is not EMPTY else 0 for s in sets] == [2, 0, 3] and sets[1] is EMPTY
    assert sets[2]._at == 2 and sets[0]._src is shared and sets[0].is_sorted is True
    assert sets[0]._codes is None and sets[0]._lists is None  # the unset slots read as "not made yet"
    assert sys.getrefcount(table) == before[0] + 2
    del sets
    assert (sys.getrefcount(table), sys.getrefcount(shared), sys.getrefcount(EMPTY)) == before


def test_cut_sets_are_left_to_reference_counting():
    """A set holds nothing that refers back to it, so the cut sets are untracked: the collector never visits the
    thousands a group makes (and a set whose arrays or lists are made later stays so)."""
    sets = model._sets_vectorized(3, np.array([0, 0, 2]), TABLE, np.array([0, 1, 0]), np.array([1, 2, 3]))
    assert sets[0].lists() == ((0, 1), (0, 1, 2), (1, 2)) and sets[1] is EMPTY
    assert not any(map(gc.is_tracked, sets[::2]))
    with pytest.raises(ValueError, match="ascend"):
        cut_sets(PartitionSet, TABLE, (), np.array([0, 3, 1]), None, EMPTY)


class NotASet:
    __slots__ = ("table", "is_sorted", "_src", "_at")  # no `count`


class Plain:
    table = is_sorted = _src = _at = count = None  # class attributes, not slots


@pytest.mark.parametrize(("cls", "rows_at", "ordered", "error", "says"), [
    (NotASet, np.arange(3), None, AttributeError, "count"),
    (Plain, np.arange(3), None, TypeError, "not a slot"),
    (PartitionSet, np.arange(3, dtype=np.float64), None, BufferError, "i64"),
    (PartitionSet, np.arange(6)[::2], None, ValueError, "contiguous"),
    (PartitionSet, np.arange(3), [True], ValueError, "one flag per member"),
])
def test_what_it_cannot_cut_is_refused(cls, rows_at, ordered, error, says):
    with pytest.raises(error, match=says):
        cut_sets(cls, TABLE, (), rows_at, ordered, EMPTY)


NAMES = ("a", "b", "c", "gone")  # "gone": claimed, absent from the metadata


def test_a_group_of_cut_sets_fed_back_keeps_every_claim():
    """The usual next round, at a size above the small path: every claim valid, read from the shared arrays."""
    table = TopicTable.of(("t",))
    sets = model._sets_vectorized(500, np.arange(500), table, np.zeros(500, dtype=np.int64), np.arange(500))
    problem = Problem({"t": 500}, [Member(f"m{i:03d}", frozenset({"t"}), s, 3) for i, s in enumerate(sets)])
    valid = ownership.valid_claims(problem)
    assert valid.member.tolist() == list(range(500)) and valid.index.tolist() == list(range(500))


@pytest.mark.parametrize(("members", "member_cls", "says"), [
    ([object()], Member, "Member objects"),
    ([Member("m", frozenset(), EMPTY, 0)], NotASet, "subscription"),
])
def test_what_it_cannot_read_is_refused(members, member_cls, says):
    with pytest.raises((TypeError, AttributeError), match=says):
        valid_claim_rows(tuple(members), member_cls, PartitionSet, TopicTable, {"t": 0}, [1], None, False)
    with pytest.raises(ValueError, match="sizes"):
        valid_claim_rows((), Member, PartitionSet, TopicTable, {"t": 0}, [1, 2], None, False)


TOPICS = ("topic-a", "topic-b", "topic-c", "gone")  # "gone": absent from the metadata


@settings(max_examples=100, deadline=None)
@given(st.lists(st.frozensets(st.sampled_from(TOPICS)), min_size=1, max_size=8), st.booleans())
def test_subscription_codes_number_equal_sets_once_and_list_known_topics(subscriptions, copies):
    """Distinct subscriptions numbered first seen first, equal sets (the same object or not) as one; each one's
    known topics, in its iteration order, whether its names are the metadata's own str objects or equal ones."""
    if copies:  # equal sets as distinct objects, of equal names as distinct objects, as members built one by one hold
        subscriptions = [frozenset((t + "!")[:-1] for t in s) for s in subscriptions]
    problem = Problem(dict(zip(TOPICS, (1, 2, 0))), [Member(f"m{i}", s) for i, s in enumerate(subscriptions)])
    codes = subscription_codes(problem)
    distinct = list(dict.fromkeys(subscriptions))
    assert codes.member_sub.tolist() == [distinct.index(s) for s in subscriptions]
    names = codes.table.names
    assert names == ("topic-a", "topic-b", "topic-c")
    expected = [(k, names.index(t)) for k, s in enumerate(distinct) for t in s if t in names]
    assert list(zip(codes.sub.tolist(), codes.codes.tolist(), strict=True)) == expected
    assert not codes.member_sub.flags.writeable and not codes.codes.flags.writeable


def test_the_module_holds_what_its_stub_names():
    """The stub (what mypy reads) and the built module name the same functions, and the spec's room holds none of
    the built-in assignors' kernels (`assigncheck.impl.native`)."""
    stub = ast.parse((PACKAGE / "spec" / "native.pyi").read_text())
    named = {node.name for node in stub.body if isinstance(node, ast.FunctionDef)}
    assert named == {name for name in dir(native) if not name.startswith("_")}
    assert named == {"cut_sets", "group_runs", "by_member", "valid_claim_rows", "raw_claimants", "same_subscriptions",
                     "subscription_rows"}
