"""Reference lag-based assignor (KAFKA-5337; docs/SPEC.md §7.3).

Per topic, independently: lag per partition is `problem.lag.lag(topic)` (end - committed; with no
commit, 0 for `auto.offset.reset=latest`, else end - begin); a problem without lag information has
lag 0 everywhere. Partitions in decreasing lag (ties: lower index first) each go to the topic's
subscriber with the fewest partitions of that topic so far, ties to the least lag of that topic
assigned so far, then the smallest member id. Counts per topic therefore differ by at most one.
"""

from __future__ import annotations

import heapq

import numpy as np

from assigncheck.spec.errors import InputError
from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.promises import Promises


def partition_lags(problem: Problem, topic: str) -> list[int]:
    """The lag of each partition of `topic` (0 everywhere without lag information)."""
    n = problem.topics[topic]
    if problem.lag is None:
        return [0] * n
    if topic not in problem.lag.offsets:
        raise InputError(f"lag.offsets.{topic}", "is missing (every topic needs offsets in a lag problem)")
    lags = np.asarray(problem.lag.lag(topic)).tolist()
    if len(lags) != n:
        raise InputError(f"lag.offsets.{topic}", f"must have {n} entries (one per partition), got {len(lags)}")
    return [int(x) for x in lags]


def lag_spread(problem: Problem, assignment: Assignment) -> dict[str, int]:
    """Per subscribed topic: max - min of the total lag assigned to each of its subscribers."""
    spread = {}
    for topic in problem.subscribed_topics():
        lags = partition_lags(problem, topic)
        totals = []
        for m in problem.subscribers(topic):
            arr = assignment.get(m.member_id).get(topic)
            totals.append(0 if arr is None else sum(lags[i] for i in arr.tolist() if 0 <= i < len(lags)))
        spread[topic] = max(totals) - min(totals)
    return spread


class LagReference:
    name = "lag"
    promises = Promises(balance="per-topic")

    def assign(self, problem: Problem) -> Assignment:
        out: dict[str, list[tuple[str, int]]] = {m.member_id: [] for m in problem.members}
        for topic in problem.subscribed_topics():
            lags = partition_lags(problem, topic)
            # a heap of (partitions of this topic, lag of this topic, member id): the top is the receiver
            heap = [(0, 0, m.member_id) for m in problem.subscribers(topic)]
            heapq.heapify(heap)
            for index in sorted(range(len(lags)), key=lambda i: (-lags[i], i)):
                count, total_lag, chosen = heapq.heappop(heap)
                out[chosen].append((topic, index))
                heapq.heappush(heap, (count + 1, total_lag + lags[index], chosen))
        return Assignment.of(out)

__all__ = ["LagReference", "lag_spread", "partition_lags"]
