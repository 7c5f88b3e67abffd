"""Symbolic model of `sticky-constrained` (KAFKA-12464, two phases), exactly as ALGORITHMS.md states it.

Phase 1 keeps, in member order, the first `c` of a member's keep order while fewer than `r` members have
done so (and `c > f`), else the first min(v, f). Phase 2 deals the unkept partitions in (topic, index)
order round-robin over the members below their target (f, or c for the first r - n_max members that did
not keep c). `variant="ceiling-for-all"` is a deliberately broken copy that lets every over-quota owner
keep `c` (no n_max < r test): the proofs must refute it.

The encoding notes its counting arguments as law chains (verify.models.chains, laws): kept counts equal the
keeps, |U| equals the needs, each member receives its need, the second round keeps everything. With them
a 6 members x [6, 6] shape is proved in ~10 s (the monolithic helper lemmas took > 120 s).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import z3

from assigncheck.verify.models import chains, laws
from assigncheck.verify.models import properties as prop
from assigncheck.verify.models.base import Matrix, Model, next_round, tag_second_round
from assigncheck.verify.models.contracts import REAL, Stages, contracted
from assigncheck.verify.models.encoding import Inputs, count, cover, live_claims, sub_floor0, umin, valid_owned


def quotas(inp: Inputs) -> tuple[int, int, int]:
    """f = P // C, c = ceil(P / C), r = P % C (concrete: they depend on the shape only)."""
    total, n = inp.shape.partition_count, inp.shape.members
    f, r = divmod(total, n)
    return f, f + (1 if r else 0), r


def plan(
    inp: Inputs, v: list[z3.BitVecRef], variant: str | None = None
) -> tuple[list[z3.BitVecRef], list[z3.BitVecRef]]:
    """Phase 1's keep counts and phase 2's needs, from the members' valid counts `v` alone.

    Fact (the quota arithmetic, for every v <= P): keeps and needs add up to P; each member ends at f or c;
    the keeps add up to max_retained's closed form; a member keeps at most what it owns, and one that
    needs more kept everything; counts already at f or c adding up to P are kept whole (the fixpoint).
    """
    n, w = inp.shape.members, inp.width
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
    big_p = inp.num(inp.shape.partition_count)
    kept_total = laws.total(keep_count, w)
    best = laws.total([umin(x, inp.num(f)) for x in v], w)
    best = best + umin(inp.num(r), count(inp, [z3.UGE(x, inp.num(c)) for x in v]))
    settled = z3.And(laws.total(v, w) == big_p, *[z3.Or(x == inp.num(f), x == inp.num(c)) for x in v])
    fact = z3.And(
        kept_total + laws.total(needs, w) == big_p,
        kept_total == best,
        *[z3.Or(keep_count[m] + needs[m] == inp.num(f), keep_count[m] + needs[m] == inp.num(c)) for m in range(n)],
        *[z3.Implies(needs[m] != inp.num(0), z3.ULE(v[m], keep_count[m])) for m in range(n)],
        *[z3.ULE(needs[m], inp.num(c)) for m in range(n)],
        *[z3.ULE(keep_count[m], v[m]) for m in range(n)],
        z3.Implies(settled, z3.And(*[z3.And(keep_count[m] == v[m], needs[m] == inp.num(0)) for m in range(n)])),
    )
    bounded = z3.And(*[z3.ULE(x, big_p) for x in v])
    inp.note(("plan3", variant, n, inp.shape.partition_count, w), z3.Implies(bounded, fact))
    return keep_count, needs


def assign(inp: Inputs, variant: str | None = None, stages: Stages = REAL) -> Matrix:
    """stages: the keep and deal stages as real terms, or as fresh outputs under their contracts."""
    n, w = inp.shape.members, inp.width
    _, c, _ = quotas(inp)
    valid = valid_owned(inp)
    chains.note_valid_columns(inp, live_claims(inp))
    v = [chains.row_count(inp, row) for row in valid]
    keep_count, needs = plan(inp, v, variant)
    kept, kept_counts = zip(*[stages.keep(inp, valid[m], keep_count[m]) for m in range(n)])
    free = [z3.Not(z3.Or(*[row[p] for row in kept])) for p in range(inp.shape.partition_count)]
    cover(inp, [*kept, free])  # counts of kept + |U| == P
    dealt, dealt_counts = stages.deal(inp, needs, free, c)
    out = [chains.union(inp, kept[m], dealt[m]) for m in range(n)]
    if inp.facts is not None:
        # |U| == sum of needs: the kept counts are the keeps (plan: keep <= v), and keeps + needs == P
        chains.same_total(inp, list(kept_counts), keep_count)
        avail = laws.count(free, w)
        instance = chains.instance
        instance(inp, "cancel", (), laws.total(list(kept_counts), w), avail, laws.total(keep_count, w),
                 laws.total(needs, w), inp.num(inp.shape.partition_count))
        for m in range(n):  # |out_m| == keep + need
            counts = [laws.count(r, w) for r in (out[m], kept[m], dealt[m])]
            instance(inp, "add_same", (), *counts, keep_count[m], needs[m])
            # retained: a member's valid and assigned partitions are its kept ones
            both = [z3.And(a, b) for a, b in zip(valid[m], out[m])]
            chains.same_count(inp, both, list(kept[m]))
            instance(inp, "trans", (), laws.count(both, w), kept_counts[m], keep_count[m])
        chains.same_total(inp, [laws.count([z3.And(a, b) for a, b in zip(valid[m], out[m])], w)
                                for m in range(n)], keep_count)
    return out


