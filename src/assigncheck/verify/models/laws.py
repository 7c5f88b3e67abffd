"""Laws: small formulas that hold for every value of their arguments, instantiated with a model's own terms.

A law is a pure function of a few integer parameters and Z3 terms. `instance` notes it as a helper fact
keyed by (name, parameters, argument sorts); verify.models.facts proves the same function on fresh
variables of those sorts once per key, so every instance holds for every input, and adding it to a query
changes no answer.

Why: SAT is bad at counting (sum of row counts == sum of column counts is a pigeonhole argument). The
laws here are *induction steps* (one partition or one member at a time) whose hypothesis is the previous
step's conclusion, built from the very same terms (Z3 shares equal terms). Chained, they hand the solver
a counting argument that it follows by propagation, and each law is proved on a handful of variables,
independently of the partition count, instead of a monolithic lemma per shape.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import z3

LAWS: dict[str, Callable[..., z3.BoolRef]] = {}


def law(fn: Callable[..., z3.BoolRef]) -> Callable[..., z3.BoolRef]:
    LAWS[fn.__name__] = fn
    return fn


def _sort(arg: Any) -> object:
    if isinstance(arg, (list, tuple)):
        return tuple(_sort(a) for a in arg)
    return "b" if z3.is_bool(arg) else arg.size()


def fresh(sort: Any, name: str) -> Any:
    """A fresh z3 term of `sort`: "b" (a Bool), a bit width, or a tuple of sorts (a list of terms)."""
    if sort == "b":
        return z3.Bool(name)
    if isinstance(sort, int):
        return z3.BitVec(name, sort)
    return [fresh(s, f"{name}_{i}") for i, s in enumerate(sort)]


def instance(inp: Any, name: str, params: tuple, *args: Any) -> None:
    """Note law `name` instantiated with `args` (an `Inputs`; nothing happens when it keeps no facts)."""
    if inp.facts is not None:
        inp.note(("law", name, params, tuple(_sort(a) for a in args)), LAWS[name](params, *args))


def law_formula(key: tuple) -> z3.BoolRef:
    """The law of `key` on fresh variables: what facts.prove_fact proves valid."""
    _, name, params, sorts = key
    return LAWS[name](params, *[fresh(s, f"a{i}") for i, s in enumerate(sorts)])


# ---- term builders shared with the encodings (same construction, hence the same Z3 terms) -------------


@functools.lru_cache(maxsize=8192)
def val(w: int, x: int) -> z3.BitVecRef:
    """A bit-vector constant (cached: building terms is most of a small shape's time)."""
    return z3.BitVecVal(x, w)


def bit(b: z3.BoolRef, w: int) -> z3.BitVecRef:
    return z3.If(b, val(w, 1), val(w, 0))


def total(terms: Sequence[z3.BitVecRef], w: int) -> z3.BitVecRef:
    acc = val(w, 0)
    for t in terms:
        acc = acc + t
    return acc


def prefixes(bools: Sequence[z3.BoolRef], w: int) -> list[z3.BitVecRef]:
    """[count(bools[:i]) for i in 0..len]."""
    out = [val(w, 0)]
    for b in bools:
        out.append(out[-1] + bit(b, w))
    return out


def count(bools: Sequence[z3.BoolRef], w: int) -> z3.BitVecRef:
    """How many of `bools` hold, as a `w`-bit vector (the last prefix count: one term for every user)."""
    return prefixes(bools, w)[-1]


def umin(a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
    return z3.If(z3.ULE(a, b), a, b)


def small(w: int) -> z3.BitVecRef:
    """A bound below which sums of three values cannot wrap."""
    return val(w, 2 ** (w - 2) - 1)


def valid_column(live: Sequence[z3.BoolRef], gens: Sequence[z3.BitVecRef]) -> list[z3.BoolRef]:
    """docs/SPEC.md §2 rule 4 on one partition: a live claim counts if every other live claimant is older."""
    n = len(live)
    return [z3.And(live[m], *[z3.Implies(live[o], z3.ULT(gens[o], gens[m])) for o in range(n) if o != m])
            for m in range(n)]


def quota_terms(k: z3.BitVecRef, cnt: Sequence[z3.BitVecRef], sizes: Sequence[int]) -> list[z3.BitVecRef]:
    """How many partitions of each topic the first `k` of a member's keep order hold.

    The keep order is (rank, topic); the rank-`j` partition of topic t sits at j + sum over earlier topics
    u of min(cnt_u, j + 1) + sum over later topics of min(cnt_u, j). Positions grow with j, so the kept
    ones of topic t are exactly its ranks below Q_t = #{j < cnt_t : position < k}."""
    w = k.size()
    out = []
    for t, size in enumerate(sizes):
        hits = []
        for j in range(size):
            pos = val(w, j)
            for u in range(len(sizes)):
                if u != t:
                    pos = pos + umin(cnt[u], val(w, j + 1 if u < t else j))
            hits.append(z3.And(z3.ULT(val(w, j), cnt[t]), z3.ULT(pos, k)))
        out.append(total([bit(h, w) for h in hits], w))
    return out


_slot_cache: dict[tuple, tuple[Sequence[z3.BitVecRef], list]] = {}


def slot_terms(needs: Sequence[z3.BitVecRef], laps: int) -> list[list[tuple[z3.BoolRef, z3.BitVecRef]]]:
    """The deal's slots: (member m, lap k) is active when m's need exceeds k; its slot is the sum over
    members of min(need, k) plus the members before m still in lap k. (Cached: every law instance about
    one deal rebuilds them; an entry holds its needs, so their ids cannot be reused while it lives.)"""
    key = (tuple(x.get_id() for x in needs), laps)
    hit_ = _slot_cache.get(key)
    if hit_ is not None and all(a is b or a.eq(b) for a, b in zip(hit_[0], needs)):
        return hit_[1]
    if len(_slot_cache) > 64:
        _slot_cache.clear()
    out = _slots(needs, laps)
    _slot_cache[key] = (list(needs), out)
    return out


def _slots(needs: Sequence[z3.BitVecRef], laps: int) -> list[list[tuple[z3.BoolRef, z3.BitVecRef]]]:
    w = needs[0].size()
    n = len(needs)
    out = []
    for m in range(n):
        row = []
        for k in range(laps):
            kk = val(w, k)
            before = val(w, 0)
            for o in range(n):
                before = before + umin(needs[o], kk)
            before = before + total([bit(z3.UGT(needs[o], kk), w) for o in range(m)], w)
            row.append((z3.UGT(needs[m], kk), before))
        out.append(row)
    return out


def hit(slots: Sequence[tuple[z3.BoolRef, z3.BitVecRef]], j: z3.BitVecRef) -> z3.BoolRef:
    return z3.Or(*[z3.And(a, s == j) for a, s in slots])


def slots_below(slots: Sequence[tuple[z3.BoolRef, z3.BitVecRef]], j: z3.BitVecRef) -> z3.BitVecRef:
    """How many of a member's active slots are below j (what it receives when U has j partitions)."""
    w = j.size()
    return total([bit(z3.And(a, z3.ULT(s, j)), w) for a, s in slots], w)


# ---- the laws ------------------------------------------------------------------------------------------


@law
def count_bound(params: tuple, x: z3.BitVecRef, b: z3.BoolRef) -> z3.BoolRef:
    """A prefix count of i Booleans is at most i (and small), one Boolean more adds at most one."""
    (i,) = params
    w = x.size()
    nxt = x + bit(b, w)
    return z3.Implies(z3.ULE(x, val(w, i)),
                      z3.And(z3.ULE(nxt, val(w, i + 1)), z3.ULE(x, small(w)), z3.ULE(nxt, small(w))))


@law
def rank_below(params: tuple, r: z3.BitVecRef, b: z3.BoolRef, c: z3.BitVecRef) -> z3.BoolRef:
    """Backward along a topic: a set bit's rank is below the topic's count."""
    w = r.size()
    return z3.Implies(z3.And(z3.ULE(r, small(w)), z3.ULE(r + bit(b, w), c)),
                      z3.And(z3.ULE(r, c), z3.Implies(b, z3.ULT(r, c))))


@law
def keep_step(params: tuple, x: z3.BitVecRef, s: z3.BitVecRef, r: z3.BitVecRef, q: z3.BitVecRef,
              b: z3.BoolRef) -> z3.BoolRef:
    """Kept so far == earlier topics' kept + min(rank, Q): one partition of the topic further."""
    w = x.size()
    return z3.Implies(z3.And(x == s + umin(r, q), z3.ULE(r, small(w))),
                      x + bit(z3.And(b, z3.ULT(r, q)), w) == s + umin(r + bit(b, w), q))


@law
def topic_start(params: tuple, x: z3.BitVecRef, s: z3.BitVecRef, q: z3.BitVecRef) -> z3.BoolRef:
    return z3.Implies(x == s, x == s + umin(val(x.size(), 0), q))


@law
def quota(params: tuple, k: z3.BitVecRef, cnt: list) -> z3.BoolRef:
    """The per-topic quotas add up to min(k, v); k >= v keeps every topic whole."""
    sizes = params
    w = k.size()
    q = quota_terms(k, cnt, sizes)
    v = total(cnt, w)
    return z3.Implies(
        z3.And(*[z3.ULE(c, val(w, n)) for c, n in zip(cnt, sizes)]),
        z3.And(total([umin(c, x) for c, x in zip(cnt, q)], w) == umin(k, v),
               z3.Implies(z3.ULE(v, k), z3.And(*[x == c for c, x in zip(cnt, q)])),
               z3.ULE(v, val(w, sum(sizes)))),
    )


@law
def min_left(params: tuple, x: z3.BitVecRef, s: z3.BitVecRef, k: z3.BitVecRef, v: z3.BitVecRef) -> z3.BoolRef:
    return z3.Implies(z3.And(x == s, s == umin(k, v), z3.ULE(k, v)), x == k)


@law
def column_once(params: tuple, live: list, gens: list) -> z3.BoolRef:
    """Rule 4 lets at most one member own a partition."""
    valid = valid_column(live, gens)
    return z3.And(*[z3.Not(z3.And(valid[a], valid[b])) for a in range(len(valid)) for b in range(a)])


@law
def deal_pick(params: tuple, needs: list, j: z3.BitVecRef, avail: z3.BitVecRef) -> z3.BoolRef:
    """At most one active slot is j, and one is when j < |U| == sum of needs (needs <= laps)."""
    (laps,) = params
    w = j.size()
    slots = slot_terms(needs, laps)
    hits = [z3.And(a, s == j) for row in slots for a, s in row]
    return z3.Implies(
        z3.And(*[z3.ULE(x, val(w, laps)) for x in needs]),
        z3.And(*[z3.Not(z3.And(hits[a], hits[b])) for a in range(len(hits)) for b in range(a)],
               z3.Implies(z3.And(avail == total(needs, w), z3.ULT(j, avail)), z3.Or(*hits))),
    )


@law
def deal_step(params: tuple, needs: list, x: z3.BitVecRef, j: z3.BitVecRef, f: z3.BoolRef) -> z3.BoolRef:
    """Member m's dealt count so far == its slots below the U index: one partition further."""
    laps, m = params
    w = j.size()
    slots = slot_terms(needs, laps)[m]
    return z3.Implies(
        z3.And(*[z3.ULE(n, val(w, laps)) for n in needs], z3.ULE(j, small(w)), x == slots_below(slots, j)),
        x + bit(z3.And(f, hit(slots, j)), w) == slots_below(slots, j + bit(f, w)),
    )


@law
def deal_done(params: tuple, needs: list, avail: z3.BitVecRef, x: z3.BitVecRef) -> z3.BoolRef:
    """With |U| == sum of needs, member m's slots below |U| are its need."""
    laps, m = params
    w = avail.size()
    slots = slot_terms(needs, laps)[m]
    return z3.Implies(
        z3.And(*[z3.ULE(n, val(w, laps)) for n in needs], avail == total(needs, w), x == slots_below(slots, avail)),
        x == needs[m],
    )


@law
def union_step(params: tuple, x: z3.BitVecRef, a: z3.BitVecRef, b: z3.BitVecRef, p: z3.BoolRef,
               q: z3.BoolRef) -> z3.BoolRef:
    w = x.size()
    return z3.Implies(z3.And(x == a + b, z3.Not(z3.And(p, q))),
                      x + bit(z3.Or(p, q), w) == (a + bit(p, w)) + (b + bit(q, w)))


@law
def count_same(params: tuple, x: z3.BitVecRef, y: z3.BitVecRef, p: z3.BoolRef, q: z3.BoolRef) -> z3.BoolRef:
    w = x.size()
    return z3.Implies(z3.And(x == y, p == q), x + bit(p, w) == y + bit(q, w))


@law
def sum_same(params: tuple, x: z3.BitVecRef, y: z3.BitVecRef, a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BoolRef:
    return z3.Implies(z3.And(x == y, a == b), x + a == y + b)


@law
def shift_step(params: tuple, f: z3.BitVecRef, s: z3.BitVecRef, x: z3.BitVecRef, p: z3.BoolRef,
               q: z3.BoolRef) -> z3.BoolRef:
    """A flat prefix count == earlier topics' total + this topic's prefix count: one partition further."""
    w = f.size()
    return z3.Implies(z3.And(f == s + x, p == q), f + bit(p, w) == s + (x + bit(q, w)))


@law
def start_topic(params: tuple, f: z3.BitVecRef, s: z3.BitVecRef) -> z3.BoolRef:
    return z3.Implies(f == s, f == s + val(f.size(), 0))


@law
def trans(params: tuple, a: z3.BitVecRef, b: z3.BitVecRef, c: z3.BitVecRef) -> z3.BoolRef:
    return z3.Implies(z3.And(a == b, b == c), a == c)


@law
def add_same(params: tuple, x: z3.BitVecRef, a: z3.BitVecRef, b: z3.BitVecRef, k: z3.BitVecRef,
             n: z3.BitVecRef) -> z3.BoolRef:
    return z3.Implies(z3.And(x == a + b, a == k, b == n), x == k + n)


@law
def cancel(params: tuple, a: z3.BitVecRef, f: z3.BitVecRef, k: z3.BitVecRef, n: z3.BitVecRef,
           p: z3.BitVecRef) -> z3.BoolRef:
    return z3.Implies(z3.And(a + f == p, a == k, k + n == p), f == n)
