"""The pair table of the general sticky assignor: whole-group arrays, its rows made in one compiled pass
(`impl/sticky_kernel.py`).

Members are sorted by id, topics (subscribed, existing, with partitions) by name. Partitions of a topic are
interchangeable up to who owned them, so the flow needs one *node* per topic - or, on a rack-aware problem
(`spec.racks`), one per (topic, rack set): partitions with equal racks are interchangeable there. A pair is
one node and one member subscribed to its topic, ordered by (node, member). Every valid claim (docs/SPEC.md §2)
is one row of its pair, ordered by (pair, index), and partitions are numbered by global ids in (topic,
index) order, so "a pair's lowest claims" and "a node's free partitions in index order" are runs of rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assigncheck.impl.sticky_kernel import pair_rows
from assigncheck.spec.model import Problem, TopicTable, topic_sizes
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


def pair_table(problem: Problem) -> PairTable:
    ids = [m.member_id for m in problem.members]
    order = sorted(range(len(ids)), key=ids.__getitem__)
    # Pairs from the distinct subscriptions' codes (`spec.subscriptions`, shared with valid ownership): no set
    # lookup per member; the rows themselves come from one compiled pass (`impl/sticky_kernel.py`).
    subs = subscription_codes(problem)
    sizes = topic_sizes(problem)[1]  # every topic of the metadata, in the codes' (name) order
    wanted = np.zeros(len(sizes), dtype=bool)
    wanted[subs.codes] = True
    wanted &= sizes > 0  # topics without partitions get no pairs
    kept = np.flatnonzero(wanted)
    table = TopicTable.of(tuple(map(subs.table.names.__getitem__, kept.tolist())))
    sizes = sizes[kept]
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    remap = np.where(wanted, np.cumsum(wanted) - 1, -1)  # a topic code of the metadata -> its code in `table`
    sub_len = np.bincount(subs.sub, minlength=subs.distinct)
    aware = rack_aware(problem)
    if aware:
        classes: dict[tuple[frozenset[str], str | None], int] = {}
        member_class = np.array([classes.setdefault((m.subscription, member_rack(m.rack)), len(classes))
                                 for m in map(problem.members.__getitem__, order)], dtype=np.int64)
    else:
        member_class = subs.member_sub[order]
    position = np.empty(len(problem.members), dtype=np.int64)
    position[order] = np.arange(len(problem.members))
    claim_member, claim_topic, claim_gid = _valid_claims(problem, remap, offsets)
    node_first, node_count = np.arange(len(sizes), dtype=np.int64), np.ones(len(sizes), dtype=np.int64)
    gid_node, node_size, claim_node = None, sizes, claim_topic
    if aware:  # one node per (topic, rack set) present, by (topic, set id)
        racks, lay = rack_layout(problem), layout(problem)
        starts = np.array([lay.offsets[lay.code[t]] for t in table.names], dtype=np.int64)
        rack_set = racks.partition_set[np.repeat(starts - offsets[:-1], sizes) + np.arange(int(offsets[-1]))]
        topic = np.repeat(np.arange(len(sizes)), sizes)
        keys, gid_node, node_size = np.unique(topic * (len(racks.sets) + 1) + rack_set, return_inverse=True,
                                              return_counts=True)
        node_topic, node_set = keys // (len(racks.sets) + 1), keys % (len(racks.sets) + 1)
        node_first = np.searchsorted(node_topic, np.arange(len(sizes)))
        node_count = np.diff(np.append(node_first, len(keys)))
        claim_node = gid_node[claim_gid]
    pair_node, pair_member, pair_owned, claim_pair, claim_gid = pair_rows(
        subs.member_sub[order], np.cumsum(sub_len) - sub_len, sub_len, remap[subs.codes], node_first, node_count,
        claim_node, position[claim_member], claim_gid)
    pair_mismatch = np.zeros(len(pair_node), dtype=bool)
    if aware:
        rack = racks.member_rack[np.array(order, dtype=np.int64)][pair_member] if len(pair_member) else pair_member
        pair_mismatch = (rack >= 0) & ~racks.match[node_set[pair_node], np.maximum(rack, 0)]
    return PairTable(list(map(ids.__getitem__, order)), table, offsets, node_size, gid_node, pair_node, pair_member,
                     pair_owned, pair_mismatch, claim_pair, claim_gid, member_class)


def _valid_claims(problem: Problem, remap: np.ndarray, offsets: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(member position, topic code in the table, global id) per valid claim, by member, then global id: the
    checker's own reading (`spec.ownership.valid_claims`, once per problem; a cooperative round reads it too). A
    valid claim's topic exists, has the partition and is subscribed by its claimant, so it is in the table."""
    v = valid_claims(problem)
    topic = remap[v.topic]
    return v.member, topic, offsets[topic] + v.index
