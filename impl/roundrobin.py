"""Round-robin assignment (SPEC.md §7, ALGORITHMS.md "roundrobin"), one topic at a time by arithmetic.

Kafka walks a circular cursor over the members for every partition. Within one topic the walk only
visits that topic's subscribers, in order, starting at the first one at or after the cursor; so index
`i` goes to the subscriber `(start + i) mod C_t`, and the cursor ends just past the subscriber that got
the topic's last partition.
"""

from __future__ import annotations

import numpy as np

from assigncheck.spec.model import AnyProblem, Assignment, TopicTable
from assigncheck.spec.promises import Promises

from .range import subscriber_positions
from .require import require_problem


class RoundRobinAssignor:
    name = "roundrobin"
    # Perfect balance is promised (and checked) only where subscriptions are equal, see Promises.
    promises = Promises(balance="perfect", exact="roundrobin")

    def assign(self, problem: AnyProblem) -> Assignment:
        problem = require_problem(problem, self.name)
        members, subscribers = subscriber_positions(problem)
        table = TopicTable(t for t in subscribers if problem.topics[t] > 0)
        members_row, topics_row, index_row = [], [], []
        cursor = 0  # position in `members` of the next member the walk looks at
        for code, topic in enumerate(table.names):
            n, positions = problem.topics[topic], subscribers[topic]
            start = int(np.searchsorted(positions, cursor)) % len(positions)
            owners = positions[(start + np.arange(n)) % len(positions)]
            members_row.append(owners)
            topics_row.append(np.full(n, code, dtype=np.int64))
            index_row.append(np.arange(n, dtype=np.int32))
            cursor = int(owners[-1]) + 1
        ids = [m.member_id for m in members]
        if not members_row:
            return Assignment.from_rows(ids, np.zeros(0), table, np.zeros(0), np.zeros(0))
        return Assignment.from_rows(ids, np.concatenate(members_row), table, np.concatenate(topics_row),
                                    np.concatenate(index_row))
