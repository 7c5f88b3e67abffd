"""Optimum oracles by min-cost flow (OR-Tools): the best balance and the most retained partitions.

The network is compact because the partitions of one topic are interchangeable up to who validly
owned them (docs/SPEC.md §2):

    source --n_t--> topic t --"retained": cap |V_m ∩ t|, cost -1--> member m --unit arcs--> sink
                           \\--"new":      cap n_t,       cost  0--/

Member m's k-th unit arc costs `weight * (2k - 1)`, so m's arcs cost `weight * count_m**2` in total
(convex, so the solver fills them in order). With `weight` above the largest possible retained count,
balance (minimum Σ count²) dominates and retained breaks ties. A member gets unit arcs only up to
`cap`, the smallest feasible maximum count (found by max flow): the least-squares assignment also
minimises the maximum count, so the cap cuts nothing optimal away and keeps the arc count near P.

For "perfect" balance the unit arcs are replaced by the bounds P // C <= count <= ceil(P / C): the
lower bound becomes a demand at the member node, the rest one arc of capacity ceil - floor.

**Two paths, one answer**: `oracle_for` picks, per problem, `SMALL` (`spec.small.oracle`: the same network from
plain lists, and the minimum Σ count² by exchanges without a flow, for small problems: `spec.small.views.is_small`)
or `VECTORIZED` (this module's numpy network); `tests/spec/small/test_oracle.py` holds them equal.

**Once per problem**: each figure (`optimal_sum_squares`, `max_retained`, `min_mismatches`) is answered once per
problem and question (`Problem.derived`), so the checks of one report ask the oracle once; `settle_max_retained` and
`settle_min_mismatches` record a figure an output proved without a flow (`spec.small.assignment_check
.certify_max_retained`). OR-Tools is imported by the functions that solve, so only checks that need an optimum pay
for its import.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from assigncheck.spec.errors import InputError
from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.ownership import valid_claims, valid_owned
from assigncheck.spec.partition_rows import layout, valid_rows
from assigncheck.spec.racks import rack_aware, rack_layout
from assigncheck.spec.small.oracle import balanced_counts, figures
from assigncheck.spec.small.views import is_small

MAX_RETAINED_BALANCES = ("none", "perfect", "optimal")


@dataclass(frozen=True)
class _Network:
    """The problem reduced to what the flow needs: members sorted by id, topics by name, and one row
    per subscribed (topic, member) pair, ordered by topic then member."""

    topics: tuple[str, ...]  # subscribed existing topics with at least one partition
    sizes: np.ndarray  # partitions per topic
    members: tuple[str, ...]
    pair_topic: np.ndarray
    pair_member: np.ndarray
    pair_owned: np.ndarray  # |valid_owned(member) ∩ topic|
    owned: dict[tuple[int, int], np.ndarray]  # (topic pos, member pos) -> validly owned indices, sorted
    pair_mismatch: np.ndarray  # per pair: its member's rack is on none of its partitions' replicas (spec.racks)

    @property
    def partitions(self) -> int:
        return int(self.sizes.sum())

    def degrees(self) -> np.ndarray:
        """Per member: how many partitions it could take (Σ sizes of its subscribed topics)."""
        return np.bincount(self.pair_member, weights=self.sizes[self.pair_topic], minlength=len(self.members))


def _network(problem: Problem, racks: bool = False) -> _Network:
    """With `racks` on a rack-aware problem (`spec.racks`), a topic's node splits into one node per rack set of
    its partitions (partitions with equal topic and racks are interchangeable), and each pair knows whether
    its member mismatches that rack set."""
    if not racks or not rack_aware(problem):
        return _topic_network(problem)
    rl = rack_layout(problem)
    lay = layout(problem)
    members = tuple(sorted(m.member_id for m in problem.members))
    pos = {m: i for i, m in enumerate(members)}
    sorted_pos = np.array([pos[m.member_id] for m in problem.members], dtype=np.int64)
    topics = [t for t in problem.subscribed_topics() if problem.topics[t] > 0]
    subscribers: dict[str, list[int]] = {t: [] for t in topics}
    for m in problem.members:
        for t in m.subscription:
            if t in subscribers:
                subscribers[t].append(pos[m.member_id])
    gid_group = np.full(lay.total, -1, dtype=np.int64)
    names: list[str] = []
    sizes: list[int] = []
    pair_group: list[np.ndarray] = []
    pair_member: list[np.ndarray] = []
    mismatch: list[np.ndarray] = []
    rack_of_sorted = np.full(len(members), -1, dtype=np.int64)
    rack_of_sorted[sorted_pos] = rl.member_rack
    for topic in topics:
        k = lay.code[topic]
        lo, n = int(lay.offsets[k]), int(lay.sizes[k])
        sets, inverse, counts = np.unique(rl.partition_set[lo:lo + n], return_inverse=True, return_counts=True)
        gid_group[lo:lo + n] = len(names) + inverse
        subs = np.sort(np.array(subscribers[topic], dtype=np.int64))
        rack = rack_of_sorted[subs]
        for s, c in zip(sets.tolist(), counts.tolist()):
            pair_group.append(np.full(len(subs), len(names), dtype=np.int64))
            pair_member.append(subs)
            mismatch.append((rack >= 0) & ~rl.match[s, np.maximum(rack, 0)])
            names.append(topic)
            sizes.append(c)
    pair_topic = np.concatenate(pair_group + [_NONE])
    pair_members = np.concatenate(pair_member + [_NONE])
    pair_mismatch = np.concatenate(mismatch + [np.zeros(0, dtype=bool)])
    valid = valid_rows(problem)
    keys = pair_topic * max(len(members), 1) + pair_members
    owned_keys = gid_group[valid.gid] * max(len(members), 1) + sorted_pos[valid.member]
    pair_owned = np.zeros(len(keys), dtype=np.int64)
    if len(owned_keys):
        found, counts = np.unique(owned_keys, return_counts=True)
        pair_owned[np.searchsorted(keys, found)] = counts
    return _Network(tuple(names), np.array(sizes, dtype=np.int64), members, pair_topic, pair_members, pair_owned,
                    {}, pair_mismatch)


def _topic_network(problem: Problem) -> _Network:
    members = tuple(sorted(m.member_id for m in problem.members))
    pos = {m: i for i, m in enumerate(members)}
    topics = tuple(t for t in problem.subscribed_topics() if problem.topics[t] > 0)
    tpos = {t: i for i, t in enumerate(topics)}
    by_topic: list[list[int]] = [[] for _ in topics]
    for m in problem.members:
        for topic in m.subscription:
            if topic in tpos:
                by_topic[tpos[topic]].append(pos[m.member_id])
    pair_topic = np.concatenate([np.full(len(s), t, dtype=np.int64) for t, s in enumerate(by_topic)] + [_NONE])
    pair_member = np.concatenate([np.sort(np.array(s, dtype=np.int64)) for s in by_topic] + [_NONE])
    owned = {}
    for member_id, parts in valid_owned(problem).items():
        for topic, arr in parts.items():
            if topic in tpos:
                owned[(tpos[topic], pos[member_id])] = np.asarray(arr, dtype=np.int64)
    keys = pair_topic * max(len(members), 1) + pair_member  # sorted, so owned pairs are found by search
    pair_owned = np.zeros(len(keys), dtype=np.int64)
    if owned:
        owned_keys = np.array([t * len(members) + m for t, m in owned], dtype=np.int64)
        pair_owned[np.searchsorted(keys, owned_keys)] = [len(arr) for arr in owned.values()]
    sizes = np.array([problem.topics[t] for t in topics], dtype=np.int64)
    return _Network(topics, sizes, members, pair_topic, pair_member, pair_owned, owned,
                    np.zeros(len(pair_topic), dtype=bool))


_NONE = np.zeros(0, dtype=np.int64)


def _feasible_with_cap(net: _Network, cap: int) -> bool:
    """Can every partition be assigned with no member above `cap`? (max flow)"""
    from ortools.graph.python import max_flow  # here: only a check that needs an optimum pays for OR-Tools

    flow = max_flow.SimpleMaxFlow()
    t0, m0 = 2, 2 + len(net.topics)
    n_topics, n_members = len(net.topics), len(net.members)
    flow.add_arcs_with_capacity(np.zeros(n_topics, dtype=np.int64), t0 + np.arange(n_topics), net.sizes)
    flow.add_arcs_with_capacity(t0 + net.pair_topic, m0 + net.pair_member, net.sizes[net.pair_topic])
    flow.add_arcs_with_capacity(m0 + np.arange(n_members), np.ones(n_members, dtype=np.int64),
                                np.full(n_members, cap, dtype=np.int64))
    if flow.solve(0, 1) != flow.OPTIMAL:
        raise RuntimeError("max flow failed")
    return flow.optimal_flow() == net.partitions


def _min_max_count(net: _Network) -> int:
    """The smallest maximum member count of a complete assignment (exponential, then binary search)."""
    if net.partitions == 0:
        return 0
    lo = -(-net.partitions // len(net.members))  # pigeonhole: nobody can do better
    hi = lo
    top = int(net.degrees().max())  # always feasible: nobody is capped below what it could take
    while not _feasible_with_cap(net, hi):
        lo, hi = hi + 1, min(2 * hi, top)
    while lo < hi:
        mid = (lo + hi) // 2
        if _feasible_with_cap(net, mid):
            hi = mid
        else:
            lo = mid + 1
    return hi


@dataclass(frozen=True)
class _Flow:
    counts: np.ndarray  # per member
    retained: np.ndarray  # per pair: units on the "retained" arc
    new: np.ndarray  # per pair: units on the "new" arc
    mismatched: int  # partitions given to members whose rack none of their replicas is on


def _solve(net: _Network, *, balance: str) -> _Flow | None:
    """balance "optimal": minimum weight·Σcount² - retained; "perfect": counts within
    [P // C, ceil(P / C)], most retained; "none": most retained. On a rack network (`_network(racks=True)`)
    every mismatched unit also costs `rack`, above any retention difference and below any balance one, so
    the optimum has the fewest mismatches under the balance and then the most retained (spec.racks).
    None when infeasible (only possible for "perfect")."""
    from ortools.graph.python import min_cost_flow  # here: only a check that needs an optimum pays for OR-Tools

    flow = min_cost_flow.SimpleMinCostFlow()
    src, sink, t0, m0 = 0, 1, 2, 2 + len(net.topics)
    total, n_topics, n_members = net.partitions, len(net.topics), len(net.members)
    n_pairs = len(net.pair_topic)
    flow.add_arcs_with_capacity_and_unit_cost(
        np.full(n_topics, src, dtype=np.int64), t0 + np.arange(n_topics), net.sizes, np.zeros(n_topics, dtype=np.int64)
    )
    tails, heads = t0 + net.pair_topic, m0 + net.pair_member
    first = flow.num_arcs()  # arcs first .. first+n_pairs are "retained", the next n_pairs "new"
    rack = int(net.pair_owned.sum()) + 1 if net.pair_mismatch.any() else 0
    rack_cost = rack * net.pair_mismatch.astype(np.int64)
    flow.add_arcs_with_capacity_and_unit_cost(tails, heads, net.pair_owned, rack_cost - 1)
    flow.add_arcs_with_capacity_and_unit_cost(tails, heads, net.sizes[net.pair_topic], rack_cost)
    supplies = np.zeros(m0 + n_members, dtype=np.int64)
    supplies[src], supplies[sink] = total, -total
    members = np.arange(n_members, dtype=np.int64)
    if balance == "optimal":
        weight = rack * total + int(net.pair_owned.sum()) + 1  # above any difference in mismatches and retained
        degrees = net.degrees().astype(np.int64)
        # Capping at the smallest feasible maximum only shrinks the network; on small ones the max flows that
        # find it cost more than the arcs they save.
        per_member = degrees if total <= SMALL_PARTITIONS else np.minimum(_min_max_count(net), degrees)
        who = np.repeat(members, per_member)
        k = np.arange(len(who)) - np.repeat(np.cumsum(per_member) - per_member, per_member) + 1
        flow.add_arcs_with_capacity_and_unit_cost(
            m0 + who, np.full(len(who), sink, dtype=np.int64), np.ones(len(who), dtype=np.int64), weight * (2 * k - 1)
        )
    elif balance == "none":
        flow.add_arcs_with_capacity_and_unit_cost(
            m0 + members, np.full(n_members, sink, dtype=np.int64), net.degrees().astype(np.int64),
            np.zeros(n_members, dtype=np.int64))
    else:  # "perfect": the lower bound `floor` becomes a demand at the member itself
        floor, ceil = total // n_members, -(-total // n_members)
        supplies[m0:] = -floor
        supplies[sink] = -(total - floor * n_members)
        flow.add_arcs_with_capacity_and_unit_cost(
            m0 + members, np.full(n_members, sink, dtype=np.int64),
            np.full(n_members, ceil - floor, dtype=np.int64), np.zeros(n_members, dtype=np.int64),
        )
    flow.set_nodes_supplies(np.arange(len(supplies)), supplies)
    status = flow.solve()
    if status == flow.INFEASIBLE:
        return None
    if status != flow.OPTIMAL:
        raise RuntimeError(f"min cost flow ended with status {status}")
    retained = flow.flows(np.arange(first, first + n_pairs))
    new = flow.flows(np.arange(first + n_pairs, first + 2 * n_pairs))
    counts = np.bincount(net.pair_member, weights=retained + new, minlength=n_members).astype(np.int64)
    return _Flow(counts, retained, new, int(((retained + new) * net.pair_mismatch).sum()))


SMALL_PARTITIONS = 64


@dataclass(frozen=True)
class _Figures:
    """What the oracle answers from one optimal flow."""

    sum_squares: int | None  # only under "optimal" balance
    mismatched: int
    retained: int


_EMPTY = _Figures(0, 0, 0)  # a group without members


def _flow(problem: Problem, balance: str, racks: bool) -> _Figures | None:
    """The optimum under `balance` (and, with `racks` on a rack-aware problem, the fewest mismatches first, then the
    most retained), once per problem and question: one solve answers `optimal_sum_squares`, `max_retained` and
    `min_mismatches` alike. None when infeasible. `oracle_for` picks the path."""
    racks = racks and rack_aware(problem)

    def solve(p: Problem) -> _Figures | None:
        return oracle_for(p).figures(p, balance, racks) if p.members else _EMPTY

    return problem.derived(f"oracle_flow:{balance}:{racks}", solve)


def _flow_figures(problem: Problem, balance: str, racks: bool) -> _Figures | None:
    result = _solve(_network(problem, racks), balance=balance)
    if result is None:
        return None
    squares = int((result.counts**2).sum()) if balance == "optimal" else None
    return _Figures(squares, result.mismatched, int(result.retained.sum()))


def _plain_figures(problem: Problem, balance: str, racks: bool) -> _Figures | None:
    small = figures(problem, balance, racks)
    return None if small is None else _Figures(*small)


def _flow_sum_squares(problem: Problem) -> int:
    result = _flow(problem, "optimal", False)
    assert result is not None and result.sum_squares is not None  # every subscribed partition has a subscriber
    return result.sum_squares


class _Oracle(NamedTuple):
    """One way to compute the oracle's answers (module docstring)."""

    figures: Callable[[Problem, str, bool], _Figures | None]  # the optimum under (balance, racks); needs members
    sum_squares: Callable[[Problem], int]  # the minimum Σ count²


VECTORIZED = _Oracle(_flow_figures, _flow_sum_squares)
SMALL = _Oracle(_plain_figures, lambda p: sum(c * c for c in balanced_counts(p)))


def oracle_for(problem: Problem) -> _Oracle:
    """The plain-Python path for a small problem, the numpy network otherwise: the one place the choice is made."""
    return SMALL if is_small(problem) else VECTORIZED


def optimal_sum_squares(problem: Problem) -> int:
    """The minimum Σ count² over complete assignments (H1-H5, eager) of `problem`."""
    return oracle_for(problem).sum_squares(problem)


def max_retained(problem: Problem, balance: str = "optimal", racks: bool = False) -> int | None:
    """The most validly owned partitions any complete assignment keeps, under a balance constraint.

    "none": no constraint (Σ |valid_owned|: valid ownerships are disjoint); "perfect": max - min
    count <= 1 over all members (None if impossible); "optimal": among the assignments with the
    minimum Σ count². With `racks` on a rack-aware problem (`spec.racks`): among those, only the ones with
    the fewest rack mismatches count (rack matching ranks above stickiness). Once per problem and question.
    """
    _check_balance(balance)
    return problem.derived(_answer_key("max_retained", balance, racks), lambda p: _max_retained(p, balance, racks))


def _max_retained(problem: Problem, balance: str, racks: bool) -> int | None:
    if balance == "none" and not (racks and rack_aware(problem)):
        return len(valid_claims(problem).member)  # valid claims are of subscribed topics, disjoint
    result = _flow(problem, balance, racks)
    return None if result is None else result.retained


def min_mismatches(problem: Problem, balance: str = "optimal") -> int | None:
    """The fewest rack mismatches (`spec.racks.mismatches`) of a complete assignment under `balance` ("none",
    "perfect", "optimal"); 0 when the problem is not rack-aware, None when no assignment meets the balance. Once
    per problem and balance."""
    _check_balance(balance)
    return problem.derived(_answer_key("min_mismatches", balance, True), lambda p: _min_mismatches(p, balance))


def _min_mismatches(problem: Problem, balance: str) -> int | None:
    if not rack_aware(problem):
        return 0
    result = _flow(problem, balance, True)
    return None if result is None else result.mismatched


def _check_balance(balance: str) -> None:
    if balance not in MAX_RETAINED_BALANCES:
        raise InputError("balance", f"must be one of {', '.join(MAX_RETAINED_BALANCES)}, got {balance!r}")


def _answer_key(figure: str, balance: str, racks: bool) -> str:
    """Where a problem keeps the oracle's answer to `figure` ("max_retained", "min_mismatches") under `balance`
    (and `racks`): one key whether the flow answered or an output settled it."""
    return f"oracle:{figure}:{balance}:{racks}"


def settle_max_retained(problem: Problem, balance: str, racks: bool, value: int) -> None:
    """Record `max_retained(problem, balance, racks)` proved without the flow (a feasible assignment that reaches an
    upper bound: `spec.small.assignment_check.certify_max_retained`); an answer already there is kept (equal)."""
    problem.derived(_answer_key("max_retained", balance, racks), lambda _: value)


def settle_min_mismatches(problem: Problem, balance: str, value: int) -> None:
    """Record `min_mismatches(problem, balance)` proved without the flow (an output meeting the balance with no
    mismatch)."""
    problem.derived(_answer_key("min_mismatches", balance, True), lambda _: value)


def optimal_assignment(problem: Problem) -> Assignment:
    """One optimum: minimum Σ count², then the most retained.

    Placement is deterministic: a member keeps the lowest indices of its valid ownership; the rest of
    each topic, in index order, goes to its "new" receivers in member-id order. In an optimal flow a
    member with a "new" unit of a topic keeps all it owns there, so nobody is handed back its own.
    """
    net = _network(problem)
    by_member: dict[str, dict[str, np.ndarray]] = {m: {} for m in net.members}
    if not net.members:
        return Assignment.of({})
    result = _solve(net, balance="optimal")
    assert result is not None
    starts = np.searchsorted(net.pair_topic, np.arange(len(net.topics) + 1))
    for t, topic in enumerate(net.topics):
        rows = range(starts[t], starts[t + 1])
        taken = np.zeros(net.sizes[t], dtype=bool)
        kept = {}
        for row in rows:
            if result.retained[row]:
                m = int(net.pair_member[row])
                kept[m] = net.owned[(t, m)][: result.retained[row]]
                taken[kept[m]] = True
        pool = np.flatnonzero(~taken)
        cut = np.cumsum([0] + [int(result.new[row]) for row in rows])
        for i, row in enumerate(rows):
            m = int(net.pair_member[row])
            mine = np.concatenate([kept.get(m, _NONE), pool[cut[i] : cut[i + 1]]])
            if len(mine):
                by_member[net.members[m]][topic] = mine
    return Assignment.of(by_member)

def least_mix_cost(previous: dict[str, int], keep: int, sizes: dict[str, int]) -> int:
    """The least `spec.streams_checks.mix_cost` of keeping `keep` of a Streams client's previous actives (`previous`:
    how many of each sub-topology), by trying every split: exponential, for small problems, the oracle that
    `spec.reference.streams.kept_mix`'s greedy choice (what `streams.mix` compares with) is held to."""
    # here: the Streams checks import spec.assignment_check, which imports this module
    from assigncheck.spec.streams_checks import mix_cost

    names = sorted(previous)
    best: int | None = None
    for split in itertools.product(*(range(previous[s] + 1) for s in names)):
        if sum(split) == keep:
            cost = mix_cost(dict(zip(names, split)), keep, sizes)
            best = cost if best is None else min(best, cost)
    if best is None:
        raise ValueError(f"cannot keep {keep} of {sum(previous.values())} previous actives")
    return best


__all__ = ["least_mix_cost", "max_retained", "min_mismatches", "optimal_assignment", "optimal_sum_squares",
           "settle_max_retained", "settle_min_mismatches"]
