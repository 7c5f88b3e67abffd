"""Symbolic model of `roundrobin` (ALGORITHMS.md): partitions in (topic, index) order; a cursor over the
members in sort order; each partition goes to the next subscribed member from the cursor, circularly,
and the cursor moves past it. Subscriptions symbolic."""

from __future__ import annotations

import z3

from assigncheck.verify.models import properties as prop
from assigncheck.verify.models.base import Matrix, Model
from assigncheck.verify.models.encoding import Inputs


def assign(inp: Inputs) -> Matrix:
    shape = inp.shape
    n = shape.members
    out: Matrix = [[z3.BoolVal(False)] * shape.partition_count for _ in range(n)]
    cursor = inp.num(0)
    for p, (t, _) in enumerate(shape.partitions):
        subs = [inp.subs[m][t] for m in range(n)]
        # receiver[m]: m is the first subscriber at or after the cursor (one case per cursor value)
        receiver = [z3.BoolVal(False)] * n
        for start in range(n):
            order = [(start + j) % n for j in range(n)]
            for j, m in enumerate(order):
                first = z3.And(cursor == inp.num(start), subs[m], *[z3.Not(subs[e]) for e in order[:j]])
                receiver[m] = z3.Or(receiver[m], first)
        for m in range(n):
            out[m][p] = receiver[m]
        moved = cursor
        for m in range(n):
            moved = z3.If(receiver[m], inp.num((m + 1) % n), moved)
        cursor = moved
    return out


def invariants(inp: Inputs) -> dict[str, z3.BoolRef]:
    out = assign(inp)
    return {
        "H3": prop.h3_subscription(inp, out),
        "H4": prop.h4_exclusive(out),
        "H5": prop.h5_complete(inp, out),
        # docs/SPEC.md §8.2: perfect balance is promised when subscriptions are equal, nothing otherwise.
        "balance.perfect": z3.Implies(prop.all_subscriptions_equal(inp), prop.perfect_balance(inp, out)),
    }


MODEL = Model("roundrobin", "roundrobin", False, "sort_key", "eager", assign, invariants)
