"""H1-H6 (docs/SPEC.md §3): each fires on a hand-made violating output, names the right members and
partitions, and stays quiet on a valid one; H2-H6 agree with a literal reading on random small cases."""

from hypothesis import given, settings
from hypothesis import strategies as st

from assigncheck.spec.invariants import (
    CAP,
    HARD,
    check_hard,
    h1_members,
    h2_existence,
    h3_subscription,
    h4_exclusivity,
    h5_completeness,
    h6_cooperative_safety,
)
from assigncheck.spec.model import Assignment, Member, Problem, iter_pairs


def problem(topics, members, protocol="eager"):
    """members: (id, subscription, owned {topic: [..]}, generation)."""
    return Problem(topics, tuple(Member(m, frozenset(s), o, g) for m, s, o, g in members), protocol)


GROUP = problem({"t0": 3, "t1": 2}, [("a", {"t0", "t1"}, {}, -1), ("b", {"t0"}, {}, -1)])
VALID = Assignment.of({"a": {"t0": [0, 1], "t1": [0, 1]}, "b": {"t0": [2]}})


def test_a_valid_output_meets_every_hard_invariant():
    assert [check.__name__ for check in HARD] == [
        "h1_members", "h2_existence", "h3_subscription", "h4_exclusivity", "h5_completeness",
        "h6_cooperative_safety",
    ]
    assert check_hard(GROUP, VALID) == []


def test_h1_names_missing_and_unknown_members():
    out = Assignment.of({"a": {"t0": [0, 1, 2], "t1": [0, 1]}, "ghost": {}})
    missing, unknown = h1_members(GROUP, out)
    assert (missing.invariant, missing.members) == ("H1", ("b",))
    assert "missing" in missing.message
    assert unknown.members == ("ghost",)
    # a member that gets nothing is fine, as long as it is listed
    assert h1_members(GROUP, Assignment.of({"a": {"t0": [0, 1, 2], "t1": [0, 1]}, "b": {}})) == []


def test_h2_names_partitions_that_do_not_exist():
    out = Assignment.of({"a": {"t0": [0, 1, 3], "t1": [0, 1], "nope": [0]}, "b": {"t0": [2, -1]}})
    [v] = h2_existence(GROUP, out)
    assert v.invariant == "H2"
    assert set(v.partitions) == {("t0", 3), ("nope", 0), ("t0", -1)}
    assert set(v.members) == {"a", "b"}
    assert v.message.startswith("3 assigned partition(s) do not exist")
    assert h2_existence(GROUP, VALID) == []


def test_h3_names_partitions_of_unsubscribed_topics():
    out = Assignment.of({"a": {"t0": [0, 1]}, "b": {"t0": [2], "t1": [0, 1]}})
    [v] = h3_subscription(GROUP, out)
    assert (v.invariant, v.members, v.partitions) == ("H3", ("b",), (("t1", 0), ("t1", 1)))
    assert h3_subscription(GROUP, VALID) == []


def test_h4_names_partitions_given_twice_and_their_holders():
    out = Assignment.of({"a": {"t0": [0, 1], "t1": [0, 1]}, "b": {"t0": [1, 2]}})
    [v] = h4_exclusivity(GROUP, out)
    assert (v.invariant, v.partitions, set(v.members)) == ("H4", (("t0", 1),), {"a", "b"})
    # one member listing a partition twice is a double assignment as well
    twice = Assignment({"a": {"t0": [0, 1], "t1": [0, 1, 1]}, "b": {"t0": [2]}})
    [v] = h4_exclusivity(GROUP, twice)
    assert (v.partitions, v.members) == ((("t1", 1),), ("a",))


def test_h5_eager_wants_every_subscribed_partition():
    out = Assignment.of({"a": {"t0": [0], "t1": [1]}, "b": {"t0": [2]}})
    [v] = h5_completeness(GROUP, out)
    assert (v.invariant, v.partitions) == ("H5", (("t0", 1), ("t1", 0)))
    # a topic nobody subscribes to need not be assigned
    lonely = problem({"t0": 1, "t9": 4}, [("a", {"t0"}, {}, -1)])
    assert h5_completeness(lonely, Assignment.of({"a": {"t0": [0]}})) == []


def test_h5_cooperative_may_withhold_only_what_someone_still_claims():
    coop = problem({"t0": 4}, [("a", {"t0"}, {"t0": [0, 1, 2]}, 3), ("b", {"t0"}, {}, -1)], "cooperative")
    withheld_claimed = Assignment.of({"a": {"t0": [0, 1]}, "b": {"t0": [3]}})  # t0-2 is still a's
    assert h5_completeness(coop, withheld_claimed) == []
    withheld_free = Assignment.of({"a": {"t0": [0, 1]}, "b": {"t0": [2]}})  # t0-3: nobody claims it
    [v] = h5_completeness(coop, withheld_free)
    assert v.partitions == (("t0", 3),)
    assert h5_completeness(coop.replace(protocol="eager"), withheld_claimed) != []


