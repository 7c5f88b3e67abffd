"""The model's small-input paths (plain Python below `SMALL_ROWS`) against its vectorized ones."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from assigncheck.spec import model
from assigncheck.spec.model import Assignment, PartitionSet, TopicTable, partitions_equal, partitions_of

rows = st.integers(0, 5).flatmap(lambda members: st.tuples(
    st.just(members),
    st.lists(st.tuples(st.integers(0, max(members - 1, 0)), st.integers(0, 3), st.integers(-3, 2**31 - 1)),
              max_size=3 * model.SMALL_ROWS),
))


def as_lists(sets: list[PartitionSet]) -> list[list[tuple[str, list[int]]]]:
    return [[(t, a.tolist()) for t, a in s.items()] for s in sets]


@settings(max_examples=300, deadline=None)
@given(rows)
def test_small_and_vectorized_sets_by_member_agree(case):
    members, triples = case
    triples = [t for t in triples if t[0] < members]
    table = TopicTable.of(("a", "b", "c", "d"))
    m, t, i = (np.array([r[k] for r in triples], dtype=np.int64) for k in range(3))
    small = model._sets_small(members, m, table, t, i)
    vectorized = model._sets_vectorized(members, m, table, t, i)
    assert as_lists(small) == as_lists(vectorized)
    assert [s.count for s in small] == [s.count for s in vectorized]
    assert [np.diff(s.bounds).tolist() for s in small] == [np.diff(s.bounds).tolist() for s in vectorized]
    for s in small:
        assert s.is_sorted and not s.indices.flags.writeable


def test_small_path_drops_rows_of_members_out_of_range():
    table = TopicTable.of(("a",))
    sets = model._sets_small(2, np.array([0, 2, 1]), table, np.array([0, 0, 0]), np.array([5, 6, 7]))
    assert as_lists(sets) == [[("a", [5])], [("a", [7])]]


pairs = st.lists(st.tuples(st.sampled_from("xyz"), st.integers(0, 4)), max_size=8)


@settings(max_examples=300, deadline=None)
@given(pairs, pairs)
def test_partitions_equal_on_a_shared_table_is_multiset_equality(a, b):
    table = TopicTable.of(("x", "y", "z"))
    code = table.code

    def build(ps: list[tuple[str, int]]) -> PartitionSet:
        return PartitionSet.from_rows(table, np.array([code[t] for t, _ in ps], dtype=np.int64),
                                      np.array([i for _, i in ps], dtype=np.int32))

    expected = sorted(a) == sorted(b)
    assert partitions_equal(build(a), build(b)) == expected
    assert partitions_equal(partitions_of(a), partitions_of(b)) == expected  # tables built separately


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=5), st.data())
def test_from_gids_agrees_with_from_rows(sizes, data):
    """Topics of 0-4 partitions (empty ones too), gids dealt to 3 members in any order, repeats included."""
    table = TopicTable.of(tuple(f"t{k}" for k in range(len(sizes))))
    offsets = [0]
    for n in sizes:
        offsets.append(offsets[-1] + n)
    gids = data.draw(st.lists(st.integers(0, offsets[-1] - 1), max_size=12)) if offsets[-1] else []
    owners = [data.draw(st.integers(0, 2)) for _ in gids]
    topic = [max(k for k in range(len(sizes)) if offsets[k] <= g and sizes[k]) for g in gids]
    rows = Assignment.from_rows(["a", "b", "c"], owners, table, topic, [g - offsets[k] for g, k in zip(gids, topic)])
    assert Assignment.from_gids(["a", "b", "c"], owners, gids, table, offsets) == rows


@settings(max_examples=200, deadline=None)
@given(rows, st.data())
def test_gather_reads_cut_sets_as_their_arrays(case, data):
    """`gather` over lazily cut sets of one group (any subset, any order) and over a mix with sets of their own
    equals concatenating each set's own arrays; `tables_of` places every set's table names at its base."""
    members, triples = case
    triples = [t for t in triples if t[0] < members]
    table = TopicTable.of(("a", "b", "c", "d"))
    m, t, i = (np.array([r[k] for r in triples], dtype=np.int64) for k in range(3))
    cut = [s for s in model._sets_vectorized(members, m, table, t, i) if s.count]
    order = data.draw(st.permutations(cut))
    picked = order[:data.draw(st.integers(0, len(cut)))]
    own = data.draw(st.booleans())
    sets = picked + ([partitions_of({"a": [3, 1], "c": [2]})] if own else [])
    if not sets:
        return
    codes, bounds, indices, runs = model.gather(sets)
    expected = [s.arrays() for s in sets]
    assert codes.tolist() == [x for c, _, _ in expected for x in c.tolist()]
    assert bounds.tolist() == [x for _, b, _ in expected for x in b.tolist()]
    assert indices.tolist() == [x for _, _, ix in expected for x in ix.tolist()]
    assert runs.tolist() == [len(c) for c, _, _ in expected]
    tables, base = model.tables_of(sets)
    names = [n for t in tables for n in t.names]
    starts = base.tolist()
    assert [tuple(names[b:b + len(s.table.names)]) for s, b in zip(sets, starts)] == [s.table.names for s in sets]
    assert len(tables) == len({id(s.table) for s in sets})


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from("abcd"), st.integers(0, 100).flatmap(
    lambda n: st.lists(st.integers(-3, 300), min_size=n, max_size=n))), st.booleans(), st.booleans())
def test_partitions_of_marks_a_set_sorted_exactly_when_every_topic_ascends(spec, as_arrays, ascend):
    """Plain lists of a few partitions and arrays of many take different paths; both mark the set sorted exactly when
    every topic's indices ascend (repeats allowed), so ascending claims can be handed back as they are."""
    if ascend:
        spec = {t: sorted(v) for t, v in spec.items()}
    given = {t: np.array(v, dtype=np.int64) for t, v in spec.items()} if as_arrays else spec
    out = partitions_of(given)
    assert out.is_sorted == all(a <= b for v in spec.values() for a, b in zip(v, v[1:]))
    assert {t: a.tolist() for t, a in out.items()} == {t: v for t, v in spec.items() if v}


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30).flatmap(lambda members: st.tuples(st.just(members), st.lists(
    st.tuples(st.integers(0, members - 1), st.integers(0, 3), st.integers(0, 500)),
    min_size=model.SMALL_ROWS + 1, max_size=4 * model.SMALL_ROWS))))
def test_an_output_made_from_rows_gives_them_back_sorted(case):
    """`Assignment.grouped_rows`, made again from the sets' shared arrays, is the rows sorted by (member, topic,
    index), and its sets are those rows grouped by member."""
    members, triples = case
    table = TopicTable.of(("a", "b", "c", "d"))
    ids = [f"m{k}" for k in range(members)]
    out = Assignment.from_rows(ids, [r[0] for r in triples], table, [r[1] for r in triples], [r[2] for r in triples])
    rows = out.grouped_rows
    assert rows is not None and list(rows.member_ids) == ids and rows.table is table
    assert list(zip(rows.member.tolist(), rows.topic.tolist(), rows.indices.tolist())) == sorted(triples)
    assert Assignment.of_sets(out.by_member).grouped_rows is None
