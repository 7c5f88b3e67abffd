"""`spec.partition_rows`' plain-Python path for small groups (<= `model.SMALL_ROWS` rows) against its vectorized one."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from assigncheck.generate.strategies import problems
from assigncheck.spec import partition_rows as rows
from assigncheck.spec.model import Assignment, Problem, partitions_of


@settings(max_examples=300, deadline=None)
@given(problems(claims="junk", max_members=6), st.data())
def test_small_and_vectorized_rows_agree(problem, data):
    names = [*problem.member_ids, "stranger"]
    topics = [*problem.topics, "gone"]
    pair = st.tuples(st.sampled_from(topics), st.integers(-2, 9))
    out = Assignment.of({m: data.draw(st.lists(pair, max_size=8)) for m in names if data.draw(st.booleans())})
    ids = rows.output_member_ids(problem, out)
    held = [(mi, partitions_of(out.get(m))) for mi, m in enumerate(ids) if out.get(m)]
    if not held:
        return
    lay = rows.layout(problem)
    small = rows._build_small(lay, ids, held)
    vectorized = rows._build_vectorized(lay, ids, [mi for mi, _ in held], [s for _, s in held])
    for field in ("member", "index", "gid", "piece"):
        assert np.array_equal(getattr(small, field), getattr(vectorized, field)), field
    assert (small.piece_member, small.piece_topic) == (vectorized.piece_member, vectorized.piece_topic)


def _same_valid_rows(problem):
    from assigncheck.spec.ownership import valid_owned

    fast, built = rows.valid_rows(problem), rows._build(problem, problem.member_ids, valid_owned(problem))
    for field in ("member", "index", "gid", "piece"):
        assert np.array_equal(getattr(fast, field), getattr(built, field)), field
    assert (fast.member_ids, fast.piece_member, fast.piece_topic) == (
        built.member_ids, built.piece_member, built.piece_topic)


@settings(max_examples=300, deadline=None)
@given(problems(claims="junk", min_members=6, max_members=24, max_topics=3, min_partitions_per_topic=20,
                max_partitions_per_topic=40))
def test_valid_rows_from_the_flat_claims_equal_the_rows_of_the_sets(problem):
    """Large groups' `valid_rows` read `valid_claims` directly; the rows equal those built from `valid_owned`."""
    _same_valid_rows(problem)


def test_valid_rows_of_a_large_fed_back_group_with_stale_and_double_claims():
    from assigncheck.spec.model import Member
    from assigncheck.spec.rounds import next_round
    from assigncheck.targets import registry

    topics = {"a": 300, "b": 200, "c": 7}
    first = Problem(topics, tuple(Member(f"m{i:03d}", frozenset(topics)) for i in range(150)))
    settled = next_round(first, registry.get("sticky-constrained").assign(first))
    stale = Member("late", frozenset(topics), partitions_of([("a", 0), ("b", 5), ("b", 999)]), generation=0)
    twin = Member("twin", frozenset(topics), settled.members[3].owned, settled.members[3].generation)
    problem = settled.replace(members=(*settled.members, stale, twin))
    assert len(rows.valid_claims(problem)) > 64
    _same_valid_rows(problem)
