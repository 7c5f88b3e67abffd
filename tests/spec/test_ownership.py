"""valid_owned against a literal, slow reading of docs/SPEC.md §2."""


import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from assigncheck.spec import model, ownership
from assigncheck.spec.model import Assignment, Member, PartitionSet, Problem, TopicTable, iter_pairs, partitions_of
from assigncheck.spec.ownership import valid_owned
from assigncheck.spec.rounds import next_round


def literal_valid_owned(problem):
    claims = {}
    for m in problem.members:
        mine = set()
        for topic, index in iter_pairs(m.owned):
            if topic in problem.topics and 0 <= index < problem.topics[topic] and topic in m.subscription:
                mine.add((topic, index))
        claims[m.member_id] = mine
    gen = {m.member_id: m.generation for m in problem.members}
    result = {m: set() for m in claims}
    for tp in set().union(*claims.values()):
        claimants = [m for m in claims if tp in claims[m]]
        top = max(gen[m] for m in claimants)
        best = [m for m in claimants if gen[m] == top]
        if len(best) == 1:
            result[best[0]].add(tp)
    return result


def as_sets(vo):
    return {m: set(iter_pairs(p)) for m, p in vo.items()}


topics = st.dictionaries(st.sampled_from(["a", "b", "c"]), st.integers(0, 4), min_size=1)


@st.composite
def problems(draw):
    ts = draw(topics)
    names = ["a", "b", "c", "gone"]
    members = []
    for i in range(draw(st.integers(1, 5))):
        sub = draw(st.frozensets(st.sampled_from(names)))
        owned = draw(st.lists(st.tuples(st.sampled_from(names), st.integers(-1, 5)), max_size=8))
        members.append(Member(f"m{i}", sub, owned, draw(st.integers(-1, 2))))
    return Problem(ts, members)


@settings(max_examples=400, deadline=None)
@given(problems())
def test_valid_owned_matches_the_literal_reading(problem):
    assert as_sets(valid_owned(problem)) == literal_valid_owned(problem)


FORM_NAMES = ("a", "b", "c", "gone")  # "gone": claimed, absent from the metadata
HUGE = 2**31 - 1  # a topic this big makes the rules sort the claims instead of laying out a flag per partition


@st.composite
def claimed_groups(draw):
    """A group whose claimed sets take every form a set can: plain tuples, cut from one shared group's arrays, or
    arrays of their own; some topics small, some huge; subscriptions distinct or all one."""
    topics = draw(st.dictionaries(st.sampled_from(FORM_NAMES[:3]), st.sampled_from([0, 1, 3, 6, HUGE]), min_size=1))
    count = draw(st.integers(1, 6))
    one = draw(st.none() | st.frozensets(st.sampled_from(FORM_NAMES)))
    claims = [draw(st.lists(st.tuples(st.integers(0, 3), st.integers(-1, 7)), max_size=10)) for _ in range(count)]
    forms = draw(st.lists(st.sampled_from(["lists", "shared", "arrays"]), min_size=count, max_size=count))
    table = TopicTable.of(FORM_NAMES)
    rows = sorted((m, t, i) for m in range(count) if forms[m] == "shared" for t, i in claims[m])
    shared = model._sets_vectorized(count, np.array([r[0] for r in rows], dtype=np.int64).reshape(-1), table,
                                    np.array([r[1] for r in rows], dtype=np.int64).reshape(-1),
                                    np.array([r[2] for r in rows], dtype=np.int32).reshape(-1))
    members = []
    for m in range(count):
        if forms[m] == "shared":
            owned = shared[m]
        elif forms[m] == "arrays" and claims[m]:
            topic, index = zip(*claims[m], strict=True)
            owned = PartitionSet.from_rows(table, np.array(topic), np.array(index))
        else:
            owned = partitions_of([(FORM_NAMES[t], i) for t, i in claims[m]])
        subscription = one if one is not None else draw(st.frozensets(st.sampled_from(FORM_NAMES)))
        members.append(Member(f"m{m}", subscription, owned, draw(st.integers(-1, 2))))
    return Problem(topics, members)


