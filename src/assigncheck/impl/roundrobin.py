"""Round-robin assignment (docs/SPEC.md §7.2, ALGORITHMS.md "roundrobin"), one topic at a time by arithmetic.

Kafka walks a circular cursor over the members for every partition. Within one topic the walk only
visits that topic's subscribers, in order, starting at the first one at or after the cursor; so index
`i` goes to the subscriber `(start + i) mod C_t`, and the cursor ends just past the subscriber that got
the topic's last partition.
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

from assigncheck.impl.problem_kind import require_problem
from assigncheck.impl.range import subscriber_positions, subscribers_small
from assigncheck.spec.model import AnyProblem, Assignment, Problem, TopicTable
from assigncheck.spec.promises import Promises
from assigncheck.spec.small.views import is_small


class RoundRobinAssignor:
    name = "roundrobin"
    # Perfect balance is promised (and checked) only where subscriptions are equal, see Promises.
    promises = Promises(balance="perfect", exact="roundrobin")

    def assign(self, problem: AnyProblem) -> Assignment:
        problem = require_problem(problem, self.name)
        if is_small(problem):
            return _plain_round_robin(problem)
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


def _plain_round_robin(problem: Problem) -> Assignment:
    """The walk of `RoundRobinAssignor.assign` in plain Python, for small problems."""
    members, table, subscribers = subscribers_small(problem)
    member_row: list[int] = []
    topic_row: list[int] = []
    cursor = 0
    for code, subs in enumerate(subscribers):
        n = problem.topics[table.names[code]]
        start = bisect_left(subs, cursor)
        member_row += [subs[(start + i) % len(subs)] for i in range(n)]
        topic_row += [code] * n
        cursor = member_row[-1] + 1
    index_row = [i for code, subs in enumerate(subscribers) for i in range(problem.topics[table.names[code]])]
    return Assignment.from_rows([m.member_id for m in members], member_row, table, topic_row, index_row)


__all__ = ["RoundRobinAssignor"]
