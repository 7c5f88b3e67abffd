"""The general sticky assignor's plain-Python path for small problems (`impl/sticky_small.py`) against its vectorized
one (`impl/sticky.py`): equal outputs on hypothesis' problems (junk claims, racks, static members, fed-back rounds),
and the compiled kernels' pair table and valid claims against the plain table and the checker's."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from assigncheck.generate.strategies import problems, sticky_rounds
from assigncheck.impl import sticky, sticky_small
from assigncheck.impl.sticky import assign_general_sticky
from assigncheck.impl.sticky_pairs import pair_table
from assigncheck.spec.ownership import valid_claims
from assigncheck.spec.racks import rack_aware
from assigncheck.spec.rounds import next_round

any_problem = st.one_of(problems(racks=None, min_partitions_per_topic=0), sticky_rounds(),
                        problems(racks=True, co_partitioned=True))


@settings(max_examples=400, deadline=None)
@given(any_problem)
def test_general_sticky_small_path_agrees(problem):
    out = sticky_small.assign_small(problem)
    assert out == assign_general_sticky(problem)
    again = next_round(problem, out)  # settled, unless nothing was assigned
    assert sticky_small.assign_small(again) == assign_general_sticky(again)


@settings(max_examples=300, deadline=None)
@given(st.one_of(problems(racks=None, min_partitions_per_topic=0), sticky_rounds()))
def test_one_compiled_call_agrees_with_the_steps(problem):
    """`sticky_kernel.general_rows` (the pair table, the settled check, the banded flow, the deal and the rows in
    one call) against the same steps one by one, on fresh groups, rounds fed back (settled) and churned ones. Its
    nodes are the topics: rack-aware problems go step by step."""
    for p in (problem, next_round(problem, sticky._step_by_step(problem))):
        placed = None if rack_aware(p) else sticky._in_one_call(p)
        assert placed is None or placed == sticky._step_by_step(p)


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
def test_the_pair_tables_claims_are_the_checkers(problem):
    """The pair table's claims (`impl/sticky_kernel.py` `pair_rows`, each valid claim placed on its (node, member)
    pair) are the checker's valid ownership (`spec.ownership.valid_claims`), on junk claims, stale and tied
    generations, racks."""
    pairs, v = pair_table(problem), valid_claims(problem)
    names, offsets = pairs.table.names, pairs.offsets.tolist()
    topic = np.searchsorted(pairs.offsets, pairs.claim_gid, side="right") - 1
    ours = {(pairs.member_ids[pairs.pair_member[p]], names[t], g - offsets[t])
            for p, t, g in zip(pairs.claim_pair.tolist(), topic.tolist(), pairs.claim_gid.tolist())}
    theirs = [(problem.members[m].member_id, v.table.names[t], i) for m, t, i in v.rows()]
    assert len(ours) == len(pairs.claim_gid) and ours == set(theirs) and len(theirs) == len(ours)
