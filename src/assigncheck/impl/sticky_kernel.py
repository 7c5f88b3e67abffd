"""The general sticky assignor's passes over rows, compiled with numba: the pair table's rows
(`impl/sticky_pairs.py`), the deal of the flow's counts and the output grouped by member (`impl/sticky.py`). Each is a
counting sort or a walk over rows in one pass; in numpy they took about 90 numpy calls and the arithmetic between
them, more than the flow's solve on groups of a few hundred members. `general_rows` runs them all, with the settled
check and the flow, in one call. Imported by the fuzzer before atheris instruments `assigncheck.impl`, like
`impl/min_cost_flow.py` (and, through this module, `impl/already_settled.py`).
"""

from __future__ import annotations

import numpy as np
from numba import types

from assigncheck.impl.already_settled import optimally_balanced
from assigncheck.impl.min_cost_flow import SOLVED, banded_flow, compiled

_RO, _RO32 = types.Array(types.int64, 1, "C", readonly=True), types.Array(types.int32, 1, "C", readonly=True)


@compiled(types.UniTuple(types.int64[::1], 3)(_RO, _RO))
def topic_layout(sub_topic: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pair table's topics (`impl.sticky_pairs.PairTable.table`): those some subscription lists (`sub_topic`: codes
    of the metadata's topics, whose partition counts are `sizes`) and that have partitions. Returns their metadata
    codes, ascending; their global id offsets (one more entry: the total); and per metadata code, its code among
    them or -1."""
    wanted = np.zeros(len(sizes), dtype=np.bool_)
    for t in sub_topic:
        wanted[t] = sizes[t] > 0
    remap = np.full(len(sizes), -1, dtype=np.int64)
    count = 0
    for t in range(len(sizes)):
        if wanted[t]:
            remap[t] = count
            count += 1
    kept = np.empty(count, dtype=np.int64)
    offsets = np.zeros(count + 1, dtype=np.int64)
    for t in range(len(sizes)):
        k = remap[t]
        if k >= 0:
            kept[k] = t
            offsets[k + 1] = offsets[k] + sizes[t]
    return kept, offsets, remap


# complexity: a numba kernel, kept whole: its passes (pairs counted per node, laid out, claims placed) share the
# node starts, and splitting them would hand arrays across compiled calls for nothing.
@compiled(types.UniTuple(types.int64[::1], 6)(_RO, _RO, _RO, _RO, _RO, _RO, _RO, _RO, _RO, _RO, _RO, _RO32))
def pair_rows(member_sub: np.ndarray, order: np.ndarray, sub: np.ndarray, sub_topic: np.ndarray, remap: np.ndarray,
              offsets: np.ndarray, gid_node: np.ndarray, node_first: np.ndarray, node_count: np.ndarray,
              claim_member: np.ndarray, claim_topic: np.ndarray, claim_index: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(pair_node, pair_member, pair_owned, claim_pair, claim_gid) of `impl.sticky_pairs.PairTable`, and each member's
    subscription number in member id order.

    Member `order[k]` (a position among the problem's members) is the k-th by id; it has subscription
    `member_sub[order[k]]`, whose topics are the entries e with `sub[e]` that number (entries grouped by number,
    ascending), topic `sub_topic[e]` of the metadata: the table's topic `remap[..]` (-1: none) with global ids from
    `offsets`. Topic t's nodes are `node_first[t] .. + node_count[t]` and `gid_node` gives each global id its node;
    when `gid_node` is empty, the nodes are the topics. A pair per (node, member subscribed to its topic), in
    (node, member) order. The valid claims (member position, metadata topic code, index) come by member, then
    global id (`spec.ownership.valid_claims`), so a stable counting sort by pair leaves each pair's claims in index
    order."""
    n_members, n_claims, n_subs = len(order), len(claim_member), 0
    for s in member_sub:
        n_subs = max(n_subs, s + 1)
    sub_start = np.zeros(n_subs + 1, dtype=np.int64)
    for e in range(len(sub)):
        sub_start[sub[e] + 1] += 1
    for s in range(n_subs):
        sub_start[s + 1] += sub_start[s]
    position = np.empty(n_members, dtype=np.int64)
    by_id = np.empty(n_members, dtype=np.int64)  # subscription numbers in id order
    for k in range(n_members):
        position[order[k]] = k
        by_id[k] = member_sub[order[k]]
    topics = len(offsets) - 1
    aware = len(gid_node) > 0
    n_nodes = node_first[topics - 1] + node_count[topics - 1] if aware else topics  # aware: some partition exists
    start = np.zeros(n_nodes + 1, dtype=np.int64)
    for m in range(n_members):
        s = by_id[m]
        for e in range(sub_start[s], sub_start[s + 1]):
            t = remap[sub_topic[e]]
            if t >= 0:
                first, count = (node_first[t], node_count[t]) if aware else (t, 1)
                for k in range(first, first + count):
                    start[k + 1] += 1
    for k in range(n_nodes):
        start[k + 1] += start[k]
    pairs = start[n_nodes]
    pair_node, pair_member = np.empty(pairs, dtype=np.int64), np.empty(pairs, dtype=np.int64)
    fill = start[:n_nodes].copy()
    for m in range(n_members):  # members in order: each node's pairs come out by member
        s = by_id[m]
        for e in range(sub_start[s], sub_start[s + 1]):
            t = remap[sub_topic[e]]
            if t >= 0:
                first, count = (node_first[t], node_count[t]) if aware else (t, 1)
                for k in range(first, first + count):
                    pair_node[fill[k]], pair_member[fill[k]] = k, m
                    fill[k] += 1
    claim_pair, claim_gid = np.empty(n_claims, dtype=np.int64), np.empty(n_claims, dtype=np.int64)
    owned = np.zeros(pairs, dtype=np.int64)
    for i in range(n_claims):
        t = remap[claim_topic[i]]
        if t < 0:
            raise ValueError("a valid claim of a topic no member subscribes to")
        g = offsets[t] + claim_index[i]
        k = gid_node[g] if aware else t
        m = position[claim_member[i]]
        lo, hi = start[k], start[k + 1]
        while lo < hi:  # the node's first pair whose member is not below m
            mid = (lo + hi) >> 1
            if pair_member[mid] < m:
                lo = mid + 1
            else:
                hi = mid
        if lo == start[k + 1] or pair_member[lo] != m:
            raise ValueError("a valid claim without its (node, member) pair")
        claim_pair[i], claim_gid[i] = lo, g
        owned[lo] += 1
    at = np.zeros(pairs + 1, dtype=np.int64)
    for p in range(pairs):
        at[p + 1] = at[p] + owned[p]
    by_pair, gid = np.empty(n_claims, dtype=np.int64), np.empty(n_claims, dtype=np.int64)
    for i in range(n_claims):
        j = at[claim_pair[i]]
        by_pair[j], gid[j] = claim_pair[i], claim_gid[i]
        at[claim_pair[i]] += 1
    return pair_node, pair_member, owned, by_pair, gid, by_id


@compiled("void(int64[::1], int64[::1], int64[::1], int64)")
def _redeal(owner: np.ndarray, free: np.ndarray, member_class: np.ndarray, classes: int) -> None:
    """Every class of identical subscriptions (and racks, on a rack-aware problem) deals the `free` partitions its
    members received again (`owner` updated in place): its pool in global id order, in laps over its members
    ordered by received count (descending), then id; lap k visits those that received more than k, a prefix of
    that order. Each member keeps its count, and each topic, a contiguous run of the pool, goes to a run of a
    cyclic sequence of the class's members: split as evenly as the counts allow."""
    members, partitions = len(member_class), len(owner)
    need = np.zeros(members, dtype=np.int64)
    pooled = np.zeros(partitions, dtype=np.bool_)
    for g in free:
        need[owner[g]] += 1
        pooled[g] = True
    most = 0
    for m in range(members):
        most = max(most, need[m])
    at = np.zeros(classes + 1, dtype=np.int64)  # the pools, by class, each in global id order
    for g in range(partitions):
        if pooled[g]:
            at[member_class[owner[g]] + 1] += 1
    for c in range(classes):
        at[c + 1] += at[c]
    pool = np.empty(len(free), dtype=np.int64)
    for g in range(partitions):
        if pooled[g]:
            c = member_class[owner[g]]
            pool[at[c]] = g
            at[c] += 1
    order = np.argsort(member_class * (most + 1) + (most - need), kind="mergesort")  # (class, received desc, id)
    k, i = 0, 0
    while i < members:
        end = i
        while end < members and member_class[order[end]] == member_class[order[i]]:
            end += 1
        for lap in range(need[order[i]]):
            t = i
            while t < end and need[order[t]] > lap:
                owner[pool[k]] = order[t]
                k += 1
                t += 1
        i = end


# complexity: a numba kernel, kept whole (its one separable part, `_redeal`, is already apart): its passes share
# `owner` and `free` in place, and its compiled loop nest is what docs/PERFORMANCE.md measured.
@compiled("int64[::1](" + ", ".join(["int64[::1]"] * 7) + ", int64)")
def deal(pair_member: np.ndarray, keep: np.ndarray, new: np.ndarray, claim_pair: np.ndarray, claim_gid: np.ndarray,
         gid_node: np.ndarray, member_class: np.ndarray, partitions: int) -> np.ndarray:
    """The owner per global id (`impl/sticky.py`'s placement): each pair keeps its `keep` lowest claims (claims by
    (pair, global id)); the partitions nobody keeps, in (node, global id) order (`gid_node` per global id, or empty
    when nodes are topics), go to the pairs' receivers in pair order, `new` each; then, where some class of
    `member_class` has two receivers, `_redeal` deals each class's received partitions again."""
    owner = np.full(partitions, -1, dtype=np.int64)
    rank = 0
    for i in range(len(claim_pair)):
        p = claim_pair[i]
        rank = rank + 1 if i > 0 and claim_pair[i - 1] == p else 0
        if rank < keep[p]:
            owner[claim_gid[i]] = pair_member[p]
    count = 0
    for g in range(partitions):
        count += owner[g] < 0
    free = np.empty(count, dtype=np.int64)
    if len(gid_node):  # (node, global id) order: a stable counting sort by node
        at = np.zeros(partitions + 1, dtype=np.int64)
        for g in range(partitions):
            if owner[g] < 0:
                at[gid_node[g] + 1] += 1
        for k in range(partitions):
            at[k + 1] += at[k]
        for g in range(partitions):
            if owner[g] < 0:
                free[at[gid_node[g]]] = g
                at[gid_node[g]] += 1
    else:
        j = 0
        for g in range(partitions):
            if owner[g] < 0:
                free[j] = g
                j += 1
    j = 0
    for p in range(len(pair_member)):
        for _ in range(new[p]):
            if j == count:
                raise ValueError("the flow hands out more partitions than are free")
            owner[free[j]] = pair_member[p]
            j += 1
    if j != count:
        raise ValueError("the flow leaves free partitions unassigned")
    classes = 0
    for m in range(len(member_class)):
        classes = max(classes, member_class[m] + 1)
    seen = np.full(classes, -1, dtype=np.int64)
    shared = False
    for j in range(count):
        m = owner[free[j]]
        c = member_class[m]
        shared |= seen[c] >= 0 and seen[c] != m
        seen[c] = m
    if shared:
        _redeal(owner, free, member_class, classes)
    return owner


@compiled("Tuple((int64[::1], int64[::1], int32[::1]))(int64[::1], int64[::1], int64)")
def rows_by_member(owner: np.ndarray, offsets: np.ndarray, members: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(member, topic code, index) rows for `owner` (a member per global id; topic k holds the ids offsets[k] ..
    offsets[k+1]-1), sorted by (member, topic, index): a stable counting sort by member of the ids in order."""
    at = np.zeros(members + 1, dtype=np.int64)
    for g in range(len(owner)):
        at[owner[g] + 1] += 1
    for m in range(members):
        at[m + 1] += at[m]
    member_row, topic_row = np.empty(len(owner), dtype=np.int64), np.empty(len(owner), dtype=np.int64)
    index_row = np.empty(len(owner), dtype=np.int32)
    t = 0
    for g in range(len(owner)):
        while offsets[t + 1] <= g:
            t += 1
        j = at[owner[g]]
        member_row[j], topic_row[j], index_row[j] = owner[g], t, g - offsets[t]
        at[owner[g]] += 1
    return member_row, topic_row, index_row


SETTLED = -1  # `general_rows`: the claims are the answer (impl/sticky.py, case 2); else a `banded_flow` status


# complexity: the steps of impl/sticky.py's cases 2 and 3 in order, each one call of its own kernel; one compiled
# call because the Python between them (a dozen array calls, a dataclass, five dispatches) cost a tenth of an assign
# of 200 members.
@compiled(types.Tuple((types.int64, types.int64[::1], types.int64[::1], types.int64[::1], types.int32[::1]))(
    _RO, _RO, _RO, _RO, _RO, _RO, _RO, _RO32))
def general_rows(member_sub: np.ndarray, order: np.ndarray, sub: np.ndarray, sub_topic: np.ndarray, sizes: np.ndarray,
                 claim_member: np.ndarray, claim_topic: np.ndarray, claim_index: np.ndarray
                 ) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`impl/sticky.py`'s cases 2 and 3 where the nodes are the topics (no rack awareness): `topic_layout` and
    `pair_rows` (the arguments are theirs; `sizes`: the metadata's partition counts), then, when every partition is
    validly claimed, the settled check (`SETTLED`: keep the claims), else the banded flow at its lower bound,
    `deal` and `rows_by_member`. Returns the outcome (`SETTLED` or the flow's status), the pair table's topics (as
    `topic_layout` gives them) and, when the flow is solved, the output's rows grouped by member (in id order)."""
    kept, offsets, remap = topic_layout(sub_topic, sizes)
    none = np.zeros(0, dtype=np.int64)
    pair_topic, pair_member, pair_owned, claim_pair, claim_gid, member_class = pair_rows(
        member_sub, order, sub, sub_topic, remap, offsets, none, none, none, claim_member, claim_topic, claim_index)
    members, partitions = len(order), offsets[-1]
    no_rows = np.zeros(0, dtype=np.int32)
    if len(claim_gid) == partitions:
        counts = np.zeros(members, dtype=np.int64)
        for i in range(len(pair_member)):
            counts[pair_member[i]] += pair_owned[i]
        if optimally_balanced(counts, pair_topic, pair_member, pair_owned, len(kept)):
            return SETTLED, kept, none, none, no_rows
    keep, new = np.empty(len(pair_topic), dtype=np.int64), np.empty(len(pair_topic), dtype=np.int64)
    status = banded_flow(sizes[kept], pair_topic, pair_member, pair_owned, np.zeros(len(pair_topic), dtype=np.bool_),
                         members, 0, keep, new)
    if status != SOLVED:  # impl/sticky.py goes on step by step
        return status, kept, none, none, no_rows
    member_row, topic_row, index_row = rows_by_member(
        deal(pair_member, keep, new, claim_pair, claim_gid, none, member_class, partitions), offsets, members)
    return status, kept, member_row, topic_row, index_row


__all__ = ["SETTLED", "deal", "general_rows", "pair_rows", "rows_by_member", "topic_layout"]
