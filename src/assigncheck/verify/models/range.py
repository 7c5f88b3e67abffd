"""Symbolic model of `range` (ALGORITHMS.md): per topic, subscriber i in sort order gets the contiguous
run starting at i*(n//C) + min(i, n%C) of length n//C + (1 if i < n%C else 0). Subscriptions symbolic."""

from __future__ import annotations

import z3

from assigncheck.verify.models import properties as prop
from assigncheck.verify.models.base import Matrix, Model
from assigncheck.verify.models.encoding import Inputs, count, umin


def assign(inp: Inputs) -> Matrix:
    shape = inp.shape
    n = shape.members
    out: Matrix = [[z3.BoolVal(False)] * shape.partition_count for _ in range(n)]
    offset = 0
    for t, size in enumerate(shape.topics):
        subscribers = count(inp, [inp.subs[m][t] for m in range(n)])
        quota, rest = z3.UDiv(inp.num(size), subscribers), z3.URem(inp.num(size), subscribers)
        for m in range(n):
            i = count(inp, [inp.subs[o][t] for o in range(m)])
            start = i * quota + umin(i, rest)
            length = quota + z3.If(z3.ULT(i, rest), inp.num(1), inp.num(0))
            for k in range(size):
                idx = inp.num(k)
                out[m][offset + k] = z3.And(inp.subs[m][t], z3.ULE(start, idx), z3.ULT(idx, start + length))
        offset += size
    return out


def invariants(inp: Inputs) -> dict[str, z3.BoolRef]:
    out = assign(inp)
    return {
        "H3": prop.h3_subscription(inp, out),
        "H4": prop.h4_exclusive(out),
        "H5": prop.h5_complete(inp, out),
        "balance.per-topic": prop.per_topic_balance(inp, out),
    }


MODEL = Model("range", "range", False, "sort_key", "eager", assign, invariants)
