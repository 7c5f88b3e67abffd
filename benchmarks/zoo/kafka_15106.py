"""KAFKA-15106 (e0b7499103d, 2023-08; a 3.5.0 regression): the general (unequal subscriptions) path of
the sticky and cooperative-sticky assignors, two bugs.

(a) Owner map: `allPreviousPartitionsToOwner.put` ran before the generation check, so when one partition
is claimed over several generations the map names the last claimant listed, not the newest; moving the
partition then removed it from the wrong member's list, and the real owner kept it too -> double
assignment. Triggering shape: unequal subscriptions, one partition claimed over 3 generations (test
...With3Generation; e.g. t0, t1 with 3 partitions each, c0 -> {t0} at generation 3, c1 -> {t0, t1} at 2,
c2 -> {t0, t1} at 1, all three claim t0-0). Expected: H4.
(b) `isBalanced` compared `size < otherSize` instead of `size + 1 < otherSize`, so any two members sharing
a topic whose counts differ by one looked unbalanced and `performReassignments` moved a partition back
and forth (a user saw 200 rebalances in 10 minutes). This copy gives up after `MAX_MOVES` moves, the
rebalance timeout. Triggering shape: unequal subscriptions and two members sharing a topic whose
counts differ by one (e.g. t0 with 3 partitions, c0 subscribes to t0, c1 to t0 and t1). Expected: H7.
"""

from __future__ import annotations

from assigncheck.impl.cooperative import CooperativeStickyAssignor, withhold
from assigncheck.impl.sticky import assign_general_sticky
from assigncheck.spec.model import Assignment, Problem

MAX_MOVES = 1000


def _claims_over_generations(problem: Problem) -> dict[tuple[str, int], str]:
    """Partition -> the last claimant listed (member order as sent) when its claimants' generations differ."""
    seen: dict[tuple[str, int], list[tuple[str, int]]] = {}
    for m in problem.members:
        for topic, arr in m.owned.items():
            if topic in m.subscription and topic in problem.topics:
                for i in sorted({int(i) for i in arr.tolist() if 0 <= i < problem.topics[topic]}):
                    seen.setdefault((topic, i), []).append((m.member_id, m.generation))
    return {tp: who[-1][0] for tp, who in seen.items() if len({g for _, g in who}) > 1}

BREAKS = "cooperative-sticky"  # the built-in assignor this entry breaks


class Assignor(CooperativeStickyAssignor):
    name = "zoo-KAFKA-15106"
    spec = f"{__name__}:Assignor"  # how other processes (fuzz jobs, Spark executors) load it again

    def assign(self, problem: Problem) -> Assignment:
        if problem.subscriptions_equal():
            return super().assign(problem)
        out = assign_general_sticky(problem).as_lists()
        # (b) performReassignments with the missing +1
        subscribed = {m.member_id: m.subscription for m in problem.members}
        for _ in range(MAX_MOVES):
            move = _unbalanced_pair(out, subscribed)
            if move is None:
                break
            source, target, topic, i = move
            out[source][topic].remove(i)
            out[target].setdefault(topic, []).append(i)
        else:
            raise RuntimeError(f"performReassignments still moving after {MAX_MOVES} moves (rebalance timeout)")
        # (a) the wrong owner map: the listed-last claimant is restored as owner, the real one keeps it
        for (topic, i), member in sorted(_claims_over_generations(problem).items()):
            if i not in out[member].get(topic, []):
                out[member].setdefault(topic, []).append(i)
        eager = Assignment.of(out)
        return eager if problem.protocol == "eager" else withhold(problem, eager)


def _unbalanced_pair(out: dict[str, dict[str, list[int]]], subscribed: dict) -> tuple[str, str, str, int] | None:
    counts = {m: sum(len(v) for v in parts.values()) for m, parts in out.items()}
    for source in sorted(out):
        for topic in sorted(out[source]):
            for target in sorted(out):
                # the bug: `counts[target] < counts[source]` instead of `counts[target] + 1 < counts[source]`
                if out[source][topic] and topic in subscribed[target] and counts[target] < counts[source]:
                    return source, target, topic, out[source][topic][0]
    return None
