"""Symbolic model of `sticky-constrained` (KAFKA-12464, two phases), exactly as ALGORITHMS.md states it.

Phase 1 keeps, in member order, the first `c` of a member's keep order while fewer than `r` members have
done so (and `c > f`), else the first min(v, f). Phase 2 deals the unkept partitions in (topic, index)
order round-robin over the members below their target (f, or c for the first r - n_max members that did
not keep c). `variant="ceiling-for-all"` is a deliberately broken copy that lets every over-quota owner
keep `c` (no n_max < r test): the proofs must refute it.
"""

from __future__ import annotations

from functools import partial

import z3

from . import properties as prop
from .base import Matrix, Model, next_round
from .encoding import (
    Inputs,
    count,
    cover,
    deal,
    disjoint_union,
    keep_first,
    keep_positions,
    sub_floor0,
    umin,
    unkept_order,
    valid_owned,
)


def quotas(inp: Inputs) -> tuple[int, int, int]:
    """f = P // C, c = ceil(P / C), r = P % C (concrete: they depend on the shape only)."""
    total, n = inp.shape.partition_count, inp.shape.members
    f, r = divmod(total, n)
    return f, f + (1 if r else 0), r


def plan(
    inp: Inputs, v: list[z3.BitVecRef], variant: str | None = None
) -> tuple[list[z3.BitVecRef], list[z3.BitVecRef]]:
    """Phase 1's keep counts and phase 2's needs, from the members' valid counts `v` alone.

    Fact (the quota arithmetic, for every v): keeps and needs add up to P; each member ends at f or c;
    the keeps add up to max_retained's closed form; a member that needs more kept everything it owned.
    """
    n = inp.shape.members
    f, c, r = quotas(inp)
    n_max = inp.num(0)
    keep_count, at_ceiling = [], []
    for m in range(n):
        room = z3.BoolVal(True) if variant == "ceiling-for-all" else z3.ULT(n_max, inp.num(r))
        ceiling = z3.And(z3.BoolVal(c > f), z3.UGE(v[m], inp.num(c)), room)
        keep_count.append(z3.If(ceiling, inp.num(c), umin(v[m], inp.num(f))))
        n_max = n_max + z3.If(ceiling, inp.num(1), inp.num(0))
        at_ceiling.append(ceiling)
    extra_left = sub_floor0(inp.num(r), n_max)
    needs = []
    for m in range(n):
        not_before = count(inp, [z3.Not(at_ceiling[o]) for o in range(m)])
        extra = z3.And(z3.Not(at_ceiling[m]), z3.ULT(not_before, extra_left))
        target = z3.If(extra, inp.num(c), inp.num(f))
        needs.append(sub_floor0(target, keep_count[m]))
    total, kept_total, best = inp.num(0), inp.num(0), inp.num(0)
    for m in range(n):
        total = total + keep_count[m] + needs[m]
        kept_total = kept_total + keep_count[m]
        best = best + umin(v[m], inp.num(f))
    best = best + umin(inp.num(r), count(inp, [z3.UGE(x, inp.num(c)) for x in v]))
    fact = z3.And(
        total == inp.num(inp.shape.partition_count),
        kept_total == best,
        *[z3.Or(keep_count[m] + needs[m] == inp.num(f), keep_count[m] + needs[m] == inp.num(c)) for m in range(n)],
        *[z3.Implies(needs[m] != inp.num(0), z3.ULE(v[m], keep_count[m])) for m in range(n)],
        *[z3.ULE(needs[m], inp.num(c)) for m in range(n)],
    )
    bounded = z3.And(*[z3.ULE(x, inp.num(inp.shape.partition_count)) for x in v])
    inp.note(("plan2", variant, n, inp.shape.partition_count, inp.width), z3.Implies(bounded, fact))
    return keep_count, needs


def assign(inp: Inputs, variant: str | None = None) -> Matrix:
    n = inp.shape.members
    _, c, _ = quotas(inp)
    valid = valid_owned(inp)
    keep_count, needs = plan(inp, [count(inp, row) for row in valid], variant)
    kept = [keep_first(inp, valid[m], keep_positions(inp, valid[m]), keep_count[m]) for m in range(n)]
    free, index = unkept_order(inp, kept)
    dealt, _ = deal(inp, needs, free, index, laps=c, available=count(inp, free))
    return [disjoint_union(inp, kept[m], dealt[m]) for m in range(n)]


def sticky_invariants(inp: Inputs, assign_fn) -> dict[str, z3.BoolRef]:  # noqa: ANN001 - any eager sticky model
    """H3-H5, perfect balance, retained == max_retained and the fixpoint, for an eager constrained model."""
    out = assign_fn(inp)
    cover(inp, [*out, [z3.Not(z3.Or(*col)) for col in zip(*out)]])  # helper facts: counts of out add up to P
    again = assign_fn(next_round(inp, out))
    return {
        "H3": prop.h3_subscription(inp, out),
        "H4": prop.h4_exclusive(out),
        "H5": prop.h5_complete(inp, out),
        "balance.perfect": prop.perfect_balance(inp, out),
        "stickiness.max_retained": prop.retained(inp, valid_owned(inp), out)
        == prop.max_retained_equal_subscriptions(inp, valid_owned(inp)),
        "fixpoint": prop.same_output(out, again),
    }


def invariants(inp: Inputs) -> dict[str, z3.BoolRef]:
    return sticky_invariants(inp, assign)


MODEL = Model("sticky-constrained", "sticky-constrained", True, "member_id", "eager", assign, invariants)

_broken = partial(assign, variant="ceiling-for-all")
BROKEN = Model(
    "sticky-constrained:ceiling-for-all", "sticky-constrained", True, "member_id", "eager", _broken,
    lambda inp: sticky_invariants(inp, _broken),
)
