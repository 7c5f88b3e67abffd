"""The pair table of the general sticky assignor, built with whole-group numpy rows.

Members are sorted by id, topics (subscribed, existing, with partitions) by name. Partitions of a topic are
interchangeable up to who owned them, so the flow needs one *node* per topic - or, on a rack-aware problem
(`spec.racks`), one per (topic, rack set): partitions with equal racks are interchangeable there. A pair is
one node and one member subscribed to its topic, ordered by (node, member). Every valid claim (SPEC.md §2)
is one row of its pair, ordered by (pair, index), and partitions are numbered by global ids in (topic,
index) order, so "a pair's lowest claims" and "a node's free partitions in index order" are slices and
masks, never Python loops over partitions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assigncheck.spec.model import Problem, TopicTable
from assigncheck.spec.ownership import valid_claims
from assigncheck.spec.partition_rows import layout
from assigncheck.spec.racks import member_rack, rack_aware, rack_layout
from assigncheck.spec.subscriptions import subscription_codes


@dataclass(frozen=True)
class PairTable:
    member_ids: list[str]  # M, sorted
    table: TopicTable  # T, the topics that get partitions, in name order
    offsets: np.ndarray  # int64, len(T) + 1: topic k owns global ids offsets[k] .. offsets[k+1]-1
    node_size: np.ndarray  # int64 per node (a topic, or a (topic, rack set) on rack-aware problems)
    gid_node: np.ndarray | None  # per global id its node; None when nodes are topics
    pair_topic: np.ndarray  # int64 per pair: its node, pairs sorted by (node, member)
    pair_member: np.ndarray
    pair_owned: np.ndarray  # |V_m ∩ node|
    pair_mismatch: np.ndarray  # bool per pair: the member's rack is on none of the node's replicas
    claim_pair: np.ndarray  # per valid claim, sorted by (pair, index): its pair
    claim_gid: np.ndarray  # its global id
    subscription_class: np.ndarray  # per member: members with identical subscriptions (and racks) share one

    @property
    def members(self) -> int:
        return len(self.member_ids)

    @property
    def partitions(self) -> int:
        return int(self.offsets[-1])

    def claim_rank(self) -> np.ndarray:
        """Per claim: its position among its pair's claims (0 = the lowest index)."""
        starts = np.cumsum(self.pair_owned) - self.pair_owned
        return np.arange(len(self.claim_pair)) - starts[self.claim_pair]

    def topic_of(self, gid: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.offsets, gid, side="right") - 1

    def by_node(self, gids: np.ndarray) -> np.ndarray:
        """`gids` (ascending) reordered by (node, gid): the order of the flow's receivers."""
        if self.gid_node is None:
            return gids
        return gids[np.argsort(self.gid_node[gids], kind="stable")]


