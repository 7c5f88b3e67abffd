"""Delta debugging on a problem: make it smaller while the same violation persists.

Greedy: try candidate reductions in order of how much they remove (halves of the members first, then
single members, topics, partition counts, claims, subscriptions, then cosmetic simplifications: racks,
static ids, generations, lag, protocol); take the first that still fails, and start over from it. Stops
when no reduction keeps the failure, or at the deadline (the best problem so far is returned).

A failure that does not show on every try (a nondeterministic target) is minimized with `as_often`: a
candidate is kept only when it fails in at least as many of `TRIES` tries as the original problem did, so the
reproducer never shrinks into one that fails more rarely.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import numpy as np

from assigncheck.spec.model import (
    AnyProblem,
    Client,
    LagInfo,
    Member,
    Partitions,
    Problem,
    StreamsProblem,
    TopicOffsets,
    partitions_of,
)


def _chunks(n: int) -> Iterator[tuple[int, int]]:
    """Index ranges to drop, biggest first: halves, quarters, ..., singles."""
    size = n // 2
    while size >= 1:
        for start in range(0, n, size):
            yield start, min(start + size, n)
        size //= 2


def _member(m: Member, **changes: Any) -> Member:
    fields: dict[str, Any] = {"member_id": m.member_id, "subscription": m.subscription, "owned": m.owned,
              "generation": m.generation, "instance_id": m.instance_id, "rack": m.rack}
    fields.update(changes)
    return Member(**fields)


def _with_member(problem: Problem, i: int, new: Member) -> Problem:
    return problem.replace(members=problem.members[:i] + (new,) + problem.members[i + 1 :])


def _resize(problem: Problem, topic: str, count: int | None) -> Problem:
    """The problem with `topic` cut to `count` partitions (None: removed from the metadata everywhere)."""
    topics = {t: (n if t != topic else count) for t, n in problem.topics.items() if t != topic or count is not None}
    racks = dict(problem.partition_racks) if problem.partition_racks is not None else None
    offsets = dict(problem.lag.offsets) if problem.lag is not None else None
    if racks is not None:
        racks.pop(topic, None)
    if offsets is not None:
        old = offsets.pop(topic)
    if count is not None:
        if racks is not None and problem.partition_racks is not None and topic in problem.partition_racks:
            racks[topic] = problem.partition_racks[topic][:count]
        if offsets is not None:
            offsets[topic] = TopicOffsets(old.begin[:count], old.end[:count], old.committed[:count])
    lag = LagInfo(offsets, problem.lag.auto_offset_reset) if problem.lag is not None and offsets is not None else None
    members = problem.members
    if count is None:
        members = tuple(_member(m, subscription=m.subscription - {topic},
                                owned={t: a for t, a in m.owned.items() if t != topic}) for m in members)
    return problem.replace(topics=topics, partition_racks=racks, lag=lag, members=members)


def _drop_partition(problem: Problem, topic: str, j: int) -> Problem:
    """Partition `j` of `topic` removed and the ones above renumbered, in the metadata and in every claim."""
    shrunk = _resize(problem, topic, problem.topics[topic] - 1)
    if problem.partition_racks is not None and topic in problem.partition_racks:
        racks = problem.partition_racks[topic]
        shrunk = shrunk.replace(partition_racks={**(shrunk.partition_racks or {}), topic: racks[:j] + racks[j + 1 :]})
    if problem.lag is not None:
        o = problem.lag.offsets[topic]
        keep = np.arange(len(o.begin)) != j
        before = shrunk.lag.offsets if shrunk.lag else {}
        offsets = {**before, topic: TopicOffsets(o.begin[keep], o.end[keep], o.committed[keep])}
        shrunk = shrunk.replace(lag=LagInfo(offsets, problem.lag.auto_offset_reset))
    members = []
    for m in shrunk.members:
        arr = m.owned.get(topic)
        if arr is not None:
            arr = arr[arr != j]
            arr = np.where(arr > j, arr - 1, arr)
            m = _member(m, owned={**m.owned, topic: arr})
        members.append(m)
    return shrunk.replace(members=tuple(members))


def _smaller_parts(parts: Partitions) -> Iterator[Partitions]:
    """Claims with a whole topic dropped, then with chunks of single claims dropped."""
    if not parts:
        return
    yield partitions_of(None)
    for topic in sorted(parts):
        if len(parts) > 1:
            yield partitions_of({t: a for t, a in parts.items() if t != topic})
        arr = parts[topic]
        for lo, hi in _chunks(len(arr)):
            yield partitions_of({**parts, topic: np.concatenate([arr[:lo], arr[hi:]])})


def _consumer_candidates(p: Problem) -> Iterator[Problem]:
    """Smaller problems, the biggest cuts first: members and topics, then partitions, then what members hold and
    want, then the features (racks, lag, protocol, member fields)."""
    yield from _fewer_members_and_topics(p)
    yield from _fewer_partitions(p)
    yield from _smaller_members(p)
    yield from _plainer(p)


def _fewer_members_and_topics(p: Problem) -> Iterator[Problem]:
    for lo, hi in _chunks(len(p.members)):
        yield p.replace(members=p.members[:lo] + p.members[hi:])
    for topic in sorted(p.topics):
        yield _resize(p, topic, None)
    for topic in sorted({t for m in p.members for t in m.subscription} - p.topics.keys()) if p.lag is None else ():
        yield _resize(p.replace(topics={**p.topics, topic: 0}), topic, None)  # gone from every subscription


def _fewer_partitions(p: Problem) -> Iterator[Problem]:
    for topic, count in sorted(p.topics.items()):
        for smaller in sorted({0, count // 2, count - 1} - {count}):
            if smaller >= 0:
                yield _resize(p, topic, smaller)
    for topic, count in sorted(p.topics.items()):
        for j in range(count):
            yield _drop_partition(p, topic, j)
    # A member and one partition together: balance bugs need the quota arithmetic to stay put.
    n = len(p.members)
    if n <= 12 and p.partition_count <= 64:
        for i in range(n):
            fewer = p.replace(members=p.members[:i] + p.members[i + 1 :])
            for topic, count in sorted(p.topics.items()):
                for j in range(count):
                    yield _drop_partition(fewer, topic, j)


def _smaller_members(p: Problem) -> Iterator[Problem]:
    for i, m in enumerate(p.members):
        for owned in _smaller_parts(m.owned):
            yield _with_member(p, i, _member(m, owned=owned))
    for i, m in enumerate(p.members):
        for topic in sorted(m.subscription):
            yield _with_member(p, i, _member(m, subscription=m.subscription - {topic}))


def _plainer(p: Problem) -> Iterator[Problem]:
    if p.partition_racks is not None:
        yield p.replace(partition_racks=None)
    if p.lag is not None:
        yield p.replace(lag=None)
    if p.protocol == "cooperative":
        yield p.replace(protocol="eager")
    for i, m in enumerate(p.members):
        if m.rack is not None:
            yield _with_member(p, i, _member(m, rack=None))
        if m.instance_id is not None:
            yield _with_member(p, i, _member(m, instance_id=None))
        if m.generation > -1:
            yield _with_member(p, i, _member(m, generation=-1))
            yield _with_member(p, i, _member(m, generation=m.generation - 1))


def _lags_within(c: Client, subtopology: str, tasks: int) -> Client:
    """`c` without the lags it reports for tasks past the first `tasks` of `subtopology` (a document lists one
    lag per task that exists)."""
    if all(st != subtopology or i < tasks for st, i in c.lags):
        return c
    return replace(c, lags={t: lag for t, lag in c.lags.items() if t[0] != subtopology or t[1] < tasks})


def _streams_candidates(p: StreamsProblem) -> Iterator[StreamsProblem]:
    for lo, hi in _chunks(len(p.clients)):
        yield replace(p, clients=p.clients[:lo] + p.clients[hi:])
    for name, count in sorted(p.subtopologies.items()):
        for smaller in sorted({0, count // 2, count - 1} - {count}):
            if smaller >= 0:
                yield replace(p, subtopologies={**p.subtopologies, name: smaller},
                              clients=tuple(_lags_within(c, name, smaller) for c in p.clients))
    if p.num_standby_replicas:
        yield from (replace(p, num_standby_replicas=n) for n in sorted({0, p.num_standby_replicas - 1}))
    for name in sorted(p.stateless):
        yield replace(p, stateless=p.stateless - {name})
    if p.acceptable_recovery_lag is not None:
        yield replace(p, acceptable_recovery_lag=None)
    if p.rack_aware_assignment_tags:
        yield replace(p, rack_aware_assignment_tags=())
    for i, c in enumerate(p.clients):
        reduced = [replace(c, active=active) for active in _smaller_parts(c.active)]
        reduced += [replace(c, standby=standby) for standby in _smaller_parts(c.standby)]
        reduced += [replace(c, capacity=1)] if c.capacity > 1 else []
        reduced += [replace(c, lags={})] if c.lags else []
        reduced += [replace(c, rack=None)] if c.rack is not None else []
        # A client's tags go only once no rack_aware_assignment_tags name them (a problem Streams can state).
        reduced += [replace(c, client_tags={})] if c.client_tags and not p.rack_aware_assignment_tags else []
        for one in reduced:
            yield replace(p, clients=p.clients[:i] + (one,) + p.clients[i + 1 :])


def candidates(problem: AnyProblem) -> Iterator[AnyProblem]:
    """Every one-step reduction of `problem`, the biggest first."""
    if isinstance(problem, StreamsProblem):
        return _streams_candidates(problem)
    return _consumer_candidates(problem)


TRIES = 3  # tries per problem when judging how often a failure shows (`as_often`)


def as_often(fails: Callable[[AnyProblem], bool], problem: AnyProblem, tries: int = TRIES
             ) -> Callable[[AnyProblem], bool] | None:
    """A test for `minimize`: a candidate still fails when it fails in at least as many of `tries` tries as
    `problem` does (each try stops as soon as the count is reached, or can no longer be). None when `problem`
    fails in none of them: there is nothing to keep."""
    needed = sum(fails(problem) for _ in range(tries))
    if not needed:
        return None

    def still_fails(candidate: AnyProblem) -> bool:
        failed = 0
        for done in range(tries):
            if failed >= needed or failed + tries - done < needed:
                break
            failed += fails(candidate)
        return failed >= needed

    return still_fails


def minimize(problem: AnyProblem, still_fails: Callable[[AnyProblem], bool], *, seconds: float = 30.0) -> AnyProblem:
    """The smallest problem greedy delta debugging reaches on which `still_fails` holds."""
    deadline = time.monotonic() + seconds
    best = problem
    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        for candidate in candidates(best):
            if time.monotonic() >= deadline:
                break
            if still_fails(candidate):
                best, progress = candidate, True
                break
    return best

__all__ = ["TRIES", "as_often", "minimize"]
