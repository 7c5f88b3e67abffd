"""KAFKA-18688 (PR #19677, 2025): homogeneous assignment moves partitions needlessly.

Triggering shape: equal subscriptions, P % C != 0 and a balanced previous assignment in which the
members holding the extra partition are not the first ones in member order (e.g. t0 with 3 partitions,
c0 owns t0-0, c1 owns t0-1 and t0-2). The extra partitions were reserved for the first P % C members,
so c1 gave one up and c0 took it. The fix lets any member hold the extra partition. Expected finding:
stickiness.max_retained.
"""

from __future__ import annotations

from assigncheck.impl.constrained import ConstrainedStickyAssignor, general_sticky
from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.ownership import valid_owned

from ._constrained import as_claims, two_phase

BREAKS = "sticky-constrained"  # the built-in assignor this entry breaks


def first_r_members(v: list[int], f: int, c: int, r: int) -> list[bool]:
    """The bug: the ceiling belongs to the first r members (M order), whatever they own."""
    return [k < r and c > f and count >= c for k, count in enumerate(v)]


def first_r_members_dealt(at_max: list[bool], r: int) -> list[bool]:
    return [k < r and not big for k, big in enumerate(at_max)]


class Assignor(ConstrainedStickyAssignor):
    name = "zoo-KAFKA-18688"
    spec = f"{__name__}:Assignor"  # how other processes (fuzz jobs, Spark executors) load it again

    def assign(self, problem: Problem) -> Assignment:
        if not problem.subscriptions_equal():
            return general_sticky(problem)
        return two_phase(problem, as_claims(valid_owned(problem)), keeps_max=first_r_members,
                         extra=first_r_members_dealt)
