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

from assigncheck.impl.native import by_id
from assigncheck.impl.sticky_kernel import pair_rows, topic_layout
from assigncheck.spec.model import Member, Problem, TopicTable, topic_sizes
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
    # The members by id, the distinct subscriptions' codes (`spec.subscriptions`) and the valid claims
    # (`spec.ownership`, shared with a cooperative round) come from compiled passes over the members; the topics and
    # the rows from two compiled passes over those (`impl/sticky_kernel.py`).
    ids, positions = by_id(problem.members, Member)
    order = np.frombuffer(positions, np.int64)
    subs = subscription_codes(problem)
    names, sizes = topic_sizes(problem)  # every topic of the metadata, in the codes' (name) order
    kept, offsets, remap = topic_layout(subs.codes, sizes)
    table = TopicTable.of(tuple(map(names.names.__getitem__, kept.tolist())))
    sizes = sizes[kept]
    gid_node, node_size, node_first, node_count = _NONE, sizes, _NONE, _NONE
    aware = rack_aware(problem)
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
    v = valid_claims(problem)
    pair_node, pair_member, pair_owned, claim_pair, claim_gid, member_class = pair_rows(
        subs.member_sub, order, subs.sub, subs.codes, remap, offsets, gid_node, node_first, node_count, v.member,
        v.topic, v.index)
    pair_mismatch = np.zeros(len(pair_node), dtype=bool)
    if aware:
        classes: dict[tuple[frozenset[str], str | None], int] = {}
        member_class = np.array([classes.setdefault((m.subscription, member_rack(m.rack)), len(classes))
                                 for m in map(problem.members.__getitem__, order.tolist())], dtype=np.int64)
        rack = racks.member_rack[order][pair_member] if len(pair_member) else pair_member
        pair_mismatch = (rack >= 0) & ~racks.match[node_set[pair_node], np.maximum(rack, 0)]
    return PairTable(ids, table, offsets, node_size, None if not aware else gid_node, pair_node, pair_member,
                     pair_owned, pair_mismatch, claim_pair, claim_gid, member_class)


_NONE = np.zeros(0, dtype=np.int64)  # `pair_rows`' node arrays when the nodes are the topics


__all__ = ["PairTable", "pair_table"]
