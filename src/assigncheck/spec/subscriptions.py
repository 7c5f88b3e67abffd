"""The members' subscriptions as arrays of topic codes, computed once per problem.

The general sticky assignor's (topic, member) pairs read them; with random subscriptions nearly every member's is
distinct, and a set lookup per member and listed topic was a third of a 200-member assign.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assigncheck.spec.model import Member, Problem, TopicTable, topic_sizes
from assigncheck.spec.native import subscription_rows


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


def subscription_codes(problem: Problem) -> SubscriptionCodes:
    return problem.derived("subscription_codes", _subscription_codes)


def _subscription_codes(problem: Problem) -> SubscriptionCodes:
    table = topic_sizes(problem)[0]  # every topic of the metadata by name, as valid ownership numbers them
    # compiled (`spec.native`): in Python, a pass per member and a dict lookup per listed topic cost a fifth of a
    # 200-member assign
    member_sub, sub, codes = subscription_rows(problem.members, Member, table.code, problem.subscriptions_equal())
    return SubscriptionCodes(table, np.frombuffer(member_sub, np.int64), np.frombuffer(sub, np.int64),
                             np.frombuffer(codes, np.int64))


__all__ = ["SubscriptionCodes", "subscription_codes"]
