"""Stage contracts: what the keep and deal stages of the constrained algorithm guarantee, proved once per size.

A proof of a whole shape makes the SAT solver bit-blast every stage at once: the keep order's quota terms,
the deal's slot arithmetic, and their law chains. The invariants need much less: a member keeps
min(k, v) of its own valid partitions (all of them when k >= v), and the deal hands out disjoint subsets of
U, at most each member's need, exactly the needs and all of U when U is as large as they add up to.

So the stages are proved once against these *contracts* (on fresh inputs, per size), and a model composed
with `CONTRACTED` stages sees only fresh outputs plus the guarantee:

    for all stage inputs: guarantee(input, stage(input))                (this module, per size)
    for all inputs and all outputs o: guarantees(o) -> invariant(o)     (verify.prove, per cell)

together give the invariant of the real model (instantiate o with the stages' real outputs). The keep
stage is the only one that reads the topic split, so one composed query covers every shape with the same
member and partition counts: its keep contract is proved for each split of the partition count into at
most `topics` topics. A composed query that finds a "counterexample" proves nothing either way (the
fresh outputs may be unreachable): the prover then falls back to the real model, shape by shape.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import z3

from assigncheck.verify.models import chains, laws
from assigncheck.verify.models.encoding import Inputs, Shape, topic_vectors

Row = list[z3.BoolRef]
_fresh = itertools.count()  # distinct names for the fresh outputs of every stage instance


def _bools(prefix: str, n: int) -> Row:
    k = next(_fresh)
    return [z3.Bool(f"{prefix}{k}_{i}") for i in range(n)]


def keep_guarantee(valid: Row, k: z3.BitVecRef, kept: Row) -> z3.BoolRef:
    """kept is a subset of valid of size min(k, |valid|), all of valid when k >= |valid|."""
    w = k.size()
    v = laws.count(valid, w)
    return z3.And(*[z3.Implies(a, b) for a, b in zip(kept, valid)], laws.count(kept, w) == laws.umin(k, v),
                  z3.Implies(z3.ULE(v, k), z3.And(*[a == b for a, b in zip(kept, valid)])))


def deal_guarantee(needs: list[z3.BitVecRef], free: Row, got: list[Row], laps: int) -> z3.BoolRef:
    """With needs <= laps: disjoint subsets of U, at most each need; exactly the needs and all of U when
    |U| is the sum of the needs."""
    w = needs[0].size()
    n, nparts = len(needs), len(free)
    counts = [laws.count(row, w) for row in got]
    exact = z3.And(*[c == x for c, x in zip(counts, needs)],
                   *[z3.Implies(free[p], z3.Or(*[row[p] for row in got])) for p in range(nparts)])
    return z3.Implies(
        z3.And(*[z3.ULE(x, laws.val(w, laps)) for x in needs]),
        z3.And(*[z3.Implies(got[m][p], free[p]) for m in range(n) for p in range(nparts)],
               *[z3.Not(z3.And(got[a][p], got[b][p])) for p in range(nparts) for a in range(n) for b in range(a)],
               *[z3.ULE(c, x) for c, x in zip(counts, needs)],
               z3.Implies(laws.count(free, w) == laws.total(needs, w), exact)),
    )


# ---- the stages: real terms, or fresh outputs under their contract -------------------------------------


@dataclass(frozen=True)
class Stages:
    """How a model builds its keep and deal stages (the signatures of chains.keep_prefix and chains.deal)."""

    keep: Callable[[Inputs, Row, z3.BitVecRef], tuple[Row, z3.BitVecRef]]
    deal: Callable[[Inputs, list[z3.BitVecRef], Row, int], tuple[list[Row], list[z3.BitVecRef]]]


REAL = Stages(chains.keep_prefix, chains.deal)


def _keep(inp: Inputs, valid: Row, k: z3.BitVecRef, *, topics: int) -> tuple[Row, z3.BitVecRef]:
    kept = _bools("kept", len(valid))
    chains.note_bounds(inp, valid)  # |valid| <= P, as the real stage notes it (the plan's facts assume it)
    inp.note(("contract", "keep", len(valid), topics, inp.width), keep_guarantee(valid, k, kept))
    return kept, laws.count(kept, inp.width)


def _deal(inp: Inputs, needs: list[z3.BitVecRef], free: Row, laps: int) -> tuple[list[Row], list[z3.BitVecRef]]:
    got = [_bools(f"got{m}_", len(free)) for m in range(len(needs))]
    inp.note(("contract", "deal", len(needs), len(free), laps, inp.width), deal_guarantee(needs, free, got, laps))
    return got, [laws.count(row, inp.width) for row in got]


def contracted(topics: int) -> Stages:
    """Stages as fresh outputs under their contracts, for shapes of at most `topics` topics."""
    return Stages(partial(_keep, topics=topics), _deal)


# ---- proving a contract ---------------------------------------------------------------------------------


def obligations(key: tuple) -> list[tuple[Inputs, z3.BoolRef]]:
    """The real stage on fresh inputs, with the guarantee it must meet: one per topic split for keep."""
    _, stage, *params = key
    out = []
    if stage == "keep":
        nparts, topics, w = params
        for sizes in topic_vectors(nparts, topics):
            if sum(sizes) != nparts:
                continue
            inp = Inputs(Shape(1, sizes), w, [], [], [], [], [])
            valid, k = _bools("valid", nparts), z3.BitVec("k", w)
            kept, _ = chains.keep_prefix(inp, valid, k)
            out.append((inp, keep_guarantee(valid, k, kept)))
    elif stage == "deal":
        n, nparts, laps, w = params
        inp = Inputs(Shape(n, (nparts,)), w, [], [], [], [], [])
        needs, free = [z3.BitVec(f"need{m}", w) for m in range(n)], _bools("free", nparts)
        got, _ = chains.deal(inp, needs, free, laps)
        out.append((inp, deal_guarantee(needs, free, got, laps)))
    else:
        raise ValueError(f"unknown stage {stage!r}")
    return out


def prove_contract(key: tuple, seconds: float) -> str:
    """"proved" | "counterexample" | "unknown": every obligation of `key`, each with its stage's law
    chains (proved first) as helper facts."""
    from assigncheck.verify.models.facts import bitblast_solver, prove_fact

    for inp, goal in obligations(key):
        facts = []
        for fact_key, fact in inp.facts or []:
            status = prove_fact(fact_key, seconds)
            if status == "unknown":
                return "unknown"
            if status == "proved":
                facts.append(fact)
        solver = bitblast_solver(seconds)
        solver.add(*facts, z3.Not(goal))
        status = solver.check()
        if status != z3.unsat:
            return "counterexample" if status == z3.sat else "unknown"
    return "proved"
