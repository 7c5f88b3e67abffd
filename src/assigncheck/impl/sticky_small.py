"""The general sticky assignor in plain Python for small problems (`spec.small.views.is_small`): the pair table
of `impl/sticky_pairs.py`, the settled check of `impl/already_settled.py`, the flow of `impl/flow_small.py` (the same
networks as `impl/flow.py`, so the same optimum) and the placement and class re-deal of `impl/sticky.py`, on lists.
`tests/impl/test_sticky_small.py` holds every output equal to the vectorized path.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import NamedTuple

from assigncheck.impl.flow_small import solve_counts
from assigncheck.spec.model import Assignment, Member, Problem, TopicTable
from assigncheck.spec.ownership import valid_claims, valid_owned
from assigncheck.spec.racks import member_rack, rack_aware, rack_layout


class SmallPairs:
    """`impl.sticky_pairs.PairTable` as lists: members by id, nodes (topics, or (topic, rack set)) by (topic, set id),
    pairs by (node, member), valid claims by (pair, global id)."""

    __slots__ = ("member_ids", "table", "offsets", "node_size", "node_topic", "gid_node", "pair_node", "pair_member",
                 "pair_owned", "pair_mismatch", "claim_pair", "claim_gid", "member_class")

    def __init__(self, problem: Problem) -> None:
        members = sorted(problem.members, key=attrgetter("member_id"))
        subs = [m.subscription for m in members]
        wanted = set().union(*subs) if members else set()
        table = TopicTable(t for t, size in problem.topics.items() if size > 0 and t in wanted)
        sizes = [problem.topics[t] for t in table.names]
        offsets = [0]
        for size in sizes:
            offsets.append(offsets[-1] + size)
        aware = rack_aware(problem)
        keys: Sequence[object] = [(m.subscription, member_rack(m.rack)) for m in members] if aware else subs
        classes: dict[object, int] = {}
        self.member_class = [classes.setdefault(k, len(classes)) for k in keys]
        topic_members = [[k for k in range(len(members)) if t in subs[k]] for t in table.names]
        nodes = _rack_nodes(problem, members, table, sizes, topic_members) if aware else _topic_nodes(sizes,
                                                                                                        topic_members)
        claims = _claims(problem, members, table, offsets, nodes)
        pair_owned = [0] * len(nodes.pair_node)
        for p, _ in claims:
            pair_owned[p] += 1
        self.member_ids = [m.member_id for m in members]
        self.table, self.offsets, self.node_size, self.node_topic, self.gid_node = table, offsets, nodes.node_size, \
            nodes.node_topic, nodes.gid_node
        self.pair_node, self.pair_member, self.pair_owned, self.pair_mismatch = nodes.pair_node, nodes.pair_member, \
            pair_owned, nodes.pair_mismatch
        self.claim_pair, self.claim_gid = [p for p, _ in claims], [g for _, g in claims]

    def assignment(self, owners: list[int], gids: list[int]) -> Assignment:
        return Assignment.from_gids(self.member_ids, owners, gids, self.table, self.offsets)


class _Nodes(NamedTuple):
    """The network's nodes and pairs, by (topic, set id) and (node, member)."""

    node_size: list[int]
    node_topic: list[int]
    pair_node: list[int]
    pair_member: list[int]
    pair_mismatch: list[bool]
    gid_node: list[int] | None  # per global id, when nodes split topics by rack set


def _topic_nodes(sizes: list[int], topic_members: list[list[int]]) -> _Nodes:
    """One node per topic (a problem that is not rack-aware)."""
    pair_node = [node for node, ms in enumerate(topic_members) for _ in ms]
    pair_member = [k for ms in topic_members for k in ms]
    return _Nodes(sizes, list(range(len(sizes))), pair_node, pair_member, [False] * len(pair_node), None)


def _rack_nodes(problem: Problem, members: list[Member], table: TopicTable, sizes: list[int],
                topic_members: list[list[int]]) -> _Nodes:
    """One node per (topic, rack set) present, by (topic, set id); a pair is a mismatch when its member's rack is not
    in its node's set."""
    racks, lay = rack_layout(problem), _layout_offsets(problem)
    sets = racks.partition_set.tolist()
    gid_set = [sets[lay[t] + i] for t, size in zip(table.names, sizes) for i in range(size)]
    gid_topic = [k for k, size in enumerate(sizes) for _ in range(size)]
    node_of = {key: node for node, key in enumerate(sorted(set(zip(gid_topic, gid_set))))}
    gid_node = [node_of[key] for key in zip(gid_topic, gid_set)]
    node_topic = [t for t, _ in node_of]
    node_set = [x for _, x in node_of]
    node_size = [0] * len(node_of)
    for node in gid_node:
        node_size[node] += 1
    pair_node = [node for node, t in enumerate(node_topic) for _ in topic_members[t]]
    pair_member = [k for t in node_topic for k in topic_members[t]]
    by_id = {m.member_id: i for i, m in enumerate(problem.members)}
    member_racks = racks.member_rack.tolist()
    rack_of = [member_racks[by_id[m.member_id]] for m in members]
    match = racks.match.tolist()
    pair_mismatch = [rack_of[k] >= 0 and not match[node_set[node]][rack_of[k]]
                     for node, k in zip(pair_node, pair_member)]
    return _Nodes(node_size, node_topic, pair_node, pair_member, pair_mismatch, gid_node)


