"""`lag`: the lag-based assignor of KAFKA-5337 (seed 002, SPEC.md §7), fast.

Per topic (absent topics skipped), partitions in decreasing lag (ties: lower index first) go to the
subscriber with the fewest partitions of that topic, ties to the least assigned lag of that topic,
then the lower member id. Lag comes from `Problem.lag` (`TopicOffsets.lag`); a problem without lag
information has lag 0 everywhere, which degenerates to dealing by member id; a lag problem missing
a topic's offsets is an `InputError` (as in the reference).

Speed: the count rule makes the deal go in *laps*: every subscriber gets its k-th partition before
any gets its (k+1)-th, and a subscriber's lag total changes only when it receives. So lap k gives
the next `C` partitions (in lag order) to the subscribers sorted by (lag total at the start of the
lap, member id): one sort per lap instead of one heap operation per partition. Must equal the
spec's reference `spec/reference/lag.py` on every problem (`promises.exact = "lag"`).
"""

from __future__ import annotations

from operator import attrgetter

import numpy as np

from assigncheck.spec.errors import InputError
from assigncheck.spec.model import AnyProblem, Assignment, Problem, TopicTable
from assigncheck.spec.promises import Promises
from assigncheck.spec.small_views import is_small

from .require import require_problem

_NUMPY_LAP = 32  # below this many subscribers a Python sort per lap beats numpy's call overhead


def _topic_lags(problem: Problem, topic: str) -> np.ndarray:
    n = problem.topics[topic]
    if problem.lag is None:
        return np.zeros(n, dtype=np.int64)
    if topic not in problem.lag.offsets:
        raise InputError(f"lag.offsets.{topic}", "is missing (every topic needs offsets in a lag problem)")
    lags = np.asarray(problem.lag.lag(topic), dtype=np.int64)
    if len(lags) != n:
        raise InputError(f"lag.offsets.{topic}", f"must have {n} entries (one per partition), got {len(lags)}")
    return lags


def deal_topic(lags: np.ndarray, n_members: int) -> np.ndarray:
    """For one topic: the receiving subscriber (0..n_members-1, in member-id order) of each partition."""
    n = len(lags)
    owner = np.empty(n, dtype=np.int64)
    order = np.argsort(-lags, kind="stable")  # decreasing lag, lower index first on ties
    # int64 totals are exact unless lags are near 2**63 (offsets may be); then Python ints.
    if n_members >= _NUMPY_LAP and (n == 0 or int(lags.max()) <= (2**62) // n):
        totals = np.zeros(n_members, dtype=np.int64)
        rank = np.arange(n_members)
        for start in range(0, n, n_members):
            chunk = order[start: start + n_members]
            takers = np.lexsort((rank, totals))[: len(chunk)]
            owner[chunk] = takers
            totals[takers] += lags[chunk]
        return owner
    if n_members == 1:  # one subscriber: every lap is that one
        owner[:] = 0
        return owner
    lag_list, order_list = lags.tolist(), order.tolist()
    totals_list = [0] * n_members
    members, by_total = range(n_members), totals_list.__getitem__
    for start in range(0, n, n_members):
        # A stable sort of the ids by lag total: ties stay in id order.
        for p, m in zip(order_list[start: start + n_members], sorted(members, key=by_total)):
            owner[p] = m
            totals_list[m] += lag_list[p]
    return owner


def _assign_small(problem: Problem) -> Assignment:
    """`assign_lag` in plain Python for small problems (the same laps)."""
    members = sorted(problem.members, key=attrgetter("member_id"))
    table = TopicTable(t for t in problem.subscribed_topics() if problem.topics[t])
    member_row: list[int] = []
    topic_row: list[int] = []
    index_row: list[int] = []
    for code, topic in enumerate(table.names):
        subscribers = [k for k, m in enumerate(members) if topic in m.subscription]
        lags = _topic_lags(problem, topic).tolist()
        order = sorted(range(len(lags)), key=lambda i: -lags[i])  # stable: lower index first on ties
        totals = [0] * len(subscribers)
        ids, by_total = range(len(subscribers)), totals.__getitem__
        for start in range(0, len(order), len(subscribers)):
            for p, m in zip(order[start: start + len(subscribers)], sorted(ids, key=by_total)):  # ties: id order
                member_row.append(subscribers[m])
                index_row.append(p)
                totals[m] += lags[p]
        topic_row += [code] * len(lags)
    return Assignment.from_rows([m.member_id for m in members], member_row, table, topic_row, index_row)


def assign_lag(problem: Problem) -> Assignment:
    if is_small(problem):
        return _assign_small(problem)
    members = sorted(problem.members, key=attrgetter("member_id"))
    result: dict[str, dict[str, np.ndarray]] = {m.member_id: {} for m in members}
    subscribers_of: dict[str, list[str]] = {}
    for m in members:  # one pass over subscriptions, so each topic's subscribers come out in id order
        for topic in m.subscription:
            subscribers_of.setdefault(topic, []).append(m.member_id)
    for topic in problem.subscribed_topics():
        subscribers = subscribers_of[topic]
        if not problem.topics[topic]:
            continue
        owner = deal_topic(_topic_lags(problem, topic), len(subscribers))
        by_owner = np.argsort(owner, kind="stable")  # partitions grouped by receiver, ascending index
        bounds = np.searchsorted(owner[by_owner], np.arange(len(subscribers) + 1))
        for i, member_id in enumerate(subscribers):
            if bounds[i + 1] > bounds[i]:
                result[member_id][topic] = by_owner[bounds[i]: bounds[i + 1]]  # Assignment sorts and freezes
    return Assignment(result)


class LagAssignor:
    """KAFKA-5337: per topic, spread lag evenly among subscribers (see the module docstring)."""

    name = "lag"
    promises = Promises(balance="per-topic", exact="lag", order_independent=True)

    def assign(self, problem: AnyProblem) -> Assignment:
        return assign_lag(require_problem(problem, self.name))
