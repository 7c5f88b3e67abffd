"""KAFKA-12984 (37d086fa2aa, 2021-07): constrained sticky throws on same-generation double claims.

Triggering shape: equal subscriptions, two members claim the same partition in the same generation
(ConsumerCoordinator failed to update SubscriptionState; e.g. c0 and c1 both at generation 1 claim
t0-0). Before the fix the builder's IllegalStateException checks fired ("the assignor would detect that
something was wrong and just throw an exception", PR #10985) and the rebalance failed; the fix
invalidates such claims for both members. Expected finding: H7.
"""

from __future__ import annotations

from assigncheck.impl.constrained import ConstrainedStickyAssignor, general_sticky
from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.ownership import valid_owned

from ._constrained import as_claims, own_claims, two_phase


def check_single_owners(problem: Problem) -> None:
    """The pre-fix sanity check: newest generation wins, and a tie in it is an IllegalStateException."""
    owner: dict[tuple[str, int], tuple[str, int]] = {}
    claims = own_claims(problem)
    for m in sorted(problem.members, key=lambda m: m.member_id):
        for topic, indices in claims[m.member_id].items():
            for i in indices:
                other = owner.get((topic, i))
                if other is not None and other[1] == m.generation:
                    raise RuntimeError(f"IllegalStateException: {topic}-{i} is owned by both {other[0]} "
                                       f"and {m.member_id} in generation {m.generation}")
                if other is None or other[1] < m.generation:
                    owner[(topic, i)] = (m.member_id, m.generation)


BREAKS = "sticky-constrained"  # the built-in assignor this entry breaks


class Assignor(ConstrainedStickyAssignor):
    name = "zoo-KAFKA-12984"
    spec = f"{__name__}:Assignor"  # how other processes (fuzz jobs, Spark executors) load it again

    def assign(self, problem: Problem) -> Assignment:
        if not problem.subscriptions_equal():
            return general_sticky(problem)
        check_single_owners(problem)
        return two_phase(problem, as_claims(valid_owned(problem)))
