"""The range, round-robin and lag assignors' plain-Python paths for small problems against their vectorized ones."""

from unittest import mock

from hypothesis import given, settings

from assigncheck.generate.strategies import problems
from assigncheck.impl import lag as lag_impl
from assigncheck.impl import range as range_impl
from assigncheck.impl import roundrobin as roundrobin_impl
from assigncheck.targets import registry


@settings(max_examples=300, deadline=None)
@given(problems(racks=None, lag=None, min_partitions_per_topic=0, min_members=0))
def test_range_roundrobin_lag_small_paths_agree(problem):
    for name, module in (("range", range_impl), ("roundrobin", roundrobin_impl), ("lag", lag_impl)):
        small = registry.get(name).assign(problem)
        with mock.patch.object(module, "is_small", lambda p: False):
            assert registry.get(name).assign(problem) == small, name
