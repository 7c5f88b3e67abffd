"""The built-in assignors' plain-Python paths for small problems against their vectorized ones: equal outputs on
hypothesis' problems (junk claims, racks, static members, fed-back rounds), and equal flows on random networks."""

from dataclasses import replace
from unittest import mock

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from assigncheck.generate.strategies import problems, sticky_rounds
from assigncheck.impl import constrained, constrained_small, cooperative, flow, flow_small, registry, sticky_small
from assigncheck.impl import lag as lag_impl
from assigncheck.impl import range as range_impl
from assigncheck.impl import roundrobin as roundrobin_impl
from assigncheck.impl.constrained import ConstrainedLayout, ConstrainedStickyAssignor
from assigncheck.impl.constrained_kip615 import FourPhaseConstrainedAssignor
from assigncheck.impl.sticky import assign_general_sticky
from assigncheck.impl.sticky_pairs import pair_table
from assigncheck.spec.model import iter_pairs, partitions_of
from assigncheck.spec.ownership import valid_claims
from assigncheck.spec.rounds import next_round
from benchmarks.ortools_flow import ortools_banded

any_problem = st.one_of(problems(racks=None, min_partitions_per_topic=0), sticky_rounds(),
                        problems(racks=True, co_partitioned=True))


@settings(max_examples=300, deadline=None)
@given(st.one_of(problems(equal_subscriptions=True, racks=None, min_partitions_per_topic=0),
                 sticky_rounds(equal_subscriptions=True)))
def test_constrained_small_paths_agree(problem):
    assume(problem.members and problem.subscriptions_equal())  # a change may leave them unequal
    small = constrained_small.SmallLayout.of(problem)
    layout = ConstrainedLayout.of(problem)
    assert constrained_small.place_two_phase(small) == ConstrainedStickyAssignor().place(layout)
    assert constrained_small.place_four_phase(small) == FourPhaseConstrainedAssignor().place(layout)


@settings(max_examples=200, deadline=None)
@given(st.one_of(problems(equal_subscriptions=True, racks=None, min_partitions_per_topic=0),
                 sticky_rounds(equal_subscriptions=True)))
def test_constrained_settled_claims_are_what_both_placements_give(problem):
    """`constrained.settled` (the claims as they are) against both variants' placements, small and vectorized: on
    the round that feeds a variant's output back and the same with junk claims added, where it always applies, and
    on the problem itself."""
    assume(problem.members and problem.subscriptions_equal())
    for assignor in (ConstrainedStickyAssignor(), FourPhaseConstrainedAssignor()):
        again = next_round(problem, assignor.place(ConstrainedLayout.of(problem)))
        assert constrained.settled(again) is not None
        # Junk beside a complete, balanced valid ownership (a topic gone, an index past the end, a repeat) changes
        # nothing either variant keeps.
        holder = next((m for m in again.members if m.owned.count), again.members[0])
        junk = [*iter_pairs(holder.owned), ("gone", 0), (min(holder.subscription, default="gone"), 10**6)]
        junk += list(iter_pairs(holder.owned))[:1]
        noisy = again.replace(members=tuple(replace(m, owned=partitions_of(junk)) if m is holder else m
                                            for m in again.members))
        assert constrained.settled(noisy) is not None
        for q in (problem, again, noisy):
            same = constrained.settled(q)
            if same is not None:
                assert same == assignor.place(ConstrainedLayout.of(q)) == assignor.place_small(
                    constrained_small.SmallLayout.of(q))


@settings(max_examples=400, deadline=None)
@given(any_problem)
def test_general_sticky_small_path_agrees(problem):
    out = sticky_small.assign_small(problem)
    assert out == assign_general_sticky(problem)
    again = next_round(problem, out)  # settled, unless nothing was assigned
    assert sticky_small.assign_small(again) == assign_general_sticky(again)


@settings(max_examples=300, deadline=None)
@given(any_problem)
def test_compiled_pair_rows_make_the_small_pair_table(problem):
    """`impl/sticky_kernel.py`'s pairs and claims (the vectorized table) against the plain-Python table."""
    pairs, small = pair_table(problem), sticky_small.SmallPairs(problem)
    assert pairs.table.names == small.table.names and pairs.node_size.tolist() == list(small.node_size)
    assert (pairs.pair_topic.tolist(), pairs.pair_member.tolist()) == (small.pair_node, small.pair_member)
    assert (pairs.pair_owned.tolist(), pairs.pair_mismatch.tolist()) == (small.pair_owned, small.pair_mismatch)
    assert (pairs.claim_pair.tolist(), pairs.claim_gid.tolist()) == (small.claim_pair, small.claim_gid)


@settings(max_examples=300, deadline=None)
@given(any_problem)
def test_compiled_valid_claims_are_the_checkers(problem):
    """The general path's own reading of valid ownership (`impl/sticky_kernel.py` `valid_claims`, in the pair table)
    against the checker's (`spec.ownership.valid_claims`), on junk claims, stale and tied generations, racks."""
    pairs, v = pair_table(problem), valid_claims(problem)
    names, offsets = pairs.table.names, pairs.offsets.tolist()
    topic = np.searchsorted(pairs.offsets, pairs.claim_gid, side="right") - 1
    ours = {(pairs.member_ids[pairs.pair_member[p]], names[t], g - offsets[t])
            for p, t, g in zip(pairs.claim_pair.tolist(), topic.tolist(), pairs.claim_gid.tolist())}
    theirs = [(problem.members[m].member_id, v.table.names[t], i) for m, t, i in v.rows()]
    assert len(ours) == len(pairs.claim_gid) and ours == set(theirs) and len(theirs) == len(ours)


