"""`spec.partition_rows`' plain-Python path for small groups (<= `model.SMALL_ROWS` rows) against its vectorized one."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from assigncheck.spec import partition_rows as rows
from assigncheck.spec.model import Assignment, partitions_of
from assigncheck.spec.strategies import problems


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
    small, vectorized = rows._build_small(lay, ids, held), rows._build_vectorized(lay, ids, held)
    for field in ("member", "index", "gid", "piece"):
        assert np.array_equal(getattr(small, field), getattr(vectorized, field)), field
    assert (small.piece_member, small.piece_topic) == (vectorized.piece_member, vectorized.piece_topic)
