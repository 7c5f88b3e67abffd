"""KAFKA-14639 (c6ad151ac3b, 2023-04): cooperative sticky revokes and assigns a partition in one round.

Triggering shape: cooperative protocol; a member missed a rebalance (REBALANCE_IN_PROGRESS) and rejoins
with an older generation, still claiming partitions it consumes (e.g. c0 at generation 1 owns t0-0,
t0-1; c1 at generation 2 owns t0-2, t0-3; c2 is new at generation 2). Before the fix every claim of a
member below the group's highest generation was ignored, so its partitions were neither kept nor
recorded as transferring: another member got them in the same round while the stale member still
consumed them. Expected finding: H6 (cooperative safety).
"""

from __future__ import annotations

from assigncheck.impl.cooperative import CooperativeStickyAssignor
from assigncheck.spec.model import Assignment, Problem, partitions_of

BREAKS = "cooperative-sticky"  # the built-in assignor this entry breaks


class Assignor(CooperativeStickyAssignor):
    name = "zoo-KAFKA-14639"
    spec = f"{__name__}:Assignor"  # how other processes (fuzz jobs, Spark executors) load it again

    def assign(self, problem: Problem) -> Assignment:
        claimed = [m.generation for m in problem.members if len(m.owned)]
        newest = max(claimed, default=-1)
        # the bug: "if generation < maxGeneration: ignore its ownedPartitions" (instead of the 3-case rule)
        members = tuple(m if m.generation >= newest else m.__class__(
            m.member_id, m.subscription, partitions_of({}), m.generation, m.instance_id, m.rack)
            for m in problem.members)
        return super().assign(problem.replace(members=members))
