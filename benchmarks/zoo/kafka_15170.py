"""KAFKA-15170 (f0291ac74b8, 2024-05), part 2: constrained sticky quota bookkeeping.

Triggering shape: equal subscriptions, more members own at least the ceiling quota than may keep it
(P % C = r > 0 and more than r members hold >= ceil(P / C); e.g. 7 partitions, c0 and c1 own 3 each,
c2 owns 1: f = 2, c = 3, r = 1). Kafka's rack round-robin did not stop letting members keep the ceiling
once the expected number of maxQuota members was reached (the "exactly min" list was not cleared),
and `verifyUnfilledMembers` threw IllegalStateException: an endless rebalancing loop. (Kafka hit it on
the rack-aware path; the project's constrained assignor has no rack path, so the bookkeeping slip is
rebuilt on the plain one.) Expected finding: H7.
"""

from __future__ import annotations

from assigncheck.impl.constrained import ConstrainedStickyAssignor, general_sticky
from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.ownership import valid_owned

from ._constrained import as_claims, two_phase

BREAKS = "sticky-constrained"  # the built-in assignor this entry breaks


def every_holder_verified(v: list[int], f: int, c: int, r: int) -> list[bool]:
    """The bug: every member holding the ceiling keeps it, with no stop once r of them do; then the
    `verifyUnfilledMembers` check throws."""
    flags = [c > f and count >= c for count in v]
    if sum(flags) > r:
        left = sum(v) - sum(c if big else min(count, f) for count, big in zip(v, flags))
        raise RuntimeError(f"IllegalStateException: verifyUnfilledMembers: {sum(flags)} members at maxQuota {c}, "
                           f"expected {r}; {left} claimed partitions released to the unfilled members")
    return flags


class Assignor(ConstrainedStickyAssignor):
    name = "zoo-KAFKA-15170"
    spec = f"{__name__}:Assignor"  # how other processes (fuzz jobs, Spark executors) load it again

    def assign(self, problem: Problem) -> Assignment:
        if not problem.subscriptions_equal():
            return general_sticky(problem)
        return two_phase(problem, as_claims(valid_owned(problem)), keeps_max=every_holder_verified)
