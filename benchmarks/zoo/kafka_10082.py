"""KAFKA-10082 (9e5e4cd5586): constrained sticky drops the owned partitions of the highest generation.

Triggering shape: equal subscriptions, members claiming disjoint partitions with different generations
(e.g. t0 with 6 partitions; c0 and c1 at generation 3 own t0-0, t0-1 and t0-2, t0-3; c2 at generation 2
owns t0-4, t0-5; c3 is new). In
`allSubscriptionsEqual`, finding a member of a newer generation cleared the claims collected so far
*and* those of the member that raised the maximum, so the most up-to-date owners lost everything and
partitions moved needlessly. Expected finding: stickiness.max_retained.
"""

from __future__ import annotations

from assigncheck.impl.constrained import ConstrainedStickyAssignor, general_sticky
from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.ownership import valid_owned

from ._constrained import as_claims, two_phase

BREAKS = "sticky-constrained"  # the built-in assignor this entry breaks


class Assignor(ConstrainedStickyAssignor):
    name = "zoo-KAFKA-10082"
    spec = f"{__name__}:Assignor"  # how other processes (fuzz jobs, Spark executors) load it again

    def assign(self, problem: Problem) -> Assignment:
        if not problem.subscriptions_equal():
            return general_sticky(problem)
        valid = valid_owned(problem)
        claimants = [m for m in problem.members if len(valid[m.member_id])]
        claims = as_claims(valid)
        if len({m.generation for m in claimants}) > 1:  # the bug: the newest generation's claims are dropped
            newest = max(m.generation for m in claimants)
            for m in claimants:
                if m.generation == newest:
                    claims[m.member_id] = {}
        return two_phase(problem, claims)
