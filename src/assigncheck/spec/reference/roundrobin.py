"""Reference round-robin assignor (docs/SPEC.md §7.2, docs/ALGORITHMS.md, Kafka's `RoundRobinAssignor`).

Members in `Member.sort_key` order (static members by instance id, then member id) form a circle.
All partitions of subscribed, existing topics, ordered by (topic, index), are walked once; each goes
to the next member on the circle, from the cursor, that subscribes to its topic, and the cursor moves
past that member. With equal subscriptions the counts differ by at most one.
"""

from __future__ import annotations

from assigncheck.spec.model import Assignment, Member, Problem
from assigncheck.spec.promises import Promises


class RoundRobinReference:
    name = "roundrobin"
    promises = Promises(balance="perfect")  # enforced on equal subscriptions only (see Promises)

    def assign(self, problem: Problem) -> Assignment:
        circle = sorted(problem.members, key=Member.sort_key)
        out: dict[str, list[tuple[str, int]]] = {m.member_id: [] for m in problem.members}
        cursor = 0
        for topic in problem.subscribed_topics():
            for index in range(problem.topics[topic]):
                while topic not in circle[cursor].subscription:  # a subscriber exists, so this ends
                    cursor = (cursor + 1) % len(circle)
                out[circle[cursor].member_id].append((topic, index))
                cursor = (cursor + 1) % len(circle)
        return Assignment.of(out)

__all__ = ["RoundRobinReference"]