def test_h6_fires_when_a_claimed_partition_is_handed_to_someone_else():
    # b claims t0-1 at an old generation (so it is a's by valid_owned), yet it still consumes it.
    coop = problem({"t0": 4}, [("a", {"t0"}, {"t0": [0, 1]}, 5), ("b", {"t0"}, {"t0": [1, 2]}, 2),
                               ("c", {"t0"}, {}, -1)], "cooperative")
    bad = Assignment.of({"a": {"t0": [0, 1]}, "b": {"t0": [3]}, "c": {"t0": [2]}})
    [v] = h6_cooperative_safety(coop, bad)
    assert (v.invariant, v.partitions) == ("H6", (("t0", 2),))
    assert v.members == ("c", "b")
    assert "t0-2 given to c while b still claim(s) it" in v.message
    # a partition claimed by two members handed to one of them is not "new" to it
    ok = Assignment.of({"a": {"t0": [0]}, "b": {"t0": [1, 2]}, "c": {"t0": [3]}})
    assert h6_cooperative_safety(coop, ok) == []
    # the eager protocol revokes everything first: H6 does not apply
    assert h6_cooperative_safety(coop.replace(protocol="eager"), bad) == []


def test_offenders_are_capped_but_counted():
    big = problem({"t0": 100}, [("a", {"t0"}, {}, -1)])
    [v] = h2_existence(big, Assignment.of({"a": {"t0": list(range(100, 150))}}))
    assert len(v.partitions) == CAP
    assert v.message.startswith("50 assigned partition(s)") and "and 30 more" in v.message


# ---- the same invariants read literally, on random small cases -------------------------------------------


def literal(problem, out):
    """Offending partitions per invariant, straight from docs/SPEC.md §3, one partition at a time."""
    P = {(t, i) for t, n in problem.topics.items() for i in range(n)}
    subs = {m.member_id: m.subscription for m in problem.members}
    claims = {m.member_id: set(iter_pairs(m.owned)) for m in problem.members}
    listed = [(m, tp) for m in out.by_member for tp in out.pairs(m)]
    wanted = {(t, i) for (t, i) in P if any(t in s for s in subs.values())}
    got = [tp for _, tp in listed]
    missing = wanted - set(got)
    if problem.protocol == "cooperative":
        missing = {tp for tp in missing if not any(tp in c for c in claims.values())}
    h6 = set()
    if problem.protocol == "cooperative":
        h6 = {tp for m, tp in listed if tp in P and tp not in claims.get(m, set())
              and any(tp in c for other, c in claims.items() if other != m)}
    return {
        "H2": {tp for _, tp in listed if tp not in P},
        "H3": {tp for m, tp in listed if m in subs and tp[0] not in subs[m]},
        "H4": {tp for tp in P if got.count(tp) > 1},
        "H5": missing,
        "H6": h6,
    }


def kafka_h6(problem, out):
    """Kafka's CooperativeStickyAssignorTest: (assigned - owned) ∩ (owned - assigned) over all members."""
    added, revoked = set(), set()
    for m in problem.members:
        owned, assigned = set(iter_pairs(m.owned)), set(out.pairs(m.member_id))
        added |= assigned - owned
        revoked |= owned - assigned
    return added & revoked


@st.composite
def cases(draw, exclusive=False):
    topics = {f"t{k}": draw(st.integers(0, 3)) for k in range(draw(st.integers(1, 3)))}
    names = sorted(topics) + ["ghost"]
    tp = st.tuples(st.sampled_from(names), st.integers(-1, 3))
    members = []
    for k in range(draw(st.integers(1, 3))):
        sub = draw(st.sets(st.sampled_from(names)))
        owned = draw(st.lists(tp, max_size=4))
        members.append(Member(f"m{k}", frozenset(sub), owned, draw(st.integers(-1, 2))))
    prob = Problem(topics, tuple(members), draw(st.sampled_from(["eager", "cooperative"])))
    ids = [m.member_id for m in members] + ([] if exclusive else ["zz"])
    if exclusive:  # each existing partition to at most one member
        out = {m: [] for m in ids}
        for t, n in topics.items():
            for i in range(n):
                who = draw(st.sampled_from(ids + [None]))
                if who:
                    out[who].append((t, i))
    else:
        out = {m: draw(st.lists(tp, max_size=5)) for m in ids if draw(st.booleans())}
    return prob, Assignment.of(out)


@settings(max_examples=200, deadline=None)
@given(cases())
def test_h2_to_h6_agree_with_the_literal_reading(case):
    prob, out = case
    expected = literal(prob, out)
    for check in HARD[1:]:
        found = check(prob, out)
        name = check.__name__[:2].upper()
        assert {tp for v in found for tp in v.partitions} == expected[name], name
        assert all(v.invariant == name for v in found)


@settings(max_examples=200, deadline=None)
@given(cases(exclusive=True))
def test_h6_equals_kafkas_formula_when_nothing_is_assigned_twice(case):
    prob, out = case
    prob = prob.replace(protocol="cooperative")
    found = {tp for v in h6_cooperative_safety(prob, out) for tp in v.partitions}
    kafka = {tp for tp in kafka_h6(prob, out) if tp[0] in prob.topics and 0 <= tp[1] < prob.topics[tp[0]]}
    assert found == kafka