@st.composite
def networks(draw):
    topics = draw(st.integers(1, 9))
    members = draw(st.integers(1, 6))
    sizes = [draw(st.integers(1, 9)) for _ in range(topics)]
    split = [draw(st.integers(1, 2)) for _ in range(topics)]  # nodes per topic, as rack sets make them
    node_topic = [t for t in range(topics) for _ in range(split[t])]
    node_size = [max(1, sizes[t] // split[t]) for t in node_topic]
    subscribers = [draw(st.frozensets(st.integers(0, members - 1), min_size=1).map(sorted)) for _ in range(topics)]
    pair_node, pair_member = [], []
    for node, t in enumerate(node_topic):
        pair_node += [node] * len(subscribers[t])
        pair_member += subscribers[t]
    owned = [draw(st.integers(0, node_size[n])) for n in pair_node]
    mismatch = [draw(st.booleans()) for _ in pair_node] if draw(st.booleans()) else [False] * len(pair_node)
    return node_size, pair_node, pair_member, owned, members, mismatch, node_topic


@settings(max_examples=400, deadline=None)
@given(networks())
def test_small_flow_picks_the_same_optimum(net):
    sizes, pair_node, pair_member, owned, members, mismatch, node_topic = net
    arr = [np.array(x, dtype=np.int64) for x in (sizes, pair_node, pair_member, owned)]
    expected = flow.solve_counts(*arr, members, np.array(mismatch, dtype=bool))
    keep, new = flow_small._solve_counts(sizes, pair_node, pair_member, owned, members, mismatch, node_topic)
    assert flow_small.solve_counts(sizes, pair_node, pair_member, owned, members, mismatch, node_topic) == (keep, new)
    assert (keep, new) == (expected.keep.tolist(), expected.new.tolist())
    reach = np.bincount(arr[2], weights=arr[0][arr[1]], minlength=members).astype(np.int64)
    assert flow_small.min_max_count(sizes, pair_node, pair_member, node_topic, members) == \
        flow._min_max_count(arr[0], arr[1], arr[2], reach)


@settings(max_examples=400, deadline=None)
@given(networks(), st.booleans())
def test_banded_flow_is_a_least_cost_flow_in_the_bands(net, at_floor):
    """`flow._banded` (our solver, started from the flow that keeps every claim) finds a flow exactly when OR-Tools
    finds one on the same network, and of the same cost: complete, within every capacity and band. At the lower
    bound of B the bands are often infeasible."""
    sizes, pair_node, pair_member, owned, members, mismatch, _ = net
    sizes, pair_node, pair_member, owned = (np.array(x, dtype=np.int64) for x in (sizes, pair_node, pair_member, owned))
    reach = np.bincount(pair_member, weights=sizes[pair_node], minlength=members).astype(np.int64)
    bound = flow.count_floor(sizes, pair_node, reach) if at_floor else flow._min_max_count(sizes, pair_node,
                                                                                              pair_member, reach)
    rack_cost = flow.rack_costs(sizes, np.array(mismatch, dtype=bool))
    got = flow._banded(sizes, pair_node, pair_member, owned, np.array(mismatch, dtype=bool), members, bound)
    least = ortools_banded(sizes, pair_node, pair_member, owned, reach, bound, rack_cost)
    if least is None:
        assert got is None
        return
    assert got is not None
    lo, hi = np.minimum(reach, bound - 1), np.minimum(reach, bound)
    assert (got.keep >= 0).all() and (got.keep <= owned).all()
    assert (got.new >= 0).all() and (got.new <= np.minimum(sizes[pair_node], hi[pair_member])).all()
    assert (np.bincount(pair_node, weights=got.keep + got.new, minlength=len(sizes)) == sizes).all()
    counts = np.bincount(pair_member, weights=got.keep + got.new, minlength=members)
    assert (counts >= lo).all() and (counts <= hi).all()
    assert int((got.keep * rack_cost).sum() + (got.new * (rack_cost + 1)).sum()) == least


@settings(max_examples=300, deadline=None)
@given(st.one_of(sticky_rounds(), problems(racks=None)))
def test_withhold_small_path_agrees(problem):
    problem = problem.with_protocol("cooperative")
    eager = registry.get("sticky").assign(problem)
    assert cooperative._withhold_small(problem, eager) == cooperative._withhold_rows(problem, eager)


@settings(max_examples=300, deadline=None)
@given(problems(racks=None, lag=None, min_partitions_per_topic=0, min_members=0))
def test_range_roundrobin_lag_small_paths_agree(problem):
    for name, module in (("range", range_impl), ("roundrobin", roundrobin_impl), ("lag", lag_impl)):
        small = registry.get(name).assign(problem)
        with mock.patch.object(module, "is_small", lambda p: False):
            assert registry.get(name).assign(problem) == small, name
