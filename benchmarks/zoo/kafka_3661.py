"""KAFKA-3661 (8429db937e2, 2016): RoundRobinAssignor NPE on a subscribed topic missing from the metadata.

Triggering shape: any member subscribes to a topic the cluster metadata does not list (e.g. `gone`).
The broken walk looks every subscribed topic's partition count up without skipping unknown topics, so
it raises (Kafka: NullPointerException) instead of skipping the topic. Expected finding: H7.
"""

from __future__ import annotations

import numpy as np

from assigncheck.impl.roundrobin import RoundRobinAssignor
from assigncheck.spec.model import Assignment, Member, Problem

BREAKS = "roundrobin"  # the built-in assignor this entry breaks


class Assignor(RoundRobinAssignor):
    name = "zoo-KAFKA-3661"
    spec = f"{__name__}:Assignor"  # how other processes (fuzz jobs, Spark executors) load it again

    def assign(self, problem: Problem) -> Assignment:
        members = sorted(problem.members, key=Member.sort_key)
        out: dict[str, dict[str, np.ndarray]] = {m.member_id: {} for m in members}
        subscribers: dict[str, list[int]] = {}
        for i, m in enumerate(members):
            for topic in m.subscription:
                subscribers.setdefault(topic, []).append(i)
        cursor = 0
        for topic in sorted(subscribers):  # the bug: no `if topic in metadata` filter
            n, positions = problem.topics[topic], subscribers[topic]
            if n == 0:
                continue
            count = len(positions)
            start = int(np.searchsorted(positions, cursor)) % count
            indices = np.arange(n, dtype=np.int32)
            for k in range(min(count, n)):
                out[members[positions[(start + k) % count]].member_id][topic] = indices[k::count]
            cursor = positions[(start + n - 1) % count] + 1
        return Assignment(out)
