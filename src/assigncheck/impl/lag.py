"""`lag`: the lag-based assignor of KAFKA-5337 (docs/SPEC.md §7.3), fast.

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

from assigncheck.impl.problem_kind import require_problem
from assigncheck.spec.errors import InputError
from assigncheck.spec.model import AnyProblem, Assignment, Problem, TopicTable
from assigncheck.spec.promises import Promises
from assigncheck.spec.small.views import is_small

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
    owner[order] = laps(lags[order].tolist(), n_members)
    return owner


def laps(lags: list[int], n_members: int) -> list[int]:
    """The receiver of each partition, given the partitions' lags in deal order: lap by lap, the next `n_members`
    partitions go to the members sorted by their lag total so far, ties in member order (Python ints: exact)."""
    if n_members == 1:  # one subscriber: every lap is that one
        return [0] * len(lags)
    totals = [0] * n_members
    members, by_total = range(n_members), totals.__getitem__
    receivers: list[int] = []
    for start in range(0, len(lags), n_members):
        chunk = lags[start: start + n_members]
        ranked = sorted(members, key=by_total)[: len(chunk)]  # stable: ties stay in member order
        receivers += ranked
        for m, lag in zip(ranked, chunk):
            totals[m] += lag
    return receivers


def assign_lag(problem: Problem) -> Assignment:
    """Rows (member, topic, index) topic by topic, made into the output once: lists for small problems (numpy's
    per-call cost dominates there), arrays otherwise."""
    members = sorted(problem.members, key=attrgetter("member_id"))
    table = TopicTable(t for t in problem.subscribed_topics() if problem.topics[t])
    small = is_small(problem)
    member_rows: list = []  # ints (small) or one array per topic
    topic_rows: list = []
    index_rows: list = []
    subscribers_of: dict[str, list[int]] = {}
    for k, m in enumerate(members):  # one pass over subscriptions: each topic's subscribers come out in id order
        for topic in m.subscription:
            subscribers_of.setdefault(topic, []).append(k)
    for code, topic in enumerate(table.names):
        subscribers = subscribers_of[topic]
        lags = _topic_lags(problem, topic)
        if small:
            lag_list = lags.tolist()
            order = sorted(range(len(lag_list)), key=lambda i: -lag_list[i])  # stable: lower index first on ties
            member_rows += [subscribers[m] for m in laps([lag_list[i] for i in order], len(subscribers))]
            index_rows += order
            topic_rows += [code] * len(order)
        else:
            member_rows.append(np.array(subscribers, dtype=np.int64)[deal_topic(lags, len(subscribers))])
            index_rows.append(np.arange(len(lags), dtype=np.int64))
            topic_rows.append(np.full(len(lags), code, dtype=np.int64))
    ids = [m.member_id for m in members]
    if not small and member_rows:
        member_row, topic_row, index_row = (np.concatenate(r) for r in (member_rows, topic_rows, index_rows))
        return Assignment.from_rows(ids, member_row, table, topic_row, index_row)
    return Assignment.from_rows(ids, member_rows, table, topic_rows, index_rows)


class LagAssignor:
    """KAFKA-5337: per topic, spread lag evenly among subscribers (see the module docstring)."""

    name = "lag"
    promises = Promises(balance="per-topic", exact="lag", order_independent=True)

    def assign(self, problem: AnyProblem) -> Assignment:
        return assign_lag(require_problem(problem, self.name))


__all__ = ["LagAssignor", "assign_lag", "deal_topic", "laps"]
