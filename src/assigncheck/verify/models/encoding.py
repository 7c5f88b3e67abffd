"""Bit-vector building blocks shared by the symbolic models of the assignors.

A model works on one *shape*: a concrete member count and concrete partition counts per topic. Inside
a shape everything the assignor reads is symbolic: every claim (member x partition, a Boolean, so double
claims of one partition by several members are included), every member's generation (a small bit-vector
code, 0 = unknown) and, for assignors that allow them to differ, every subscription (member x topic).
The same functions also take concrete Z3 values, which turns a model into an evaluator of the algorithm
on one concrete problem (the conformance tests use that).

Counts are unsigned bit-vectors wide enough never to wrap; QF_BV bit-blasts them, which is what makes
the universal proofs fast (integers were ~100x slower on a similar toy, TOOLCHAIN.md).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import z3

from assigncheck.verify.models import laws
from assigncheck.verify.models.laws import val, valid_column


@dataclass(frozen=True, slots=True)
class Shape:
    """Member count and partition counts; members are `m0..` in sort order, topics `t0..` in name order."""

    members: int
    topics: tuple[int, ...]

    @property
    def partitions(self) -> list[tuple[int, int]]:
        """Every (topic number, index), flat, in (topic, index) order."""
        return [(t, i) for t, n in enumerate(self.topics) for i in range(n)]

    @property
    def partition_count(self) -> int:
        return sum(self.topics)

    def width(self, generations: int) -> int:
        """Bits for every count a model forms (and every sum of needs the lemmas range over): below
        (N + 4) * P + N + G + 4."""
        return max(4, ((self.members + 4) * self.partition_count + self.members + generations + 4).bit_length())

    def __str__(self) -> str:
        return f"{self.members} members x {list(self.topics)}"


def topic_vectors(partitions: int, topics: int) -> Iterator[tuple[int, ...]]:
    """Every partition count vector of 1..topics topics (each >= 1), total <= partitions."""

    def extend(prefix: tuple[int, ...], left: int) -> Iterator[tuple[int, ...]]:
        if prefix:
            yield prefix
        if len(prefix) < topics:
            for n in range(1, left + 1):
                yield from extend(prefix + (n,), left - n)

    yield from extend((), partitions)


@dataclass(frozen=True)
class Inputs:
    """The inputs of one model instance: symbolic (for proofs) or concrete Z3 values (to evaluate)."""

    shape: Shape
    width: int
    claims: list[list[z3.BoolRef]]  # [member][flat partition]: the member's raw claim, as sent
    gens: list[z3.BitVecRef]  # generation code: 0 = unknown (-1), larger = later
    subs: list[list[z3.BoolRef]]  # [member][topic]
    domain: list[z3.BoolRef]  # constraints on the symbolic inputs (generation codes in range)
    # Helper facts the encoding states about its own terms, each an instance of a lemma (verify.models.facts)
    # proved once per shape on fresh variables; they only guide the solver (counting is hard for SAT).
    facts: list[tuple[tuple[object, ...], z3.BoolRef]] | None = field(default_factory=list)

    def note(self, key: tuple[object, ...], fact: z3.BoolRef) -> None:
        if self.facts is not None:
            self.facts.append((key, fact))

    def num(self, value: int) -> z3.BitVecRef:
        return val(self.width, value)

    def topic_of(self) -> list[int]:
        return [t for t, _ in self.shape.partitions]


def symbolic(shape: Shape, generations: int, *, equal_subscriptions: bool) -> Inputs:
    """Fresh variables for every claim, generation (codes 0..generations) and subscription."""
    width = shape.width(generations)
    parts = range(shape.partition_count)
    claims = [[z3.Bool(f"claim_m{m}_p{p}") for p in parts] for m in range(shape.members)]
    gens = [z3.BitVec(f"gen_m{m}", width) for m in range(shape.members)]
    if equal_subscriptions:  # a topic nobody subscribes to is simply absent from the shape
        subs = [[z3.BoolVal(True) for _ in shape.topics] for _ in range(shape.members)]
    else:
        subs = [[z3.Bool(f"sub_m{m}_t{t}") for t in range(len(shape.topics))] for m in range(shape.members)]
    domain = [z3.ULE(g, z3.BitVecVal(generations, width)) for g in gens]
    return Inputs(shape, width, claims, gens, subs, domain)


def concrete(
    shape: Shape, claims: Sequence[Sequence[bool]], gens: Sequence[int], subs: Sequence[Sequence[bool]]
) -> Inputs:
    """Z3 constants for one concrete input; the model's output then simplifies to constants."""
    width = shape.width(max(gens, default=0))
    return Inputs(
        shape,
        width,
        [[z3.BoolVal(bool(c)) for c in row] for row in claims],
        [z3.BitVecVal(g, width) for g in gens],
        [[z3.BoolVal(bool(s)) for s in row] for row in subs],
        [],
        None,
    )


# ---- arithmetic -------------------------------------------------------------------------------------


