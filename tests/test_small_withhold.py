"""The cooperative withholding's plain-Python path (`impl/cooperative.py` `_withhold_small`) against its rows path."""

from hypothesis import given, settings
from hypothesis import strategies as st

from assigncheck.generate.strategies import problems, sticky_rounds
from assigncheck.impl import cooperative, registry


@settings(max_examples=300, deadline=None)
@given(st.one_of(sticky_rounds(), problems(racks=None)))
def test_withhold_small_path_agrees(problem):
    problem = problem.with_protocol("cooperative")
    eager = registry.get("sticky").assign(problem)
    assert cooperative._withhold_small(problem, eager) == cooperative._withhold_rows(problem, eager)
