"""KAFKA-16277 (027fad4b2a0, 2024-02): constrained sticky skews topics when a member gives partitions up.

Triggering shape: equal subscriptions over several topics, scaling out (e.g. t0 and t1 with 2 partitions
each, c0 owns all four, c1 is new). Owned partitions were kept in (topic, partition) order, so c0 kept
all of t0 and c1 got all of t1: balanced counts, skewed per topic. The fix sorts by (partition, topic).
Expected finding: per_topic_spread.
"""

from __future__ import annotations

from assigncheck.impl.constrained import ConstrainedStickyAssignor, general_sticky
from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.ownership import valid_owned

from ._constrained import Claim, as_claims, two_phase


def topic_index(claims: list[Claim]) -> list[Claim]:
    """The bug: keep order by (topic, index) instead of (rank, topic)."""
    return sorted(claims)


BREAKS = "sticky-constrained"  # the built-in assignor this entry breaks


class Assignor(ConstrainedStickyAssignor):
    name = "zoo-KAFKA-16277"
    spec = f"{__name__}:Assignor"  # how other processes (fuzz jobs, Spark executors) load it again

    def assign(self, problem: Problem) -> Assignment:
        if not problem.subscriptions_equal():
            return general_sticky(problem)
        return two_phase(problem, as_claims(valid_owned(problem)), keep_order=topic_index)
