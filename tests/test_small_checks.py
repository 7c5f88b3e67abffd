"""The checker's plain-Python path (`spec.small_checks`, small problems) against its vectorized one: whole reports
(every violation, word for word, and every measure) on hypothesis' problems, with assignor outputs, junk outputs
and cooperative rounds."""

from hypothesis import given, settings
from hypothesis import strategies as st

from assigncheck.impl import registry
from assigncheck.spec import check
from assigncheck.spec.model import Assignment
from assigncheck.spec.promises import Promises
from assigncheck.spec.strategies import problems, sticky_rounds

EVERYTHING = [Promises(balance=b, stickiness="max_retained", per_topic_spread=True, racks=True)
              for b in ("perfect", "per-topic", "optimal", "local")]
ASSIGNORS = ["range", "roundrobin", "sticky-constrained", "sticky", "lag"]


def junk_output(problem, data):
    names = [*problem.member_ids, "stranger"]
    topics = [*problem.topics, "gone"]
    pair = st.tuples(st.sampled_from(topics), st.integers(-2, 9))
    return Assignment.of({m: data.draw(st.lists(pair, max_size=8)) for m in names if data.draw(st.booleans())})


def assert_same_reports(problem, out):
    for promises in EVERYTHING:
        small = check.check_assignment(problem, out, promises, checks=check.SMALL)
        vectorized = check.check_assignment(problem, out, promises, checks=check.VECTORIZED)
        assert small == vectorized, promises


@settings(max_examples=300, deadline=None)
@given(problems(max_members=6, racks=None, min_members=0, min_partitions_per_topic=0, lag=None),
       st.data())
def test_small_and_vectorized_reports_agree(problem, data):
    if data.draw(st.booleans()):
        out = junk_output(problem, data)
    else:
        out = registry.get(data.draw(st.sampled_from(ASSIGNORS))).assign(problem)
    assert_same_reports(problem, out)


@settings(max_examples=150, deadline=None)
@given(sticky_rounds(), st.data())
def test_small_and_vectorized_agree_on_cooperative_rounds(problem, data):
    problem = problem.replace(protocol="cooperative")
    eager = registry.get("sticky").assign(problem.replace(protocol="eager"))
    out = registry.get("cooperative-sticky").assign(problem) if data.draw(st.booleans()) else junk_output(problem, data)
    assert_same_reports(problem, out)
    for p, o, e in ((problem, out, eager), (problem, eager, out)):
        assert check.SMALL.cooperative_withhold(p, o, e) == check.VECTORIZED.cooperative_withhold(p, o, e)