def pair_table(problem: Problem) -> PairTable:
    ids = [m.member_id for m in problem.members]
    order = sorted(range(len(ids)), key=ids.__getitem__)
    members = list(map(problem.members.__getitem__, order))
    # Pairs from the distinct subscriptions' codes (`spec.subscriptions`, shared with valid ownership), repeated
    # per member by array arithmetic: no numpy call and no set lookup per member or per subscription.
    subs = subscription_codes(problem)
    sizes = np.array([problem.topics[t] for t in subs.table.names], dtype=np.int64)
    wanted = np.zeros(len(sizes), dtype=bool)
    wanted[subs.codes] = True
    wanted &= sizes > 0  # topics without partitions get no pairs
    kept = np.flatnonzero(wanted)
    table = TopicTable.of(tuple(map(subs.table.names.__getitem__, kept.tolist())))
    sizes = sizes[kept]
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    remap = np.where(wanted, np.cumsum(wanted) - 1, -1)  # a topic code of the metadata -> its code in `table`
    entry = wanted[subs.codes]
    flat = remap[subs.codes[entry]]  # each subscription's pair codes (pairs are sorted by node below)
    sub_len = np.bincount(subs.sub[entry], minlength=subs.distinct)
    sub_start = np.cumsum(sub_len) - sub_len
    member_sub = subs.member_sub[order]
    aware = rack_aware(problem)
    if aware:
        classes: dict[tuple[frozenset[str], str | None], int] = {}
        member_class = np.array([classes.setdefault((m.subscription, member_rack(m.rack)), len(classes))
                                 for m in members], dtype=np.int64)
    else:
        member_class = member_sub
    counts = sub_len[member_sub] if len(members) else np.zeros(0, dtype=np.int64)
    pair_member = np.repeat(np.arange(len(members), dtype=np.int64), counts)
    within = np.arange(len(pair_member)) - np.repeat(np.cumsum(counts) - counts, counts)
    pair_topic = flat[np.repeat(sub_start[member_sub], counts) + within] \
        if len(pair_member) else np.zeros(0, dtype=np.int64)
    position = np.empty(len(problem.members), dtype=np.int64)
    position[order] = np.arange(len(problem.members))
    n = max(len(members), 1)

    gid_node = None
    node_size = sizes
    pair_mismatch = np.zeros(len(pair_topic), dtype=bool)
    if aware:  # split every topic into its rack sets; each (topic, member) pair into one pair per set
        racks, lay = rack_layout(problem), layout(problem)
        starts = np.array([lay.offsets[lay.code[t]] for t in table.names], dtype=np.int64)
        rack_set = racks.partition_set[np.repeat(starts - offsets[:-1], sizes) + np.arange(int(offsets[-1]))]
        topic = np.repeat(np.arange(len(sizes)), sizes)
        keys, gid_node, node_size = np.unique(topic * (len(racks.sets) + 1) + rack_set, return_inverse=True,
                                              return_counts=True)
        node_topic, node_set = keys // (len(racks.sets) + 1), keys % (len(racks.sets) + 1)
        first = np.searchsorted(node_topic, np.arange(len(sizes)))
        per_topic = np.diff(np.append(first, len(keys)))
        pair_node = np.repeat(first[pair_topic], per_topic[pair_topic]) + (
            np.arange(int(per_topic[pair_topic].sum())) - np.repeat(np.cumsum(per_topic[pair_topic])
                                                                    - per_topic[pair_topic], per_topic[pair_topic]))
        pair_member = np.repeat(pair_member, per_topic[pair_topic])
        pair_topic = pair_node
        rack = racks.member_rack[np.array(order, dtype=np.int64)][pair_member] if len(pair_member) else pair_member
        pair_mismatch = (rack >= 0) & ~racks.match[node_set[pair_topic], np.maximum(rack, 0)]
    keys = pair_topic * n + pair_member
    # Pairs are in member order, so a stable sort by node gives (node, member) order; 16-bit keys sort by radix.
    by_pair = np.argsort(pair_topic.astype(np.uint16) if len(node_size) <= 1 << 16 else pair_topic, kind="stable")
    keys, pair_topic, pair_member, pair_mismatch = keys[by_pair], pair_topic[by_pair], pair_member[by_pair], \
        pair_mismatch[by_pair]

    v = valid_claims(problem)  # rows by (problem position, topic code, index); all of subscribed topics
    claim_topic = remap[v.topic]  # valid claims code the metadata's topics in name order too
    claim_gid = offsets[claim_topic] + v.index.astype(np.int64)
    claim_node = claim_topic if gid_node is None else gid_node[claim_gid]
    claim_key = claim_node * n + position[v.member]
    span = int(offsets[-1]) + 1
    if len(node_size) * n * span < 2**62:  # one int64 key sorts faster than a lexsort of two
        both = np.sort(claim_key * span + claim_gid)
        claim_key, claim_gid = both // span, both % span
    else:
        by_claim = np.lexsort((claim_gid, claim_key))
        claim_key, claim_gid = claim_key[by_claim], claim_gid[by_claim]
    claim_pair = np.searchsorted(keys, claim_key)
    pair_owned = np.bincount(claim_pair, minlength=len(keys)).astype(np.int64)
    return PairTable([m.member_id for m in members], table, offsets, node_size, gid_node, pair_topic, pair_member,
                     pair_owned, pair_mismatch, claim_pair, claim_gid, member_class)