@settings(max_examples=250, deadline=None)
@given(st.one_of(problems(), claimed_groups()))
def test_small_and_vectorized_paths_agree(problem):
    """The plain rules against the compiled pass (`spec.native.valid_claim_rows`), on claimed sets of every form."""
    small, vectorized = ownership._valid_claims_small(problem), ownership._valid_claims_vectorized(problem)
    assert small.table.names == vectorized.table.names
    for name in ("member", "topic", "index"):
        a, b = getattr(small, name), getattr(vectorized, name)
        assert a.tolist() == b.tolist() and a.dtype == b.dtype and not a.flags.writeable, name


def test_the_four_rules_by_hand():
    p = Problem(
        {"t": 4, "u": 1},
        [
            Member("a", {"t"}, {"t": [0, 0, 1, 9, -1], "u": [0], "x": [1]}, 2),
            Member("b", {"t", "u"}, {"t": [1, 2], "u": [0]}, 2),
            Member("c", {"t"}, {"t": [2, 3]}, 1),
            Member("d", {"t"}, {"t": [3]}, -1),
        ],
    )
    assert as_sets(valid_owned(p)) == {
        "a": {("t", 0)},  # 0 listed twice counts once; 9, -1 out of range; u unsubscribed; x unknown
        "b": {("t", 2), ("u", 0)},  # t1 tied with a at generation 2: nobody owns it
        "c": {("t", 3)},  # beats d's unknown generation
        "d": set(),
    }


def literal_raw_claimants(problem):
    """Per existing partition that members list, by global id (topics by name, then index): those members, any
    subscription and generation."""
    claimants = {}
    for k, m in enumerate(problem.members):
        for topic, index in iter_pairs(m.owned):
            if topic in problem.topics and 0 <= index < problem.topics[topic]:
                claimants.setdefault((topic, index), set()).add(k)
    base = dict(zip(sorted(problem.topics), np.cumsum([0] + [problem.topics[t] for t in sorted(problem.topics)])))
    return sorted((int(base[t]) + i, who) for (t, i), who in claimants.items())


@settings(max_examples=150, deadline=None)
@given(st.one_of(problems(), claimed_groups()))
def test_raw_claimants_are_the_literal_reading(problem):
    """`raw_claimants` (compiled, `spec.native.raw_claimants`) against the claims read one by one: per claimed
    partition the one member (its repeats, unsubscribed topics and any generation included) or several, on sets of
    every form and topics of 2^31 - 1 partitions (the sorted path)."""
    expected = [(g, min(who) if len(who) == 1 else ownership.SEVERAL) for g, who in literal_raw_claimants(problem)]
    claimed, claimant = ownership.raw_claimants(problem)
    assert list(zip(claimed.tolist(), claimant.tolist())) == expected
    assert not claimed.flags.writeable and not claimant.flags.writeable
    cooperative = problem.replace(protocol="cooperative")  # valid ownership's pass reads them too, for a next round
    ownership._valid_claims_vectorized(cooperative)
    assert cooperative.has_derived("raw_claimants")
    claimed, claimant = ownership.raw_claimants(cooperative)
    assert list(zip(claimed.tolist(), claimant.tolist())) == expected


def test_raw_claimants_by_hand():
    problem = Problem({"t": 3, "u": 1}, [
        Member("a", frozenset({"t"}), {"t": [0, 0, 1, 7], "gone": [0]}, 1),
        Member("b", frozenset(), {"t": [1], "u": [0]}, 0)])
    claimed, claimant = ownership.raw_claimants(problem)
    assert (claimed.tolist(), claimant.tolist()) == ([0, 1, 3], [0, ownership.SEVERAL, 1])


@settings(max_examples=400, deadline=None)
@given(st.one_of(problems(), problems().map(lambda p: next_round(p, Assignment(valid_owned(p))))))
def test_valid_owned_is_the_claimed_sets_exactly_when_every_claim_is_valid(problem):
    """The claimed sets themselves (the very objects) when every raw claim is valid and each set sorted; else sets
    of their own, equal to the literal reading either way. Half the problems are claims fed back from their own
    valid ownership, where every claim is valid."""
    literal = literal_valid_owned(problem)
    all_valid = all(sorted(iter_pairs(m.owned)) == sorted(literal[m.member_id]) for m in problem.members)
    assert ownership.all_claims_valid(problem) == all_valid
    out = valid_owned(problem)
    assert as_sets(out) == literal
    same = [out[m.member_id] is m.owned for m in problem.members]
    if all_valid and all(m.owned.is_sorted for m in problem.members):
        assert all(same)
    else:
        assert not any(same[k] for k, m in enumerate(problem.members) if m.owned.count)
