"""The invariants and promises of docs/SPEC.md §3-§6 as Z3 formulas over a model's output.

An output is `[member][flat partition] -> Bool`. It can only name existing partitions, so H2 holds by
construction of every encoding (the conformance tests check that the Python code agrees).
"""

from __future__ import annotations

import z3

from assigncheck.verify.models.chains import row_count
from assigncheck.verify.models.encoding import Inputs, count, umin
from assigncheck.verify.models.laws import total as sum_terms

Matrix = list[list[z3.BoolRef]]


def h3_subscription(inp: Inputs, out: Matrix) -> z3.BoolRef:
    topic = inp.topic_of()
    return z3.And(*[z3.Implies(out[m][p], inp.subs[m][topic[p]]) for m in range(len(out)) for p in range(len(topic))])


def h4_exclusive(out: Matrix) -> z3.BoolRef:
    nparts = len(out[0]) if out else 0
    return z3.And(
        *[z3.Not(z3.And(out[a][p], out[b][p])) for p in range(nparts) for a in range(len(out)) for b in range(a)]
    )


def subscribed_by_anyone(inp: Inputs, topic: int) -> z3.BoolRef:
    return z3.Or(*[row[topic] for row in inp.subs])


def h5_complete(inp: Inputs, out: Matrix) -> z3.BoolRef:
    """Eager H5: every partition of a topic with a subscriber is assigned."""
    topic = inp.topic_of()
    return z3.And(
        *[z3.Implies(subscribed_by_anyone(inp, topic[p]), z3.Or(*[row[p] for row in out])) for p in range(len(topic))]
    )


def h5_cooperative(inp: Inputs, out: Matrix) -> z3.BoolRef:
    """Cooperative H5: a partition of a subscribed topic is assigned, or some member still claims it."""
    topic = inp.topic_of()
    return z3.And(
        *[
            z3.Implies(
                subscribed_by_anyone(inp, topic[p]),
                z3.Or(*[row[p] for row in out], *[row[p] for row in inp.claims]),
            )
            for p in range(len(topic))
        ]
    )


def h6_cooperative_safety(inp: Inputs, out: Matrix) -> z3.BoolRef:
    """A partition newly given to b (not in b's raw claims) is claimed by no other member."""
    n = len(out)
    return z3.And(
        *[
            z3.Implies(
                z3.And(out[b][p], z3.Not(inp.claims[b][p])),
                z3.Not(z3.Or(*[inp.claims[o][p] for o in range(n) if o != b])),
            )
            for b in range(n)
            for p in range(len(inp.topic_of()))
        ]
    )


def counts(inp: Inputs, out: Matrix) -> list[z3.BitVecRef]:
    return [count(inp, row) for row in out]


def perfect_balance(inp: Inputs, out: Matrix) -> z3.BoolRef:
    """max - min member count <= 1."""
    c = counts(inp, out)
    one = inp.num(1)
    return z3.And(*[z3.ULE(c[a], c[b] + one) for a in range(len(c)) for b in range(len(c)) if a != b])


def per_topic_balance(inp: Inputs, out: Matrix) -> z3.BoolRef:
    """Range: per topic, the counts of its subscribers differ by at most 1."""
    topic = inp.topic_of()
    one = inp.num(1)
    clauses = []
    for t in range(len(inp.shape.topics)):
        mine = [count(inp, [row[p] for p in range(len(topic)) if topic[p] == t]) for row in out]
        for a in range(len(out)):
            for b in range(len(out)):
                if a != b:
                    both = z3.And(inp.subs[a][t], inp.subs[b][t])
                    clauses.append(z3.Implies(both, z3.ULE(mine[a], mine[b] + one)))
    return z3.And(*clauses)


def all_subscriptions_equal(inp: Inputs) -> z3.BoolRef:
    topics = range(len(inp.shape.topics))
    return z3.And(*[inp.subs[m][t] == inp.subs[0][t] for m in range(1, len(inp.subs)) for t in topics])


def retained(inp: Inputs, valid: Matrix, out: Matrix, *, per_member: bool = False) -> z3.BitVecRef:
    """per_member: summed member by member (the same value, in the form the constrained model's law
    chains speak about)."""
    if per_member:
        counts = [count(inp, [z3.And(v, o) for v, o in zip(vrow, orow)]) for vrow, orow in zip(valid, out)]
        return sum_terms(counts, inp.width)
    return count(inp, [z3.And(v, o) for vrow, orow in zip(valid, out) for v, o in zip(vrow, orow)])


def max_retained_equal_subscriptions(inp: Inputs, valid: Matrix, *, per_topic: bool = False) -> z3.BitVecRef:
    """Closed form (verify.lemmas proves it against the definition): with f = P div C, c = ceil(P/C),
    r = P mod C, the most a perfectly balanced assignment retains is sum min(v_m, f) + min(r, #{v_m >= c})."""
    total, n = inp.shape.partition_count, inp.shape.members
    f, r = total // n, total % n
    c = f + (1 if r else 0)
    v = [row_count(inp, row) if per_topic else count(inp, row) for row in valid]  # per_topic: see retained
    base = sum_terms([umin(vm, inp.num(f)) for vm in v], inp.width)
    at_ceiling = count(inp, [z3.UGE(vm, inp.num(c)) for vm in v])
    return base + umin(inp.num(r), at_ceiling)


def same_output(a: Matrix, b: Matrix) -> z3.BoolRef:
    return z3.And(*[x == y for ra, rb in zip(a, b) for x, y in zip(ra, rb)])


def nothing_withheld(inp: Inputs, out: Matrix) -> z3.BoolRef:
    topic = inp.topic_of()
    return z3.And(
        *[z3.Implies(subscribed_by_anyone(inp, topic[p]), z3.Or(*[row[p] for row in out])) for p in range(len(topic))]
    )
