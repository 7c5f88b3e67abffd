"""Encoding pieces of the constrained sticky algorithm that come with their counting arguments as chains of
law instances (verify.models.laws): each function builds exactly the terms the algorithm needs and notes,
one partition or member at a time, the induction steps that make its counts follow by propagation."""

from __future__ import annotations

from collections.abc import Sequence

import z3

from assigncheck.verify.models import laws
from assigncheck.verify.models.encoding import Inputs
from assigncheck.verify.models.laws import bit, instance, prefixes, slot_terms, total, umin

Row = list[z3.BoolRef]


def topic_rows(inp: Inputs, row: Sequence[z3.BoolRef]) -> list[Row]:
    out, start = [], 0
    for n in inp.shape.topics:
        out.append(list(row[start:start + n]))
        start += n
    return out


def row_count(inp: Inputs, row: Sequence[z3.BoolRef]) -> z3.BitVecRef:
    """|row| as the sum of its per-topic counts (the form every constrained-model fact speaks about)."""
    return total([laws.count(r, inp.width) for r in topic_rows(inp, row)], inp.width)


def note_bounds(inp: Inputs, bools: Sequence[z3.BoolRef]) -> list[z3.BitVecRef]:
    """Prefix counts of `bools`, with the facts count(bools[:i]) <= i (no count can wrap)."""
    pre = prefixes(bools, inp.width)
    for i, b in enumerate(bools):
        instance(inp, "count_bound", (i,), pre[i], b)
    return pre


def note_valid_columns(inp: Inputs, live: list[Row]) -> None:
    for p in range(inp.shape.partition_count):
        instance(inp, "column_once", (), [row[p] for row in live], list(inp.gens))


def keep_prefix(inp: Inputs, valid: Row, k: z3.BitVecRef) -> tuple[Row, z3.BitVecRef]:
    """The first `k` of a member's valid partitions in keep order `(rank, topic)`: per topic, the ranks
    below its quota (laws.quota_terms). Returns the kept row and its count term, with the facts
    count == min(k, v) and (k >= v) -> kept == valid."""
    w, sizes = inp.width, inp.shape.topics
    per_topic = topic_rows(inp, valid)
    ranks = [note_bounds(inp, r) for r in per_topic]
    cnt = [r[-1] for r in ranks]
    q = laws.quota_terms(k, cnt, sizes)
    kept = [z3.And(b, z3.ULT(ranks[t][i], q[t])) for t, r in enumerate(per_topic) for i, b in enumerate(r)]
    x = prefixes(kept, w)
    if inp.facts is None:
        return kept, x[-1]
    for t, r in enumerate(per_topic):
        for i in reversed(range(len(r))):
            instance(inp, "rank_below", (), ranks[t][i], r[i], cnt[t])
    s, p = laws.val(w, 0), 0
    for t, r in enumerate(per_topic):
        instance(inp, "topic_start", (), x[p], s, q[t])
        for i, b in enumerate(r):
            instance(inp, "keep_step", (), x[p], s, ranks[t][i], q[t], b)
            p += 1
        s = s + umin(cnt[t], q[t])
    instance(inp, "quota", tuple(sizes), k, cnt)
    instance(inp, "min_left", (), x[-1], s, k, total(cnt, w))
    return kept, x[-1]


def deal(inp: Inputs, needs: list[z3.BitVecRef], free: Row, laps: int) -> tuple[list[Row], list[z3.BitVecRef]]:
    """Deal U round-robin (lap k visits, in member order, every member whose need exceeds k): the partition
    with U index j goes to the member holding slot j. Returns [member][partition] and each member's count,
    with the facts: one receiver per U index, count == need once |U| == sum of needs."""
    w = inp.width
    index = note_bounds(inp, free)  # index[p]: free partitions before p; index[-1] == |U|
    slots = slot_terms(needs, laps)
    got = [[z3.And(f, laws.hit(slots[m], index[p])) for p, f in enumerate(free)] for m in range(len(needs))]
    counts = [prefixes(row, w) for row in got]
    if inp.facts is not None:
        for p in range(len(free)):
            instance(inp, "deal_pick", (laps,), needs, index[p], index[-1])
        for m in range(len(got)):
            for p, f in enumerate(free):
                instance(inp, "deal_step", (laps, m), needs, counts[m][p], index[p], f)
            instance(inp, "deal_done", (laps, m), needs, index[-1], counts[m][-1])
    return got, [c[-1] for c in counts]


def union(inp: Inputs, a: Row, b: Row) -> Row:
    """a or b partition-wise, with count(a or b) == count(a) + count(b) where they never overlap."""
    out = [z3.Or(x, y) for x, y in zip(a, b)]
    pa, pb, po = prefixes(a, inp.width), prefixes(b, inp.width), prefixes(out, inp.width)
    for p in range(len(a)):
        instance(inp, "union_step", (), po[p], pa[p], pb[p], a[p], b[p])
    return out


def same_count(inp: Inputs, a: Row, b: Row) -> None:
    """count(a) == count(b) where a and b agree partition-wise."""
    pa, pb = prefixes(a, inp.width), prefixes(b, inp.width)
    for p in range(len(a)):
        instance(inp, "count_same", (), pa[p], pb[p], a[p], b[p])


def same_total(inp: Inputs, xs: Sequence[z3.BitVecRef], ys: Sequence[z3.BitVecRef]) -> None:
    """total(xs) == total(ys) where they agree term-wise."""
    for m in range(len(xs)):
        instance(inp, "sum_same", (), total(xs[:m], inp.width), total(ys[:m], inp.width), xs[m], ys[m])


def flat_is_per_topic(inp: Inputs, flat: Row, row: Row) -> None:
    """count(flat) == row_count(row) where the rows agree partition-wise."""
    w = inp.width
    f = prefixes(flat, w)
    s, p = laws.val(w, 0), 0
    for r in topic_rows(inp, row):
        x = prefixes(r, w)
        instance(inp, "start_topic", (), f[p], s)
        for i, b in enumerate(r):
            instance(inp, "shift_step", (), f[p], s, x[i], flat[p], b)
            p += 1
        s = s + x[-1]


__all__ = ["bit", "deal", "flat_is_per_topic", "keep_prefix", "note_bounds", "note_valid_columns", "row_count",
           "same_count", "same_total", "topic_rows", "union"]
