"""Balance promises and measures (docs/SPEC.md §4) on hand-made outputs, and against literal readings."""

from hypothesis import given, settings
from hypothesis import strategies as st

from assigncheck.spec.balance import BALANCE_CHECKS, local, optimal, per_topic, perfect, spread, sum_squares
from assigncheck.spec.model import Assignment, Member, Problem
from assigncheck.spec.oracle import optimal_sum_squares
from assigncheck.spec.promises import BALANCES


def group(topics, subs):
    return Problem(topics, tuple(Member(m, frozenset(s)) for m, s in subs.items()))


EQUAL = group({"t0": 4, "t1": 2}, {"a": {"t0", "t1"}, "b": {"t0", "t1"}, "c": {"t0", "t1"}})


def test_measures():
    out = Assignment.of({"a": {"t0": [0, 1, 2], "t1": [0]}, "b": {"t0": [3]}, "c": {"t1": [1]}})
    assert spread(EQUAL, out) == 3
    assert sum_squares(EQUAL, out) == 16 + 1 + 1
    assert spread(group({}, {}), Assignment.of({})) == 0


def test_perfect_fires_on_a_gap_of_two_and_names_both_ends():
    out = Assignment.of({"a": {"t0": [0, 1, 2], "t1": [0]}, "b": {"t0": [3]}, "c": {"t1": [1]}})
    [v] = perfect(EQUAL, out)
    assert v.invariant == "balance.perfect"
    assert v.members == ("a", "b", "c")
    assert "from 1 (b, c) to 4 (a)" in v.message
    fine = Assignment.of({"a": {"t0": [0, 1]}, "b": {"t0": [2, 3]}, "c": {"t1": [0, 1]}})
    assert perfect(EQUAL, fine) == []


def test_perfect_is_not_enforced_on_unequal_subscriptions():
    unequal = group({"t0": 4, "t1": 1}, {"a": {"t0"}, "b": {"t1"}})
    assert perfect(unequal, Assignment.of({"a": {"t0": [0, 1, 2, 3]}, "b": {"t1": [0]}})) == []


def test_per_topic_fires_per_topic_even_when_totals_are_perfect():
    out = Assignment.of({"a": {"t0": [0, 1]}, "b": {"t0": [2, 3]}, "c": {"t1": [0, 1]}})
    [v] = per_topic(EQUAL, out)
    assert v.invariant == "balance.per-topic"
    assert "t0: 0 (c) to 2 (a, b)" in v.message and "t1: 0 (a, b) to 2 (c)" in v.message
    assert set(v.members) == {"a", "b", "c"}
    ranged = Assignment.of({"a": {"t0": [0, 1], "t1": [0]}, "b": {"t0": [2], "t1": [1]}, "c": {"t0": [3]}})
    assert per_topic(EQUAL, ranged) == []


def test_local_fires_on_a_single_improving_move():
    prob = group({"x": 4}, {"a": {"x"}, "b": {"x"}})
    [v] = local(prob, Assignment.of({"a": {"x": [0, 1, 2]}, "b": {"x": [3]}}))
    assert v.invariant == "balance.local"
    assert v.members == ("a", "b")
    assert v.partitions == (("x", 0), ("x", 1), ("x", 2))
    assert local(prob, Assignment.of({"a": {"x": [0, 1]}, "b": {"x": [2, 3]}})) == []


def test_a_chain_is_locally_balanced_but_not_optimal():
    # a -> b -> c: a cannot give to c (c does not read x), b could pass y on to c and take x from a.
    prob = group({"x": 4, "y": 2}, {"a": {"x"}, "b": {"x", "y"}, "c": {"y"}})
    chain = Assignment.of({"a": {"x": [0, 1, 2]}, "b": {"x": [3], "y": [0]}, "c": {"y": [1]}})
    assert local(prob, chain) == []
    assert optimal_sum_squares(prob) == 12
    [v] = optimal(prob, chain)
    assert v.invariant == "balance.optimal"
    assert "is 14, the optimum is 12 (gap 2)" in v.message and v.members == ("a",)
    best = Assignment.of({"a": {"x": [0, 1]}, "b": {"x": [2, 3]}, "c": {"y": [0, 1]}})
    assert optimal(prob, best) == [] and local(prob, best) == []


def test_every_balance_promise_has_a_check():
    assert sorted(BALANCE_CHECKS) == ["local", "optimal", "per-topic", "perfect", "uniform"]
    assert sorted(BALANCE_CHECKS) == sorted(set(BALANCES) - {"none"})


# ---- against literal readings of docs/SPEC.md §4 on random small outputs ----------------------------------------

@st.composite
def outputs(draw):
    topics = {f"t{k}": draw(st.integers(0, 4)) for k in range(draw(st.integers(1, 3)))}
    subs = {f"m{k}": draw(st.sets(st.sampled_from(sorted(topics)), min_size=1)) for k in range(draw(st.integers(1, 4)))}
    prob = group(topics, subs)
    out = {m: [] for m in subs}
    for t, n in topics.items():
        for i in range(n):
            who = draw(st.sampled_from(sorted(subs)))
            out[who].append((t, i))
    return prob, Assignment.of(out)


@settings(max_examples=200, deadline=None)
@given(outputs())
def test_local_perfect_per_topic_match_their_definitions(case):
    prob, out = case
    size = {m.member_id: out.count(m.member_id) for m in prob.members}
    flagged = {(t, i) for m in prob.members for t, i in out.pairs(m.member_id)
               if any(size[m.member_id] > size[b.member_id] + 1 for b in prob.subscribers(t))}
    assert {tp for v in local(prob, out) for tp in v.partitions} == flagged
    assert bool(perfect(prob, out)) == (prob.subscriptions_equal() and max(size.values()) - min(size.values()) > 1)
    skewed = [t for t in prob.subscribed_topics()
              if (lambda c: max(c) - min(c) > 1)([len(out.get(b.member_id).get(t, [])) for b in prob.subscribers(t)])]
    assert bool(per_topic(prob, out)) == bool(skewed)
    assert all(f"{t}:" in per_topic(prob, out)[0].message for t in skewed)
