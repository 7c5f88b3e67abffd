"""The general sticky assignor's flow in plain Python (`impl/flow_small.py`) against the compiled one (`impl/flow.py`),
and the compiled banded flow against OR-Tools, on random networks."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from assigncheck.impl import flow, flow_small
from benchmarks.ortools_flow import ortools_banded


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
        flow.min_max_count(arr[0], arr[1], arr[2], reach)


@settings(max_examples=400, deadline=None)
@given(networks(), st.booleans())
def test_banded_flow_is_a_least_cost_flow_in_the_bands(net, at_floor):
    """`flow.banded` (our solver, started from the flow that keeps every claim) finds a flow exactly when OR-Tools
    finds one on the same network, and of the same cost: complete, within every capacity and band. At the lower
    bound of B the bands are often infeasible."""
    sizes, pair_node, pair_member, owned, members, mismatch, _ = net
    sizes, pair_node, pair_member, owned = (np.array(x, dtype=np.int64) for x in (sizes, pair_node, pair_member, owned))
    reach = np.bincount(pair_member, weights=sizes[pair_node], minlength=members).astype(np.int64)
    bound = flow.count_floor(sizes, pair_node, reach) if at_floor else flow.min_max_count(sizes, pair_node,
                                                                                              pair_member, reach)
    rack_cost = flow.rack_costs(sizes, np.array(mismatch, dtype=bool))
    got = flow.banded(sizes, pair_node, pair_member, owned, np.array(mismatch, dtype=bool), members, bound)
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
