"""The checker's plain-Python path (`spec.small.assignment_check`, small problems) against its vectorized one: whole
reports (every violation, word for word, and every measure) on hypothesis' problems, with assignor outputs, junk outputs
and cooperative rounds."""

from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from assigncheck.generate.strategies import problems, sticky_rounds
from assigncheck.spec import assignment_check, oracle
from assigncheck.spec import rounds as spec_rounds
from assigncheck.spec.model import Assignment, Member, Problem
from assigncheck.spec.promises import Promises
from assigncheck.spec.rounds import next_round
from assigncheck.targets import registry

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
        small = assignment_check.check_assignment(problem, out, promises, checks=assignment_check.SMALL)
        vectorized = assignment_check.check_assignment(problem, out, promises, checks=assignment_check.VECTORIZED)
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
        small, vectorized = assignment_check.SMALL, assignment_check.VECTORIZED
        assert small.cooperative_withhold(p, o, e) == vectorized.cooperative_withhold(p, o, e)


def settled(problem, figure, balance, racks):
    """The oracle's answer `problem` holds for `figure` (None: none yet), read without asking the flow."""
    key = oracle._answer_key(figure, balance, racks)
    return problem.derived(key, lambda _: None) if problem.has_derived(key) else None


@settings(max_examples=300, deadline=None)
@given(st.one_of(problems(racks=None), sticky_rounds(), problems(racks=True)),
       st.sampled_from(["sticky", "sticky-constrained", "roundrobin"]))
def test_a_certified_max_retained_is_the_oracles(problem, name):
    out = registry.get(name).assign(problem)
    if assignment_check.SMALL.check_hard(problem, out) or assignment_check.SMALL.withheld(problem, out):
        return
    for balance in ("optimal", "perfect"):
        for with_racks in (False, True):
            fresh = problem.replace()  # nothing derived yet: an answer it holds after certifying, the output settled
            assignment_check.SMALL.certify_max_retained(fresh, out, balance, with_racks)
            kept = settled(fresh, "max_retained", balance, with_racks)
            if kept is not None:
                assert kept == oracle.max_retained(problem, balance, with_racks)  # `problem`: the flow answers
            mismatched = settled(fresh, "min_mismatches", balance, True)
            if mismatched is not None:
                assert mismatched == oracle.min_mismatches(problem, balance)


def test_the_certificate_settles_a_fed_back_round():
    fresh = Problem({"t0": 5, "t1": 3}, (Member("a", frozenset({"t0", "t1"})), Member("b", frozenset({"t0"})),
                                        Member("c", frozenset({"t1"}))))
    problem = next_round(fresh, registry.get("sticky").assign(fresh))
    out = registry.get("sticky").assign(problem)
    assignment_check.SMALL.certify_max_retained(problem, out, "optimal", True)
    assert settled(problem, "max_retained", "optimal", True) == 8 == oracle.max_retained(problem.replace())


@settings(max_examples=200, deadline=None)
@given(problems(max_members=6, min_partitions_per_topic=0), st.data())
def test_small_and_vectorized_unassigned_agree(problem, data):
    out = junk_output(problem, data)
    small = spec_rounds.unassigned(problem, out)
    with mock.patch.object(spec_rounds, "SMALL_ROWS", -1):
        assert spec_rounds.unassigned(problem, out) == small
