"""The cooperative withholding's plain-Python path (`impl/cooperative.py` `_withhold_small`) against its rows path."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assigncheck.generate.strategies import problems, sticky_rounds
from assigncheck.impl import cooperative
from assigncheck.spec import model
from assigncheck.spec.model import Assignment, Member, Problem, partitions_of
from assigncheck.targets import registry
from benchmarks.sticky_shapes import churn, random_subscriptions


@settings(max_examples=300, deadline=None)
@given(st.one_of(sticky_rounds(), problems(racks=None)))
def test_withhold_small_path_agrees(problem):
    problem = problem.with_protocol("cooperative")
    eager = registry.get("sticky").assign(problem)
    assert cooperative._withhold_small(problem, eager) == cooperative._withhold_rows(problem, eager)


@pytest.mark.parametrize("seed", range(1, 7))
def test_withhold_reads_the_eager_rows_and_rebuilds_only_the_losers(seed):
    """A large eager output keeps the rows it was cut from (`Assignment.grouped_rows`): the rows path reads them and
    agrees with the plain-Python path and with the rows path over the same sets without them; a member that loses
    nothing keeps its very eager set, and a whole-group reader gathers the mixed output as its sets' own arrays."""
    fresh = random_subscriptions(60, 12, 600, 6, seed=seed)
    problem = churn(fresh, registry.get("sticky").assign(fresh), resubscribe=0.3, leave=0.1, seed=seed,
                    max_topics=6).with_protocol("cooperative")
    eager = registry.get("sticky").assign(problem)
    assert eager.grouped_rows is not None
    out = cooperative._withhold_rows(problem, eager)
    assert out != eager  # the churn moves claimed partitions: some are held back
    assert out == cooperative._withhold_small(problem, eager)
    assert out == cooperative._withhold_rows(problem, Assignment.of_sets(dict(eager.by_member)))
    kept = [m for m, p in out.by_member.items() if p is eager.by_member[m]]
    assert kept and all(out.by_member[m].count < eager.by_member[m].count for m in out.by_member if m not in kept)
    sets = [p for p in out.by_member.values() if p.count]
    codes, bounds, indices, runs = model.gather(sets)
    expected = [s.arrays() for s in sets]
    assert codes.tolist() == [x for c, _, _ in expected for x in c.tolist()]
    assert bounds.tolist() == [x for _, b, _ in expected for x in b.tolist()]
    assert indices.tolist() == [x for _, _, i in expected for x in i.tolist()]
    assert runs.tolist() == [len(c) for c, _, _ in expected]


def test_a_huge_topic_with_few_claims_is_searched_not_tabled():
    """A million partitions and four claims: the rows path looks the valid owners and raw claimants up in sorted
    lists (no table per partition) and agrees with the plain-Python path. a owns t-0 and t-5 (c's claim of t-5 is
    of an older generation), b owns t-7; t-9 and t-3 are nobody's."""
    problem = Problem({"t": 1_000_000}, [
        Member("a", frozenset({"t"}), partitions_of({"t": [0, 5]}), 2),
        Member("b", frozenset({"t"}), partitions_of({"t": [7]}), 2),
        Member("c", frozenset({"t"}), partitions_of({"t": [5]}), 1)], "cooperative")
    eager = Assignment.of({"a": {"t": [0, 7]}, "b": {"t": [5, 9]}, "c": {"t": [3]}})
    out = cooperative._withhold_rows(problem, eager)
    assert out == cooperative._withhold_small(problem, eager)
    assert out.as_lists() == {"a": {"t": [0]}, "b": {"t": [9]}, "c": {"t": [3]}}
