"""The (topic, member) pair table of the general sticky assignor, built with whole-group numpy rows.

Members are sorted by id, topics (subscribed, existing, with partitions) by name, and a pair is one
subscription of one member to one such topic, ordered by (topic, member): `key = topic * C + member`.
Every valid claim (SPEC.md §2) is one row of its pair, ordered by (pair, index), and partitions are
numbered by global ids in (topic, index) order, so "a pair's lowest claims" and "a topic's free
partitions in index order" are slices and masks, never Python loops over partitions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from assigncheck.spec.model import Problem, TopicTable
from assigncheck.spec.ownership import valid_claims


@dataclass(frozen=True)
class PairTable:
    member_ids: list[str]  # M, sorted
    table: TopicTable  # T, the topics that get partitions, in name order
    sizes: np.ndarray  # int64 per topic
    offsets: np.ndarray  # int64, len(T) + 1: topic k owns global ids offsets[k] .. offsets[k+1]-1
    pair_topic: np.ndarray  # int64 per pair, pairs sorted by (topic, member)
    pair_member: np.ndarray
    pair_owned: np.ndarray  # |V_m ∩ t|
    claim_pair: np.ndarray  # per valid claim, sorted by (pair, index): its pair
    claim_gid: np.ndarray  # its global id
    subscription_class: np.ndarray  # per member: members with identical subscriptions share a class

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


def pair_table(problem: Problem) -> PairTable:
    order = sorted(range(len(problem.members)), key=lambda i: problem.members[i].member_id)
    members = [problem.members[i] for i in order]
    wanted = set().union(*(m.subscription for m in members)) if members else set()
    table = TopicTable(t for t, n in problem.topics.items() if n > 0 and t in wanted)
    sizes = np.array([problem.topics[t] for t in table.names], dtype=np.int64)
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    # Members with one subscription share its topic array (a group of equal subscriptions costs one).
    classes: dict[frozenset[str], int] = {}
    topic_arrays: list[np.ndarray] = []
    member_class = np.empty(len(members), dtype=np.int64)
    for k, m in enumerate(members):
        c = classes.get(m.subscription)
        if c is None:
            c = classes[m.subscription] = len(topic_arrays)
            topic_arrays.append(np.array(sorted(table.code[t] for t in m.subscription if t in table.code),
                                         dtype=np.int64))
        member_class[k] = c
    counts = np.array([len(a) for a in topic_arrays], dtype=np.int64)[member_class] if len(members) else \
        np.zeros(0, dtype=np.int64)
    pair_member = np.repeat(np.arange(len(members), dtype=np.int64), counts)
    pair_topic = np.concatenate([topic_arrays[c] for c in member_class.tolist()]) if len(pair_member) else \
        np.zeros(0, dtype=np.int64)
    n = max(len(members), 1)
    keys = pair_topic * n + pair_member
    by_pair = np.argsort(keys, kind="stable")
    keys, pair_topic, pair_member = keys[by_pair], pair_topic[by_pair], pair_member[by_pair]

    v = valid_claims(problem)  # rows by (problem position, topic code, index); all of subscribed topics
    position = np.empty(len(problem.members), dtype=np.int64)
    position[order] = np.arange(len(problem.members))
    remap = np.array([table.code.get(t, -1) for t in v.table.names], dtype=np.int64)
    claim_topic = remap[v.topic]
    claim_member = position[v.member]
    claim_key = claim_topic * n + claim_member
    index = v.index.astype(np.int64)
    by_claim = np.lexsort((index, claim_key))
    claim_key, claim_topic, index = claim_key[by_claim], claim_topic[by_claim], index[by_claim]
    claim_pair = np.searchsorted(keys, claim_key)
    pair_owned = np.bincount(claim_pair, minlength=len(keys)).astype(np.int64)
    return PairTable([m.member_id for m in members], table, sizes, offsets, pair_topic, pair_member, pair_owned,
                     claim_pair, offsets[claim_topic] + index, member_class)
