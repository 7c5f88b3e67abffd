"""KAFKA-7026 / KIP-341 (3e8a10e7d9a, 2019): sticky assignor trusts stale userData -> double assignment.

Triggering shape: a consumer rejoins with the ownership it had in an older generation while another
member, in the current generation, now owns one of those partitions (PR #5291: c1 leaves, c1 returns
and c3 leaves within one generation; c2 -> [1, 4, 5, 6], c3 -> [2, 3, 6]: partition 6 twice; the
test's shape: t0 with 7 partitions, c2 at generation 2 owns t0-1, t0-6, c3 at generation 1 still claims
t0-2, t0-6, c1 is new).
Before KIP-341 the userData carried no generation, so both claims counted as current and both
claimants kept the partition. Expected finding: H4 (exclusivity).
"""

from __future__ import annotations

from assigncheck.impl.constrained import ConstrainedStickyAssignor, general_sticky
from assigncheck.spec.model import Assignment, Problem

from ._constrained import own_claims, two_phase

BREAKS = "sticky-constrained"  # the built-in assignor this entry breaks


class Assignor(ConstrainedStickyAssignor):
    name = "zoo-KAFKA-7026"
    spec = f"{__name__}:Assignor"  # how other processes (fuzz jobs, Spark executors) load it again

    def assign(self, problem: Problem) -> Assignment:
        if not problem.subscriptions_equal():
            return general_sticky(problem)
        return two_phase(problem, own_claims(problem))  # the bug: no generation check at all
