"""The general `sticky` as it was at commit 5cfb106: `impl/flow.py` and `impl/sticky.py`
in one module, unchanged but for the imports. `bench_sticky` times it in the same run as the current one,
so the before/after ratio needs no figures from another day."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from ortools.graph.python import max_flow, min_cost_flow

from assigncheck.impl.problem_kind import require_problem
from assigncheck.spec.model import AnyProblem, Assignment, Problem
from assigncheck.spec.ownership import valid_owned
from assigncheck.spec.promises import Promises


@dataclass(frozen=True)
class PairFlows:
    """Per (topic, member) pair, in the order given: partitions kept and partitions received."""

    keep: np.ndarray
    new: np.ndarray


def _min_max_count(sizes: np.ndarray, pair_topic: np.ndarray, pair_member: np.ndarray,
                   reach: np.ndarray) -> int:
    """The smallest B such that every partition can be placed with no member above B."""
    n_topics, n_members = len(sizes), len(reach)
    total = int(sizes.sum())
    active = int((reach > 0).sum())
    per_topic = np.bincount(pair_topic, minlength=n_topics)
    lo = max(-(-total // active), int((-(-sizes // np.maximum(per_topic, 1))).max()))
    hi = int(reach.max())
    if lo >= hi:
        return hi
    source, sink = n_topics + n_members, n_topics + n_members + 1
    flow = max_flow.SimpleMaxFlow()
    flow.add_arcs_with_capacity(np.full(n_topics, source), np.arange(n_topics), sizes)
    flow.add_arcs_with_capacity(pair_topic, n_topics + pair_member, sizes[pair_topic])
    member_arcs = flow.add_arcs_with_capacity(n_topics + np.arange(n_members), np.full(n_members, sink),
                                              np.zeros(n_members, dtype=np.int64))

    def feasible(bound: int) -> bool:
        flow.set_arcs_capacity(member_arcs, np.minimum(reach, bound))
        if flow.solve(source, sink) != flow.OPTIMAL:
            raise RuntimeError("max flow failed")
        return flow.optimal_flow() == total

    # The answer is in [lo, hi] (hi is always feasible) and usually at lo or just above: gallop up from
    # lo, then bisect the last gap.
    step = 1
    while lo < hi:
        probe = min(lo + step - 1, hi)
        if feasible(probe):
            hi = probe
            break
        lo, step = probe + 1, step * 2
    while lo < hi:
        mid = (lo + hi) // 2
        if feasible(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def solve_counts(sizes: np.ndarray, pair_topic: np.ndarray, pair_member: np.ndarray,
                 pair_owned: np.ndarray, n_members: int) -> PairFlows:
    """Optimal keep/new counts per pair. Pairs must be sorted by (topic, member); every topic must
    have at least one pair. `pair_owned[i]` = valid claims of that member on that topic."""
    sizes = sizes.astype(np.int64)
    n_topics = len(sizes)
    n_pairs = len(pair_topic)
    if n_pairs == 0 or int(sizes.sum()) == 0:
        zero = np.zeros(n_pairs, dtype=np.int64)
        return PairFlows(zero, zero.copy())
    reach = np.bincount(pair_member, weights=sizes[pair_topic], minlength=n_members).astype(np.int64)
    bound = _min_max_count(sizes, pair_topic, pair_member, reach)
    weight = int(pair_owned.sum()) + 1

    sink = n_topics + n_members
    net = min_cost_flow.SimpleMinCostFlow()
    heads = n_topics + pair_member
    keep_arcs = net.add_arcs_with_capacity_and_unit_cost(pair_topic, heads, pair_owned.astype(np.int64),
                                                         np.zeros(n_pairs, dtype=np.int64))
    new_arcs = net.add_arcs_with_capacity_and_unit_cost(pair_topic, heads, np.minimum(sizes[pair_topic], bound),
                                                        np.ones(n_pairs, dtype=np.int64))
    # Unit arcs member -> sink for its 1st, 2nd, ... partition, member by member.
    slots = np.minimum(reach, bound)
    tails = np.repeat(n_topics + np.arange(n_members), slots)
    starts = np.cumsum(slots) - slots
    kth = np.arange(int(slots.sum())) - np.repeat(starts, slots) + 1
    net.add_arcs_with_capacity_and_unit_cost(tails, np.full(len(tails), sink), np.ones(len(tails), dtype=np.int64),
                                             weight * (2 * kth - 1))
    supplies = np.zeros(sink + 1, dtype=np.int64)
    supplies[:n_topics] = sizes
    supplies[sink] = -int(sizes.sum())
    net.set_nodes_supplies(np.arange(sink + 1), supplies)
    status = net.solve()
    if status != net.OPTIMAL:
        raise RuntimeError(f"min-cost flow failed with status {status}")
    return PairFlows(net.flows(keep_arcs), net.flows(new_arcs))


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

    name = "sticky@5cfb106"
    promises = Promises(balance="optimal", stickiness="max_retained", fixpoint=True, order_independent=True)

    def assign(self, problem: AnyProblem) -> Assignment:
        return assign_general_sticky(require_problem(problem, self.name))
