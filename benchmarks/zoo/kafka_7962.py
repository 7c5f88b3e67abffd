"""KAFKA-7962 (a1f7925d23b): StickyAssignor NPE when a subscribed topic is deleted.

Triggering shape: members still subscribe to and claim partitions of a topic that is gone from the
metadata (`gone`), with equal subscriptions. The broken builder reads every claim of a subscribed
topic without checking that the topic still exists, and the partition-offset lookup fails (Kafka:
NullPointerException; fixed with a guard, test testAssignmentUpdatedForDeletedTopic). Expected: H7.
"""

from __future__ import annotations

from assigncheck.impl.constrained import ConstrainedStickyAssignor, general_sticky
from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.ownership import valid_owned

from ._constrained import as_claims, two_phase

BREAKS = "sticky-constrained"  # the built-in assignor this entry breaks


class Assignor(ConstrainedStickyAssignor):
    name = "zoo-KAFKA-7962"
    spec = f"{__name__}:Assignor"  # how other processes (fuzz jobs, Spark executors) load it again

    def assign(self, problem: Problem) -> Assignment:
        if not problem.subscriptions_equal():
            return general_sticky(problem)
        claims = as_claims(valid_owned(problem))
        for m in problem.members:  # the bug: claims of deleted (but subscribed) topics are read too
            for topic, arr in m.owned.items():
                if topic not in problem.topics and topic in m.subscription:
                    claims[m.member_id][topic] = sorted({int(i) for i in arr.tolist()})
        return two_phase(problem, claims)
