"""The rack layout's plain-Python path (`spec.racks.SMALL`, small problems) against its vectorized one."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from assigncheck.generate.strategies import problems
from assigncheck.spec import racks


@settings(max_examples=300, deadline=None)
@given(st.one_of(problems(racks=True, min_members=0, min_partitions_per_topic=0),
                 problems(racks=True, co_partitioned=True)))
def test_small_and_vectorized_rack_layouts_agree(problem):
    small = racks.SMALL.layout(problem)
    vectorized = racks.VECTORIZED.layout(problem)
    assert (small.aware, small.sets) == (vectorized.aware, vectorized.sets)
    assert racks.SMALL.aware(problem) == vectorized.aware
    for name in ("partition_set", "member_rack", "match"):
        assert np.array_equal(getattr(small, name), getattr(vectorized, name)), name
