"""KAFKA-16930 (98f7da9172c, 2024-06): general assignor NPE on a member with no subscriptions.

Triggering shape: unequal subscriptions where one member subscribes to nothing (e.g. c0 -> {t0},
c1 -> {}). GeneralUniformAssignmentBuilder.canMemberParticipateInReassignment looked the member's
potential partitions up in a map that only had entries for members with subscriptions. Expected: H7.
"""

from __future__ import annotations

from assigncheck.impl.sticky import StickyAssignor
from assigncheck.spec.model import Assignment, Problem

BREAKS = "sticky"  # the built-in assignor this entry breaks


class Assignor(StickyAssignor):
    name = "zoo-KAFKA-16930"
    spec = f"{__name__}:Assignor"  # how other processes (fuzz jobs, Spark executors) load it again

    def assign(self, problem: Problem) -> Assignment:
        potential: dict[str, int] = {}
        for m in problem.members:
            for topic in sorted(m.subscription):  # the bug: members without topics get no entry
                potential[m.member_id] = potential.get(m.member_id, 0) + problem.topics.get(topic, 0)
        # canMemberParticipateInReassignment reads every member's entry: a KeyError here is Kafka's NPE
        if sum(potential[m.member_id] for m in problem.members) == 0:
            return Assignment({m.member_id: {} for m in problem.members})
        return super().assign(problem)