def count(inp: Inputs, bools: Sequence[z3.BoolRef]) -> z3.BitVecRef:
    """How many of `bools` hold, as a bit-vector."""
    return laws.count(bools, inp.width)


def umin(a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
    return z3.If(z3.ULE(a, b), a, b)


def sub_floor0(a: z3.BitVecRef, b: z3.BitVecRef) -> z3.BitVecRef:
    """max(a - b, 0) without wrapping."""
    return z3.If(z3.UGE(a, b), a - b, a - a)


# ---- docs/SPEC.md §2 ---------------------------------------------------------------------------------------


def valid_owned(inp: Inputs) -> list[list[z3.BoolRef]]:
    """[member][partition]: the claim counts (rules 1-4). Rule 1 and 3 hold by construction (a claim is a
    Boolean over existing partitions); rule 2 drops unsubscribed topics before rule 4 compares generations;
    rule 4: every other subscribed claimant has a strictly lower generation (ties: nobody owns it)."""
    live = live_claims(inp)
    columns = [valid_column([row[p] for row in live], inp.gens) for p in range(inp.shape.partition_count)]
    return [[col[m] for col in columns] for m in range(inp.shape.members)]


def live_claims(inp: Inputs) -> list[list[z3.BoolRef]]:
    """[member][partition]: claims of subscribed topics (rules 1-3)."""
    topic = inp.topic_of()
    return [[z3.And(inp.claims[m][p], inp.subs[m][topic[p]]) for p in range(len(topic))]
            for m in range(inp.shape.members)]


# ---- pieces of the sticky algorithms (ALGORITHMS.md) --------------------------------------------------


def keep_positions(inp: Inputs, valid: list[z3.BoolRef]) -> list[z3.BitVecRef]:
    """Each partition's position in the member's keep order `(rank, topic)` (meaningful where valid).

    rank = number of the member's valid partitions of the same topic with a lower index. Partitions ranked
    before (t, i): rank of its own topic, min(cnt_u, rank + 1) of every earlier topic u, min(cnt_u, rank)
    of every later one.
    """
    shape = inp.shape
    parts = shape.partitions
    offsets = [sum(shape.topics[:t]) for t in range(len(shape.topics))]
    per_topic = [valid[offsets[t] : offsets[t] + n] for t, n in enumerate(shape.topics)]
    cnt = [count(inp, bools) for bools in per_topic]
    positions = []
    for t, i in parts:
        rank = count(inp, per_topic[t][:i])
        pos = rank
        for u in range(len(shape.topics)):
            if u < t:
                pos = pos + umin(cnt[u], rank + 1)
            elif u > t:
                pos = pos + umin(cnt[u], rank)
        positions.append(pos)
    return positions


def keep_first(
    inp: Inputs, valid: list[z3.BoolRef], positions: list[z3.BitVecRef], k: z3.BitVecRef
) -> list[z3.BoolRef]:
    """The first `k` of a member's valid partitions in keep order.

    Fact: min(k, v) are kept, and every valid partition's position is below v (keep order is a permutation).
    """
    kept = [z3.And(v, z3.ULT(pos, k)) for v, pos in zip(valid, positions)]
    total = count(inp, valid)
    fact = z3.And(
        count(inp, kept) == umin(k, total), *[z3.Implies(v, z3.ULT(pos, total)) for v, pos in zip(valid, positions)]
    )
    inp.note(("keep", inp.shape.topics, inp.width), fact)
    return kept


def last_kept(
    inp: Inputs, valid: list[z3.BoolRef], positions: list[z3.BitVecRef], k: z3.BitVecRef
) -> list[z3.BoolRef]:
    """The last of the first `k` (a Boolean per partition; false everywhere when k == 0)."""
    return [z3.And(v, k != inp.num(0), pos == k - 1) for v, pos in zip(valid, positions)]


def exactly_one(bools: list[z3.BoolRef]) -> z3.BoolRef:
    return z3.And(z3.Or(*bools), *[z3.Not(z3.And(bools[a], bools[b])) for a in range(len(bools)) for b in range(a)])


def column_step(inp: Inputs, before: list[z3.BitVecRef], column: list[z3.BoolRef]) -> None:
    """Fact (the induction step of a double count): if the column holds exactly one true, the row counts
    after it add up to one more than before it. Valid for all values (modular sums included), so a chain
    of them, one per column, gives sum of row counts == P without a counting argument."""
    total_before, total_after = inp.num(0), inp.num(0)
    for cnt, bit in zip(before, column):
        total_before = total_before + cnt
        total_after = total_after + (cnt + z3.If(bit, inp.num(1), inp.num(0)))
    step = z3.Implies(exactly_one(column), total_after == total_before + inp.num(1))
    inp.note(("step", len(column), inp.width), step)


def u_index(inp: Inputs, free: list[z3.BoolRef]) -> list[z3.BitVecRef]:
    """Each partition's index in U's order (the number of free partitions before it).
    Fact: a free partition's index is below |U|."""
    index, acc = [], inp.num(0)
    for f in free:
        index.append(acc)
        acc = acc + z3.If(f, inp.num(1), inp.num(0))
    size = count(inp, free)
    inp.note(("prefix", len(free), inp.width), z3.And(*[z3.Implies(f, z3.ULT(i, size)) for f, i in zip(free, index)]))
    return index


def unkept_order(inp: Inputs, taken: list[list[z3.BoolRef]]) -> tuple[list[z3.BoolRef], list[z3.BitVecRef]]:
    """`U`: which partitions nobody kept, and each one's index in U's (topic, index) order."""
    nparts = inp.shape.partition_count
    free = [z3.Not(z3.Or(*[row[p] for row in taken])) if taken else z3.BoolVal(True) for p in range(nparts)]
    cover(inp, [*taken, free])
    return free, u_index(inp, free)


def cover(inp: Inputs, rows: list[list[z3.BoolRef]]) -> None:
    """Note the double-count chain over `rows` (one step per partition): where every column holds
    exactly one true, the row counts add up to P."""
    for p in range(inp.shape.partition_count):
        column_step(inp, [count(inp, row[:p]) for row in rows], [row[p] for row in rows])


def deal(
    inp: Inputs, needs: list[z3.BitVecRef], free: list[z3.BoolRef], index: list[z3.BitVecRef], laps: int,
    available: z3.BitVecRef | None = None,
) -> tuple[list[list[z3.BoolRef]], list[z3.BitVecRef]]:
    """Deal U round-robin: lap k visits, in member order, every member whose need exceeds k.

    Slot of (member m, lap k) = sum over members of min(need, k) + members before m still in lap k; the
    partition with U index j goes to the member holding slot j. Returns [member][partition] and, per
    member, how many slots below `available` (the size of U) it holds: what it actually received.
    """
    n = inp.shape.members
    got = [[z3.BoolVal(False)] * inp.shape.partition_count for _ in range(n)]
    received = []
    for m in range(n):
        slots = []
        for k in range(laps):
            kk = inp.num(k)
            before = inp.num(0)
            for o in range(n):
                before = before + umin(needs[o], kk)
            before = before + count(inp, [z3.UGT(needs[o], kk) for o in range(m)])
            slots.append((z3.UGT(needs[m], kk), before))
        got[m] = [z3.And(free[p], z3.Or(*[z3.And(a, s == index[p]) for a, s in slots])) if slots else
                  z3.BoolVal(False) for p in range(inp.shape.partition_count)]
        if available is not None:
            received.append(count(inp, [z3.And(a, z3.ULT(s, available)) for a, s in slots]))
    if available is not None:
        _deal_fact(inp, needs, free, index, laps, available, got, received)
    return got, received


def _deal_fact(
    inp: Inputs, needs: list[z3.BitVecRef], free: list[z3.BoolRef], index: list[z3.BitVecRef], laps: int,
    available: z3.BitVecRef, got: list[list[z3.BoolRef]], received: list[z3.BitVecRef],
) -> None:
    """Fact: with needs <= laps and U's indices 0..|U|-1, a dealt partition goes to one member, each member
    receives what `received` says (at most its need), and U is dealt entirely when the needs cover it."""
    n, nparts = len(needs), len(free)
    total_need = inp.num(0)
    for need in needs:
        total_need = total_need + need
    hyps = [z3.ULE(need, inp.num(laps)) for need in needs]
    hyps += [available == count(inp, free), *[z3.Implies(f, z3.ULT(i, available)) for f, i in zip(free, index)]]
    hyps += [index[p] == count(inp, free[:p]) for p in range(nparts)]
    received_total = inp.num(0)
    for r in received:
        received_total = received_total + r
    fact = z3.And(
        *[z3.Not(z3.And(got[a][p], got[b][p])) for p in range(nparts) for a in range(n) for b in range(a)],
        *[z3.And(count(inp, got[m]) == received[m], z3.ULE(received[m], needs[m])) for m in range(n)],
        received_total == umin(available, total_need),
        z3.Implies(z3.ULE(available, total_need), z3.And(*[z3.Implies(f, z3.Or(*[row[p] for row in got]))
                                                           for p, f in enumerate(free)])),
    )
    inp.note(("deal", n, nparts, laps, inp.width), z3.Implies(z3.And(*hyps), fact))


def disjoint_union(inp: Inputs, a: list[z3.BoolRef], b: list[z3.BoolRef]) -> list[z3.BoolRef]:
    """a or b, partition-wise. Fact: when they never overlap, the sizes add."""
    out = [z3.Or(x, y) for x, y in zip(a, b)]
    apart = z3.And(*[z3.Not(z3.And(x, y)) for x, y in zip(a, b)])
    inp.note(("union", len(a), inp.width), z3.Implies(apart, count(inp, out) == count(inp, a) + count(inp, b)))
    return out