def _claims(problem: Problem, members: list[Member], table: TopicTable, offsets: list[int],
            nodes: _Nodes) -> list[tuple[int, int]]:
    """The valid claims as (pair, global id), sorted."""
    pair_index = {key: p for p, key in enumerate(zip(nodes.pair_node, nodes.pair_member))}
    position = {m.member_id: k for k, m in enumerate(members)}
    position_of = [position[m.member_id] for m in problem.members]
    gid_node = nodes.gid_node
    v = valid_claims(problem)
    names, code = v.table.names, table.code
    claims = []
    for m, t, i in v.rows():
        k = code[names[t]]  # valid claims are of subscribed topics with partitions: all in T
        g = offsets[k] + i
        claims.append((pair_index[(k if gid_node is None else gid_node[g], position_of[m])], g))
    claims.sort()
    return claims


def _layout_offsets(problem: Problem) -> dict[str, int]:
    """Global id of partition 0 of every topic in `spec.partition_rows.layout` numbering (all topics, by name)."""
    out, total = {}, 0
    for t in sorted(problem.topics):
        out[t] = total
        total += problem.topics[t]
    return out


def redeal_within_classes(pairs: SmallPairs, receivers: list[int], gids: list[int]) -> tuple[list[int], list[int]]:
    """`impl/sticky_kernel.py`'s `_redeal`, plainly."""
    members = len(pairs.member_ids)
    need = [0] * members
    for m in receivers:
        need[m] += 1
    cls = pairs.member_class
    per_class: dict[int, int] = {}
    for m in range(members):
        if need[m]:
            per_class[cls[m]] = per_class.get(cls[m], 0) + 1
    if not receivers or max(per_class.values(), default=0) <= 1:
        return receivers, gids
    pool = [g for _, g in sorted((cls[m], g) for m, g in zip(receivers, gids))]
    rank = [0] * members
    for r, m in enumerate(sorted(range(members), key=lambda m: (cls[m], -need[m], m))):
        rank[m] = r
    sequence = sorted((cls[m], lap, rank[m], m) for m in range(members) for lap in range(need[m]))
    return [m for _, _, _, m in sequence], pool


def _settled_claims(problem: Problem) -> Assignment | None:
    """`_settled` before any pair table: every subscribed partition validly owned, none on a foreign rack of a
    rack-aware problem, and no chain to a member 2 below (the claims, as they are; every check's fixpoint round)."""
    members = problem.members
    wanted = set().union(*(m.subscription for m in members)) if members else set()
    v = valid_claims(problem)
    rows, names = v.rows(), v.table.names
    if len(rows) != sum(n for t, n in problem.topics.items() if t in wanted):
        return None
    counts = [0] * len(members)
    held: dict[int, set[int]] = {}
    for m, c, _ in rows:
        counts[m] += 1
        held.setdefault(m, set()).add(c)
    if rack_aware(problem) and _on_foreign_rack(problem, rows, names):
        return None
    if counts and max(counts) - min(counts) > 1 and _chain_below(members, counts, held, names):
        return None  # (with counts at most 1 apart no chain can lower Σ count²)
    return Assignment.of_sets(valid_owned(problem))


def _on_foreign_rack(problem: Problem, rows: list[tuple[int, int, int]], names: Sequence[str]) -> bool:
    """Is any valid claim (member, topic code, index) of a partition without its member's rack?"""
    known = problem.partition_racks or {}
    for m, c, i in rows:
        rack, given = member_rack(problem.members[m].rack), known.get(names[c]) or ()
        if rack is not None and (i >= len(given) or rack not in given[i]):
            return True
    return False


def _chain_below(members: tuple[Member, ...], counts: list[int], held: dict[int, set[int]],
                 names: Sequence[str]) -> bool:
    """Can some member pass a partition along a chain to a member 2 below it (the fixed point of
    `impl/already_settled.py`)?"""
    subscribers = {c: [m for m, x in enumerate(members) if names[c] in x.subscription]
                   for c in set().union(*held.values())}
    reach, changed = list(counts), True
    while changed:
        best = {c: min(reach[m] for m in subs) for c, subs in subscribers.items()}
        changed = False
        for m, codes in held.items():
            low = min(best[c] for c in codes)
            if low < reach[m]:
                reach[m], changed = low, True
    return any(c - r > 1 for c, r in zip(counts, reach))


def assign_small(problem: Problem) -> Assignment:
    """`impl.sticky.assign_general_sticky` on lists."""
    settled = _settled_claims(problem)
    if settled is not None:
        return settled
    pairs = problem.derived("sticky_pairs", SmallPairs)  # the problem's network, once (placement reads it only)
    keep, new = solve_counts(pairs.node_size, pairs.pair_node, pairs.pair_member, pairs.pair_owned,
                             len(pairs.member_ids), pairs.pair_mismatch, pairs.node_topic)
    starts, total = [], 0
    for o in pairs.pair_owned:
        starts.append(total)
        total += o
    kept_owner, kept_gid = [], []
    for c, (p, g) in enumerate(zip(pairs.claim_pair, pairs.claim_gid)):
        if c - starts[p] < keep[p]:
            kept_owner.append(pairs.pair_member[p])
            kept_gid.append(g)
    taken = set(kept_gid)
    free = [g for g in range(pairs.offsets[-1]) if g not in taken]
    if pairs.gid_node is not None:
        free.sort(key=pairs.gid_node.__getitem__)  # stable: by (node, gid)
    receivers = [m for m, x in zip(pairs.pair_member, new) for _ in range(x)]
    sequence, pool = redeal_within_classes(pairs, receivers, free)
    return pairs.assignment(kept_owner + sequence, kept_gid + pool)


__all__ = ["SmallPairs", "assign_small", "redeal_within_classes"]
