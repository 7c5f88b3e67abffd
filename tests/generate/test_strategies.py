"""generate.strategies: well-formed output, every promised shape reached, shrinking toward simple."""

import numpy as np
import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis.errors import InvalidArgument

from assigncheck.formats.documents import problem_from_json, problem_to_json
from assigncheck.generate import strategies as S
from assigncheck.generate.scenario import STEP_KINDS, scenario_from_json, scenario_to_json, validate_scenario
from assigncheck.spec.model import count_of, iter_pairs
from assigncheck.spec.ownership import valid_owned

QUICK = settings(max_examples=60, database=None, deadline=None, suppress_health_check=list(HealthCheck))


def collect(strategy, n, measure):
    """Everything `measure` reports over `n` derandomized examples (deterministic, so never flaky)."""
    seen = set()

    @settings(max_examples=n, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(x):
        seen.update(measure(x))

    run()
    return seen


def roundtrips(problem):
    doc = problem_to_json(problem)
    return problem_to_json(problem_from_json(doc)) == doc


@QUICK
@given(S.problems(racks=None, lag=None))
def test_problems_roundtrip_through_json(p):
    assert roundtrips(p)
    assert len(p.members) <= 8 and len(p.topics) <= 4
    assert all(n <= 8 for n in p.topics.values())


def test_problems_reach_every_shape():
    seen = collect(S.problems(racks=None, lag=None), 200, S.features)
    expected = set(S.JUNK_KINDS) | {
        "unknown_generation", "mixed_generations", "equal_subscriptions", "unequal_subscriptions",
        "absent_subscribed_topic", "static", "member_racks", "racks", "cooperative", "lag", "lag_no_commit",
        "lag_committed_past_end", "lag_committed_before_begin", "earliest", "latest",
    }
    assert expected <= seen, expected - seen


@QUICK
@given(S.problems(claims="valid", equal_subscriptions=True, protocol="cooperative", generations=False))
def test_valid_claims_are_all_valid_and_options_hold(p):
    assert not (S.features(p) & set(S.JUNK_KINDS))
    valid = valid_owned(p)
    for m in p.members:  # nothing dropped by valid_owned: every raw claim counts
        assert sorted(iter_pairs(m.owned)) == sorted(iter_pairs(valid[m.member_id]))
        assert m.generation == -1
    assert p.subscriptions_equal() and p.protocol == "cooperative"


@QUICK
@given(S.problems(min_members=2, equal_subscriptions=False, claims="none", static_members=False))
def test_unequal_means_unequal_and_none_means_no_claims(p):
    assert not p.subscriptions_equal()
    assert all(count_of(m.owned) == 0 and m.instance_id is None for m in p.members)


@QUICK
@given(S.problems(lag=True))
def test_lag_offsets_are_consistent(p):
    for topic, n in p.topics.items():
        o = p.lag.offsets[topic]
        assert len(o.begin) == len(o.end) == len(o.committed) == n
        assert (o.begin <= o.end).all() and (o.committed >= -1).all()


def test_problems_shrink_toward_the_simplest():
    p = find(S.problems(racks=None, lag=None), lambda p: len(p.members) >= 3,
             settings=settings(database=None, max_examples=500, derandomize=True))
    assert p.member_ids == ("c0", "c1", "c2")
    assert len(p.topics) == 1 and p.subscriptions_equal() and p.protocol == "eager"
    assert all(count_of(m.owned) == 0 and m.generation == -1 and m.instance_id is None for m in p.members)
    assert p.partition_racks is None and p.lag is None


def test_bad_arguments_raise_invalid_argument():
    with pytest.raises(InvalidArgument):
        S.problems(claims="bogus")
    with pytest.raises(InvalidArgument):
        S.problems(protocol="lazy")
    with pytest.raises(InvalidArgument):
        S.problems(min_members=5, max_members=2)
    with pytest.raises(InvalidArgument):
        S.streams_problems(max_capacity=0)


with_previous = S.problems(claims="none", absent_topics=False).flatmap(
    lambda p: S.previous_assignments(p, balanced=True).map(lambda a: (p, a)))


@QUICK
@given(with_previous)
def test_balanced_previous_assignment_covers_every_subscribed_partition(pa):
    p, a = pa
    pairs = [tp for m in p.member_ids for tp in a.pairs(m)]
    assert len(pairs) == len(set(pairs))  # one owner per partition
    assert len(pairs) == sum(p.topics[t] for t in p.subscribed_topics())
    if p.subscriptions_equal():
        counts = list(a.counts().values())
        assert max(counts) - min(counts) <= 1


@QUICK
@given(S.sticky_rounds(equal_subscriptions=True, kinds=("join", "leave")))
def test_sticky_rounds_feed_back_a_balanced_assignment_then_change_membership(p):
    assert roundtrips(p)
    fed = [m for m in p.members if m.generation == 2]
    assert len(fed) >= len(p.members) - 1  # at most the joiner is new
    counts = [count_of(m.owned) for m in fed]
    assert max(counts) - min(counts) <= 1
    claimed = [tp for m in fed for tp in iter_pairs(m.owned)]
    assert len(claimed) == len(set(claimed))


def test_sticky_rounds_reach_every_step_kind():
    def kinds(p):  # recognise the change from the problem alone
        out = set()
        gens = {m.generation for m in p.members}
        if any(m.generation == -1 and count_of(m.owned) == 0 for m in p.members):
            out.add("join")
        if 1 in gens:
            out.add("rejoin_stale")
            if "double_claim_other_generation" in S.features(p):
                out.add("clash")
        return out

    assert collect(S.sticky_rounds(), 150, kinds) >= {"join", "rejoin_stale", "clash"}


@QUICK
@given(S.scenarios())
def test_scenarios_are_valid_and_roundtrip(sc):
    validate_scenario(sc)
    assert 1 <= len(sc.steps) <= 4
    doc = scenario_to_json(sc)
    assert scenario_to_json(scenario_from_json(doc)) == doc


def test_scenarios_reach_every_step_kind():
    seen = collect(S.scenarios(), 150, lambda sc: {type(s).__name__ for s in sc.steps})
    assert seen == {"Join", "Leave", "Subscribe", "AddPartitions", "DeleteTopic", "RejoinStale"}
    assert len(STEP_KINDS) == len(seen)


@QUICK
@given(S.streams_problems())
def test_streams_problems_roundtrip(p):
    assert roundtrips(p)
    assert all(1 <= c.capacity <= 4 for c in p.clients)


def test_streams_problems_reach_every_junk_kind_and_valid_has_none():
    assert set(S.STREAMS_JUNK_KINDS) | {"standby", "capacity_over_1", "standby_replicas", "stateless"} <= collect(
        S.streams_problems(), 150, S.streams_features)
    assert not collect(S.streams_problems(claims="valid"), 100, S.streams_features) & set(S.STREAMS_JUNK_KINDS)


def test_features_are_recognised_in_a_hand_written_problem():
    doc = {
        "format": 1, "topics": {"t0": 2, "t1": 1},
        "members": [
            {"id": "a", "subscription": ["t0"], "owned": {"t0": [0, 0, 5, -1], "t1": [0], "zz": [0]}, "generation": 2},
            {"id": "b", "subscription": ["t0"], "owned": {"t0": [0]}, "generation": 2},
        ],
    }
    got = S.features(problem_from_json(doc))
    assert set(S.JUNK_KINDS) - {"double_claim_other_generation"} <= got
    assert "double_claim_other_generation" not in got and "unknown_generation" not in got
    assert np.array_equal(problem_from_json(doc).members[0].owned["t0"], [0, 0, 5, -1])
