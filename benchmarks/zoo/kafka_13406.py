"""KAFKA-13406 (a981e463942, 2021-11), reconstructed: cooperative sticky keeps wrongly claimed partitions.

Triggering shape: cooperative protocol, a member changed its subscription but still claims partitions
of a topic it no longer subscribes to (e.g. c0 subscribes to t1 only and claims t0-0). Kafka's
ConsumerCoordinator then failed `validateCooperativeAssignment` and the group was stuck. Here the
assignor hands those stale claims back to their claimant when nobody else received them, which is the
assignment that validation rejected. Expected finding: H3 (subscription).
"""

from __future__ import annotations

from assigncheck.impl.cooperative import CooperativeStickyAssignor
from assigncheck.spec.model import Assignment, Problem

BREAKS = "cooperative-sticky"  # the built-in assignor this entry breaks


class Assignor(CooperativeStickyAssignor):
    name = "zoo-KAFKA-13406"
    spec = f"{__name__}:Assignor"  # how other processes (fuzz jobs, Spark executors) load it again

    def assign(self, problem: Problem) -> Assignment:
        out = super().assign(problem).as_lists()
        given = {(t, i) for parts in out.values() for t, indices in parts.items() for i in indices}
        for m in sorted(problem.members, key=lambda m: m.member_id):
            for topic, arr in m.owned.items():
                if topic in m.subscription or topic not in problem.topics:
                    continue
                # the bug: a claim of an unsubscribed topic is kept as previous ownership
                n = problem.topics[topic]
                stale = [int(i) for i in arr.tolist() if 0 <= i < n and (topic, int(i)) not in given]
                out[m.member_id].setdefault(topic, []).extend(stale)
                given.update((topic, i) for i in stale)
        return Assignment.of(out)