def sticky_invariants(inp: Inputs, assign_fn: Callable[[Inputs], Matrix], chained: bool = False
                      ) -> dict[str, z3.BoolRef]:
    """H3-H5, perfect balance, retained == max_retained and the fixpoint, for an eager constrained model.
    chained: the model notes law chains (this module's encoding), also for its second round."""
    out = assign_fn(inp)
    cover(inp, [*out, [z3.Not(z3.Or(*col)) for col in zip(*out)]])  # helper facts: counts of out add up to P
    second = next_round(inp, out, share_facts=chained)
    since = len(inp.facts or [])
    again = assign_fn(second)
    if chained:
        tag_second_round(inp, since)
    if chained and inp.facts is not None:  # round 2 owns exactly out: its valid counts are out's counts
        valid2 = valid_owned(second)
        for m in range(inp.shape.members):
            chains.flat_is_per_topic(inp, out[m], valid2[m])
        chains.same_total(inp, [count(inp, row) for row in out], [chains.row_count(inp, row) for row in valid2])
    props = {
        "H3": prop.h3_subscription(inp, out),
        "H4": prop.h4_exclusive(out),
        "H5": prop.h5_complete(inp, out),
    }
    if chained:  # every member ends at exactly f or c: perfect balance follows, and the fixpoint starts there
        f, c, _ = quotas(inp)
        props["balance.quota"] = z3.And(*[z3.Or(x == inp.num(f), x == inp.num(c)) for x in prop.counts(inp, out)])
    props["balance.perfect"] = prop.perfect_balance(inp, out)
    props["stickiness.max_retained"] = prop.retained(inp, valid_owned(inp), out, per_member=chained) == \
        prop.max_retained_equal_subscriptions(inp, valid_owned(inp), per_topic=chained)
    props["fixpoint"] = prop.same_output(out, again)
    return props


def invariants(inp: Inputs) -> dict[str, z3.BoolRef]:
    return sticky_invariants(inp, assign, chained=True)


# Which chains each invariant's proof walks (see assign); the fixpoint replays them all on round 2.
_H5 = frozenset({"step", "count_bound", "keep_step", "topic_start", "quota", "min_left", "sum_same", "cancel",
                 "plan3", "deal_pick"})
RELEVANT = {
    "H3": frozenset(),
    "H4": frozenset({"column_once", "deal_pick", "plan3"}),
    "H5": _H5,
    "balance.quota": _H5 | {"deal_step", "deal_done", "union_step", "add_same"},
    "balance.perfect": frozenset(),  # from balance.quota alone
    "stickiness.max_retained": _H5 | {"rank_below", "count_same", "trans"},
    # round 2 from the proved invariants: its valid counts are out's, it keeps them whole, deals nothing
    "fixpoint": frozenset({"step", "count_bound", "rank_below", "quota", "plan3", "shift_step", "start_topic",
                           "sum_same", "column_once"}),
}
GROUPS = (("H3", "H4", "H5"), ("balance.quota", "balance.perfect"))
# composed (verify.models.contracts): the stages' chains are replaced by their contracts, and only the fixpoint
# looks at round 2 (keeps everything, deals nothing: its contracts say so). Chosen by measurement on five cells
# of 6 x 12 (each set is a subset that still proves; the others only slowed the SAT solver down).
_COMPOSED_RELEVANT = {
    "H3": frozenset(),
    "H4": frozenset({"contract"}),
    "H5": frozenset({"contract", "count_bound", "step", "sum_same"}),
    "balance.quota": frozenset({"contract", "step", "union_step"}),
    "balance.perfect": frozenset(),
    "stickiness.max_retained": frozenset({"contract", "count_bound", "count_same", "plan3", "sum_same"}),
    "fixpoint": frozenset({"count_bound", "r2:contract", "shift_step", "start_topic", "step", "sum_same"}),
}
RELEVANT = {name: kinds | {f"r2:{k}" for k in kinds} for name, kinds in RELEVANT.items()}  # as both rounds


def _model(name: str, variant: str | None, stages: Stages = REAL) -> Model:
    fn = partial(assign, variant=variant, stages=stages)
    real = stages is REAL
    return Model(name, "sticky-constrained", True, "member_id", "eager", fn,
                 partial(sticky_invariants, assign_fn=fn, chained=True), chained=True,
                 relevant=RELEVANT if real else _COMPOSED_RELEVANT, groups=GROUPS if real else (),
                 composed=(lambda topics: _model(name, variant, contracted(topics))) if real else None)


MODEL = _model("sticky-constrained", None)
BROKEN = _model("sticky-constrained:ceiling-for-all", "ceiling-for-all")
