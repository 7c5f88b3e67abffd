"""The members' subscriptions as arrays of topic codes, computed once per problem.

Valid ownership's rule 2 (does a claimant still subscribe to the claimed topic, docs/SPEC.md §2) and the general
sticky assignor's (topic, member) pairs both read them; with random subscriptions nearly every member's is
distinct, and a set lookup per member or per claimed topic was a third of a 200-member assign.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain, repeat
from operator import attrgetter

import numpy as np

from assigncheck.spec.model import Problem, TopicTable, read_only

_SUBSCRIPTION = attrgetter("subscription")
_SPARSE = 32  # `subscribes` lays out a flag per (subscription, topic) while at most this many per listed topic


@dataclass(frozen=True)
class SubscriptionCodes:
    """Each distinct subscription's topics as codes of `table` (every topic of the metadata, in name order);
    topics missing from the metadata are left out. Read-only arrays."""

    table: TopicTable
    member_sub: np.ndarray  # int64 per member position: its subscription's number (first seen, first numbered)
    sub: np.ndarray  # int64 per entry: the subscription it belongs to; entries grouped by subscription
    codes: np.ndarray  # int64 per entry: a topic code

    @property
    def distinct(self) -> int:
        """How many distinct subscriptions the members have."""
        return int(self.member_sub.max()) + 1 if len(self.member_sub) else 0

    def subscribes(self, member: np.ndarray, topic: np.ndarray) -> np.ndarray:
        """Per row (member position, topic code): does the member subscribe to the topic? A code outside the
        table (a topic absent from the metadata) never matches."""
        if not len(self.codes):
            return np.zeros(len(member), dtype=bool)
        span = len(self.table.names) + 1
        asked = self.member_sub[member] * span + topic
        if self.distinct * span <= _SPARSE * len(self.codes):  # a flag per (subscription, topic): no sort
            grid = np.zeros(self.distinct * span, dtype=bool)
            grid[self.sub * span + self.codes] = True
            return grid[asked]
        keys = np.sort(self.sub * span + self.codes)
        return keys[np.minimum(np.searchsorted(keys, asked), len(keys) - 1)] == asked


def subscription_codes(problem: Problem) -> SubscriptionCodes:
    return problem.derived("subscription_codes", _subscription_codes)


def _subscription_codes(problem: Problem) -> SubscriptionCodes:
    table = TopicTable.of(tuple(sorted(problem.topics)))
    members = problem.members
    if problem.subscriptions_equal():  # one subscription: no pass over the members' sets
        distinct = [members[0].subscription] if members else []
        member_sub = np.zeros(len(members), dtype=np.int64)
    else:  # C-level passes only: a group can have thousands of members
        subs = list(map(_SUBSCRIPTION, members))
        distinct = list(dict.fromkeys(subs))  # first seen first
        number = dict(zip(distinct, range(len(distinct))))
        member_sub = np.fromiter(map(number.__getitem__, subs), dtype=np.int64, count=len(subs))
    listed = np.fromiter(map(len, distinct), dtype=np.int64, count=len(distinct))
    codes = np.fromiter(map(table.code.get, chain.from_iterable(distinct), repeat(-1)), dtype=np.int64,
                        count=int(listed.sum()))
    known = codes >= 0
    sub = np.repeat(np.arange(len(distinct), dtype=np.int64), listed)[known]
    return SubscriptionCodes(table, read_only(member_sub, np.int64), read_only(sub, np.int64),
                             read_only(codes[known], np.int64))

__all__ = ["SubscriptionCodes", "subscription_codes"]
