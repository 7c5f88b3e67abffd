"""Both constrained variants' plain-Python placement (`impl/constrained_small.py`) against their large-group one
(compiled for the two-phase variant, `impl.native.place_two_phase`; arrays for the four-phase one,
`impl/constrained_kip615.py`), on hypothesis' problems and fed-back rounds with junk claims."""

from dataclasses import replace

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from assigncheck.generate.strategies import problems, sticky_rounds
from assigncheck.impl import constrained, constrained_small
from assigncheck.impl.constrained import ConstrainedStickyAssignor
from assigncheck.impl.constrained_kip615 import FourPhaseConstrainedAssignor
from assigncheck.spec.model import iter_pairs, partitions_of
from assigncheck.spec.rounds import next_round


@settings(max_examples=300, deadline=None)
@given(st.one_of(problems(equal_subscriptions=True, racks=None, min_partitions_per_topic=0),
                 sticky_rounds(equal_subscriptions=True)))
def test_constrained_small_paths_agree(problem):
    assume(problem.members and problem.subscriptions_equal())  # a change may leave them unequal
    small = constrained_small.SmallLayout.of(problem)
    assert constrained_small.place_two_phase(small) == ConstrainedStickyAssignor().place_large(problem)
    assert constrained_small.place_four_phase(small) == FourPhaseConstrainedAssignor().place_large(problem)


@settings(max_examples=200, deadline=None)
@given(st.one_of(problems(equal_subscriptions=True, racks=None, min_partitions_per_topic=0),
                 sticky_rounds(equal_subscriptions=True)))
def test_constrained_settled_claims_are_what_both_placements_give(problem):
    """`constrained.settled` (the claims as they are) against both variants' placements, small and vectorized: on
    the round that feeds a variant's output back and the same with junk claims added, where it always applies, and
    on the problem itself."""
    assume(problem.members and problem.subscriptions_equal())
    for assignor in (ConstrainedStickyAssignor(), FourPhaseConstrainedAssignor()):
        again = next_round(problem, assignor.place_large(problem))
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
                assert same == assignor.place_large(q) == assignor.place_small(
                    constrained_small.SmallLayout.of(q))
