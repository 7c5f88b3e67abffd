"""librdkafka #4783 / PR #4800 (C port of the cooperative-sticky assignor): endless reassignment loop.

Triggering shape: members with different subscriptions and fewer potential partitions than members for
some of them (e.g. t0 and t1 with one partition each, c0 -> {t0}, c1 -> {t0}, c2 -> {t1}).
`performReassignments` kept handing the partition to a member that had none, which left the previous
holder with none, forever, at 100% CPU. This copy stops after `MAX_MOVES` moves and raises, as the
rebalance timeout would. Expected finding: H7.
"""

from __future__ import annotations

from assigncheck.impl.cooperative import CooperativeStickyAssignor, withhold
from assigncheck.impl.sticky import assign_general_sticky
from assigncheck.spec.model import Assignment, Problem

MAX_MOVES = 10_000

BREAKS = "cooperative-sticky"  # the built-in assignor this entry breaks


class Assignor(CooperativeStickyAssignor):
    name = "zoo-librdkafka-4783"
    spec = f"{__name__}:Assignor"  # how other processes (fuzz jobs, Spark executors) load it again

    def assign(self, problem: Problem) -> Assignment:
        if problem.subscriptions_equal():
            return super().assign(problem)
        out = assign_general_sticky(problem).as_lists()
        members = sorted(problem.members, key=lambda m: m.member_id)
        for _ in range(MAX_MOVES):
            move = _starving_member(out, members)
            if move is None:
                eager = Assignment.of(out)
                return eager if problem.protocol == "eager" else withhold(problem, eager)
            source, target, topic, i = move
            out[source][topic].remove(i)
            out[target].setdefault(topic, []).append(i)
        raise RuntimeError(f"performReassignments still moving after {MAX_MOVES} moves")


def _starving_member(out: dict[str, dict[str, list[int]]], members: list) -> tuple[str, str, str, int] | None:
    """A member with no partition that could take one of its topics from a holder (the bug: even when that
    leaves the holder with none)."""
    for m in members:
        if any(out[m.member_id].values()):
            continue
        for source in sorted(out):
            for topic in sorted(out[source]):
                if topic in m.subscription and out[source][topic]:
                    return source, m.member_id, topic, out[source][topic][0]
    return None
