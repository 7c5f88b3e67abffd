"""`valid_owned` (SPEC.md §2): which of the members' raw claims count as previous ownership."""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from .model import Partitions, Problem, index_array


def _own_claims(problem: Problem) -> list[dict[str, np.ndarray]]:
    """Rules 1-3 per member: existing partitions of still-subscribed topics, each counted once."""
    out = []
    for m in problem.members:
        mine = {}
        for topic, arr in m.owned.items():
            n = problem.topics.get(topic)
            if n is None or topic not in m.subscription:  # rule 1 (unknown topic), rule 2
                continue
            kept = np.unique(arr[(arr >= 0) & (arr < n)])  # rule 1 (index out of range), rule 3
            if len(kept):
                mine[topic] = kept
        out.append(mine)
    return out


def valid_owned(problem: Problem) -> dict[str, Partitions]:
    """Member id -> the partitions it validly owns (sorted, no repeats).

    Rule 4: of several claimants of one partition, the single one with the highest generation owns
    it; if two or more share the highest generation, nobody does (KAFKA-12984, KAFKA-14639).
    """
    claims = _own_claims(problem)
    result: list[dict[str, np.ndarray]] = [{} for _ in problem.members]
    topics = sorted({t for mine in claims for t in mine})
    for topic in topics:
        claimants = [i for i, mine in enumerate(claims) if topic in mine]
        idx = np.concatenate([claims[i][topic] for i in claimants])
        who = np.concatenate([np.full(len(claims[i][topic]), i) for i in claimants])
        gen = np.concatenate([np.full(len(claims[i][topic]), problem.members[i].generation) for i in claimants])
        # Rows grouped by partition, highest generation first within a group.
        order = np.lexsort((-gen, idx))
        idx, who, gen = idx[order], who[order], gen[order]
        first = np.ones(len(idx), dtype=bool)
        first[1:] = idx[1:] != idx[:-1]
        runner_up_ties = np.zeros(len(idx), dtype=bool)  # the next row claims the same partition, same gen
        runner_up_ties[:-1] = (idx[1:] == idx[:-1]) & (gen[1:] == gen[:-1])
        winners = first & ~runner_up_ties
        for i in claimants:
            won = idx[winners & (who == i)]
            if len(won):
                result[i][topic] = index_array(won)
    return {m.member_id: MappingProxyType(r) for m, r in zip(problem.members, result)}
