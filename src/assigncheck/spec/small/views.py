"""Plain-Python views of a small problem and of one output: the twin of `spec.partition_rows` for the checker's
small path.

On a group of a few members and a few dozen partitions every numpy call (5-20 us) costs more than the work it
does, and a report runs a dozen checks. These views hold the same facts as `spec.partition_rows` (global
partition ids in (topic, index) order, one row per listed (member, partition), valid and raw claims) as tuples,
sets and dicts; `spec.small.assignment_check` reads them. `tests/spec/small/test_checks.py` holds every report of
the small path equal to the vectorized one.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from assigncheck.spec.model import Assignment, Member, Problem, partitions_of
from assigncheck.spec.ownership import valid_claims
from assigncheck.spec.partition_rows import last_call_cache

# A problem is small when its partitions, its raw claims and an output's rows are each at most this many.
SMALL = 256


@dataclass(frozen=True)
class ProblemView:
    ids: tuple[str, ...]  # member ids, problem order
    subs: tuple[frozenset[str], ...]
    topics: tuple[str, ...]  # every topic of the metadata, by name
    offset: dict[str, int]  # global id of partition 0 of each topic
    size: dict[str, int]
    total: int
    subscribed: tuple[str, ...]  # topics (any size) with at least one subscriber, by name
    valid: tuple[tuple[int, int, str, int], ...]  # (member, gid, topic, index) per valid claim, by member then gid
    members: tuple[Member, ...]

    def pair(self, gid: int) -> tuple[str, int]:
        for t in reversed(self.topics):
            if self.offset[t] <= gid and self.size[t]:
                return t, gid - self.offset[t]
        raise ValueError(gid)

    @cached_property
    def _raw(self) -> tuple[frozenset[tuple[int, int]], dict[int, int], frozenset[str]]:
        """`claims`, `claimants` and `claimed_topics` in one pass over the members' raw claims."""
        claims: set[tuple[int, int]] = set()
        claimants: dict[int, int] = {}
        topics: set[str] = set()
        for mi, m in enumerate(self.members):
            if not m.owned.count:
                continue
            codes, bounds, indices = m.owned.lists()
            for k, c in enumerate(codes):
                t = m.owned.table.names[c]
                n, base = self.size.get(t, 0), self.offset.get(t, 0)
                for i in indices[bounds[k]:bounds[k + 1]]:
                    if 0 <= i < n and (mi, base + i) not in claims:  # a member's repeats count once
                        claims.add((mi, base + i))
                        claimants[base + i] = claimants.get(base + i, 0) + 1
                        topics.add(t)
        return frozenset(claims), claimants, frozenset(topics)

    @property
    def claims(self) -> frozenset[tuple[int, int]]:
        """(member, gid) per raw claim of an existing partition (cooperative checks only: made on first use)."""
        return self._raw[0]

    @property
    def claimants(self) -> dict[int, int]:
        """gid -> how many members claim it raw."""
        return self._raw[1]

    @property
    def claimed_topics(self) -> frozenset[str]:
        """Topics with a partition some member claims raw."""
        return self._raw[2]

    @cached_property
    def subscribers(self) -> dict[str, list[int]]:
        """Topic -> its subscribers' positions, ascending, for every topic of `subscribed`."""
        return {t: [m for m, sub in enumerate(self.subs) if t in sub] for t in self.subscribed}

    @cached_property
    def valid_keys(self) -> frozenset[tuple[int, int]]:
        """(member, gid) per valid claim."""
        return frozenset((m, g) for m, g, _, _ in self.valid)


@dataclass(frozen=True, slots=True)
class OutputView:
    """One row per listed (member, partition) of an output, in `spec.partition_rows.assigned_rows`' order."""

    ids: tuple[str, ...]  # the problem's members, then the unknown ones by id
    member: tuple[int, ...]
    topic: tuple[str, ...]
    index: tuple[int, ...]
    gid: tuple[int, ...]  # -1: not a partition of the problem
    piece: tuple[int, ...]  # which (member, topic) run the row came from


def is_small(problem: Problem) -> bool:
    """Few enough partitions and raw claims for the plain-Python paths."""
    return problem.derived("small", _is_small)


def _is_small(problem: Problem) -> bool:
    return (sum(problem.topics.values()) <= SMALL and len(problem.members) <= SMALL
            and sum(m.owned.count for m in problem.members) <= SMALL)


def output_is_small(assignment: Assignment) -> bool:
    return sum(p.count for p in assignment.by_member.values()) <= SMALL


def problem_view(problem: Problem) -> ProblemView:
    """Computed once per problem."""
    return problem.derived("small_view", _problem_view)


def _problem_view(problem: Problem) -> ProblemView:
    topics = tuple(sorted(problem.topics))
    offset, size, total = {}, {}, 0
    for t in topics:
        offset[t], size[t] = total, problem.topics[t]
        total += size[t]
    wanted = set().union(*(m.subscription for m in problem.members)) if problem.members else set()
    v = valid_claims(problem)
    names = v.table.names
    valid = tuple((m, offset[names[c]] + i, names[c], i) for m, c, i in v.rows())
    return ProblemView(problem.member_ids, tuple(m.subscription for m in problem.members), topics, offset, size,
                       total, tuple(t for t in topics if t in wanted), valid, problem.members)


@last_call_cache
def output_view(problem: Problem, assignment: Assignment) -> OutputView:
    pv = problem_view(problem)
    known = set(pv.ids)
    ids = pv.ids + tuple(sorted(m for m in assignment.by_member if m not in known))
    member: list[int] = []
    topic: list[str] = []
    index: list[int] = []
    gid: list[int] = []
    piece: list[int] = []
    pieces = 0
    by_member = assignment.by_member
    offset, size = pv.offset, pv.size
    for mi, m in enumerate(ids):
        parts = by_member.get(m)
        if parts is None or not parts.count:
            continue
        parts = partitions_of(parts)
        codes, bounds, indices = parts.lists()
        names = parts.table.names
        for k, c in enumerate(codes):
            t = names[c]
            run = indices[bounds[k]:bounds[k + 1]]
            n, base = size.get(t, 0), offset.get(t, 0)
            member += [mi] * len(run)
            topic += [t] * len(run)
            piece += [pieces] * len(run)
            index += run
            gid += [base + i if 0 <= i < n else -1 for i in run]
            pieces += 1
    return OutputView(ids, tuple(member), tuple(topic), tuple(index), tuple(gid), tuple(piece))

__all__ = ["OutputView", "ProblemView", "is_small", "output_is_small", "output_view", "problem_view"]
