"""Small-scope exhaustive checking: the enumeration is complete up to symmetry, a correct assignor passes,
and a promise it does not keep is caught against Z3's optimum."""

from itertools import combinations_with_replacement

from assigncheck.spec.promises import Promises
from assigncheck.targets import registry
from assigncheck.verify.exhaustive import _profiles, exhaust, problems
from assigncheck.verify.prove import Bound, topic_vectors

TINY = Bound(members=2, partitions=2, topics=2, generations=1)


def test_enumeration_counts_and_symmetry():
    found = list(problems(TINY))
    naive = sum(
        len(list(combinations_with_replacement(_profiles(v, 1), n))) for n in (1, 2) for v in topic_vectors(2, 2)
    )
    assert 0 < len(found) < naive  # topic renaming removes some
    keys = {str((dict(p.topics), [(m.subscription, dict(m.owned), m.generation) for m in p.members])) for p in found}
    assert len(keys) == len(found)
    # topics (1, 1), one member: a problem and its topic mirror image are never both present
    swap = {"t0": "t1", "t1": "t0"}
    singles = {
        (frozenset(m.subscription), frozenset((t, int(i)) for t, a in m.owned.items() for i in a), m.generation)
        for p in found if dict(p.topics) == {"t0": 1, "t1": 1} and len(p.members) == 1 for m in p.members
    }
    for subs, owned, gen in singles:
        mirror = (frozenset(swap[t] for t in subs), frozenset((swap[t], i) for t, i in owned), gen)
        assert mirror == (subs, owned, gen) or mirror not in singles
    assert len(singles) < len(_profiles((1, 1), 1))


def test_general_sticky_passes_exhaustively():
    result = exhaust(registry.get("sticky"), Bound(members=2, partitions=2, topics=1, generations=1))
    assert result.complete and result.checked > 20
    assert result.findings == []


def test_unkept_promise_found_against_z3_optimum():
    promises = Promises.parse("balance=perfect,stickiness=max_retained,exact=roundrobin")
    result = exhaust(registry.get("roundrobin"), Bound(members=2, partitions=2, topics=1, generations=1),
                     promises=promises, max_findings=2)
    assert result.findings
    assert {v.invariant for _, v in result.findings} == {"stickiness.max_retained"}
    assert any("Z3 max_retained" in v.message for _, v in result.findings)
