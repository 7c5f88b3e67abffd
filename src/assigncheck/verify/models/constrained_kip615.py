"""Symbolic model of `sticky-constrained-4phase` (KIP-615 / KAFKA-9987), exactly as ALGORITHMS.md states it.

1. v < f: keep all (unfilled); v == f: keep all; v > f: keep the first c and join the max_capacity queue.
2. Deal U round-robin over the unfilled members still below f.
3. If U ran out: each member still below f (member order) takes, once per missing partition, the last
   kept partition of the head of the queue (which leaves it).
4. If U is left over: each remaining partition, in order, goes to the next member not in the queue.
"""

from __future__ import annotations

import z3

from assigncheck.verify.models.base import Matrix, Model
from assigncheck.verify.models.constrained import quotas, sticky_invariants
from assigncheck.verify.models.encoding import (
    Inputs,
    count,
    deal,
    keep_first,
    keep_positions,
    last_kept,
    sub_floor0,
    unkept_order,
    valid_owned,
)


def assign(inp: Inputs) -> Matrix:
    n, nparts = inp.shape.members, inp.shape.partition_count
    f, c, _ = quotas(inp)
    F = inp.num(f)
    valid = valid_owned(inp)
    # Phase 1
    kept, last, in_queue, needs = [], [], [], []
    for m in range(n):
        v = count(inp, valid[m])
        k = z3.If(z3.UGT(v, F), inp.num(c), v)
        positions = keep_positions(inp, valid[m])
        kept.append(keep_first(inp, valid[m], positions, k))
        last.append(last_kept(inp, valid[m], positions, k))
        in_queue.append(z3.UGT(v, F))
        needs.append(sub_floor0(F, v))
    # Phase 2
    free, index = unkept_order(inp, kept)
    available = count(inp, free)
    dealt, received = deal(inp, needs, free, index, laps=f, available=available)
    # Phase 3: member m's s-th missing partition comes from queue entry (missing before m) + s.
    missing = [needs[m] - received[m] for m in range(n)]
    stolen_from = [z3.BoolVal(False)] * n
    steals: Matrix = [[z3.BoolVal(False)] * nparts for _ in range(n)]
    missing_before = inp.num(0)
    for m in range(n):
        for d in range(n):
            queue_pos = count(inp, in_queue[:d])
            takes = z3.And(
                in_queue[d],
                z3.UGE(queue_pos, missing_before),
                z3.ULT(queue_pos, missing_before + missing[m]),
            )
            stolen_from[d] = z3.Or(stolen_from[d], takes)
            steals[m] = [z3.Or(s, z3.And(takes, lp)) for s, lp in zip(steals[m], last[d])]
        missing_before = missing_before + missing[m]
    # Phase 4: leftover U partitions (U index >= total need) go to members outside the queue, in order.
    total_need = inp.num(0)
    for need in needs:
        total_need = total_need + need
    leftover: Matrix = [[z3.BoolVal(False)] * nparts for _ in range(n)]
    for m in range(n):
        outside_before = count(inp, [z3.Not(q) for q in in_queue[:m]])
        leftover[m] = [
            z3.And(free[p], z3.Not(in_queue[m]), z3.UGE(index[p], total_need), index[p] - total_need == outside_before)
            for p in range(nparts)
        ]
    return [
        [
            z3.Or(z3.And(kept[m][p], z3.Not(z3.And(stolen_from[m], last[m][p]))), dealt[m][p], steals[m][p],
                  leftover[m][p])
            for p in range(nparts)
        ]
        for m in range(n)
    ]


def invariants(inp: Inputs) -> dict[str, z3.BoolRef]:
    return sticky_invariants(inp, assign)


MODEL = Model(
    "sticky-constrained-4phase", "sticky-constrained-4phase", True, "member_id", "eager", assign, invariants
)
