"""`sticky`: the general sticky assignor for any subscriptions (SPEC.md §8).

Promises: optimal balance (minimum Σcount², not only Kafka's local "no improving move"), and among
optimally balanced assignments the most retained valid ownership; fixpoint; deterministic and
independent of the order members, subscriptions and claims are listed in.

Two steps:

1. **Counts** (`impl.flow.solve_counts`): a min-cost flow over (topic, member) pairs decides, per
   pair, how many of the member's valid claims on the topic it keeps and how many other partitions
   of the topic it receives. The network and why it is exact are in `impl/flow.py`.
2. **Placement**, topic by topic in name order: each member keeps the `keep` lowest indices of its
   valid claims on the topic; the topic's remaining partitions (never owned, released, or owned by
   a member that left) are dealt in index order as contiguous runs to the members that receive
   some, in member-id order.

Tie-breaks: the optimum is not unique (which member takes an extra partition, which topic a member
gives up partitions of). Members are sorted by id and topics by name before anything is built, the
network is built from that sorted data only, and OR-Tools' solver is deterministic, so equal
problems - in any listing order, in any process - get the same flow; placement then uses explicit
index order. Nothing depends on hash seeds or time. The flow's pick among equally good optima is the
solver's (stable for one OR-Tools version: constraints.txt pins it), not a rule stated here, so a
model of this assignor can check its optima and its determinism, not predict each partition; and
the KAFKA-16277 per-topic spread is measured, not promised. Fixpoint: fed its own output back, every partition
is validly owned and the previous output already has optimal balance, so retaining everything is
the unique optimum and the same assignment comes back.
"""

from __future__ import annotations

import numpy as np

from assigncheck.spec.model import AnyProblem, Assignment, Problem
from assigncheck.spec.ownership import valid_owned
from assigncheck.spec.promises import Promises

from .flow import solve_counts
from .require import require_problem


def assign_general_sticky(problem: Problem) -> Assignment:
    """The optimally balanced, most retaining assignment (see the module docstring)."""
    members = sorted(problem.members, key=lambda m: m.member_id)
    ids = [m.member_id for m in members]
    wanted = set().union(*(m.subscription for m in members)) if members else set()
    topics = sorted(t for t, n in problem.topics.items() if n > 0 and t in wanted)
    owned = valid_owned(problem)

    position = {t: ti for ti, t in enumerate(topics)}
    pairs = sorted((position[t], mi) for mi, m in enumerate(members) for t in m.subscription if t in position)
    pair_topic = [ti for ti, _ in pairs]
    pair_member = [mi for _, mi in pairs]
    pair_owned = [len(owned[members[mi].member_id].get(topics[ti], ())) for ti, mi in pairs]
    sizes = np.array([problem.topics[t] for t in topics], dtype=np.int64)
    flows = solve_counts(sizes, np.array(pair_topic, dtype=np.int64), np.array(pair_member, dtype=np.int64),
                         np.array(pair_owned, dtype=np.int64), len(members))

    result: list[dict[str, np.ndarray]] = [{} for _ in members]
    keep, new = flows.keep.tolist(), flows.new.tolist()
    start = 0
    for ti, topic in enumerate(topics):
        end = start
        while end < len(pair_topic) and pair_topic[end] == ti:
            end += 1
        taken = np.zeros(problem.topics[topic], dtype=bool)
        kept: dict[int, np.ndarray] = {}
        for i in range(start, end):
            if keep[i]:
                mine = owned[ids[pair_member[i]]][topic][: keep[i]]  # valid claims are sorted
                taken[mine] = True
                kept[pair_member[i]] = mine
        free = np.flatnonzero(~taken)
        cursor = 0
        for i in range(start, end):
            mi = pair_member[i]
            got = free[cursor: cursor + new[i]]
            cursor += new[i]
            parts = np.concatenate([kept[mi], got]) if mi in kept else got
            if len(parts):
                result[mi][topic] = parts  # Assignment sorts and freezes
        if cursor != len(free):
            raise RuntimeError(f"placement left {len(free) - cursor} partitions of {topic} unassigned")
        start = end
    return Assignment(dict(zip(ids, result)))


class StickyAssignor:
    """General sticky: optimal balance, then maximum retention (see the module docstring)."""

    name = "sticky"
    promises = Promises(balance="optimal", stickiness="max_retained", fixpoint=True, order_independent=True)

    def assign(self, problem: AnyProblem) -> Assignment:
        return assign_general_sticky(require_problem(problem, self.name))
