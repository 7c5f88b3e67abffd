"""The lemmas behind the helper facts the encodings state (`Inputs.note`): each fact kind is rebuilt by
the same encoding function on fresh variables and proved valid once per (kind, sizes, width). A proved
fact holds for every value of its variables, hence for the terms a model instantiates it with; adding it
to a proof query changes no answer, it only spares the SAT solver the counting arguments it is bad at."""

from __future__ import annotations

from typing import Any

import z3

from assigncheck.verify.models.encoding import (
    Inputs,
    Shape,
    column_step,
    deal,
    disjoint_union,
    keep_first,
    keep_positions,
    u_index,
)
from assigncheck.verify.models.laws import law_formula

FactKey = tuple[Any, ...]  # (kind, its parameters: sizes, a tuple of topic sizes, a variant name)
_proved: dict[FactKey, str] = {}


def _fresh_inputs(shape: Shape, width: int) -> Inputs:
    return Inputs(shape, width, [], [], [], [])


def _bools(prefix: str, n: int) -> list[z3.BoolRef]:
    return [z3.Bool(f"{prefix}{i}") for i in range(n)]


def lemma(key: FactKey) -> z3.BoolRef:
    """The fact of kind `key[0]` over fresh variables (built by the encoding function that notes it)."""
    kind, *params = key
    if kind == "law":
        return law_formula(key)
    width = int(params[-1])
    if kind == "keep":
        topics = tuple(params[0])
        inp = _fresh_inputs(Shape(1, topics), width)
        row = _bools("v", sum(topics))
        keep_first(inp, row, keep_positions(inp, row), z3.BitVec("k", width))
    elif kind == "step":
        rows = int(params[0])
        inp = _fresh_inputs(Shape(1, (1,)), width)
        column_step(inp, [z3.BitVec(f"before{m}", width) for m in range(rows)], _bools("bit", rows))
    elif kind == "prefix":
        nparts = int(params[0])
        inp = _fresh_inputs(Shape(1, (nparts,)), width)
        u_index(inp, _bools("free", nparts))
    elif kind == "deal":
        members, nparts, laps = int(params[0]), int(params[1]), int(params[2])
        inp = _fresh_inputs(Shape(members, (nparts,)), width)
        free = _bools("free", nparts)
        index = u_index(inp, free)
        needs = [z3.BitVec(f"need{m}", width) for m in range(members)]
        deal(inp, needs, free, index, laps, available=z3.BitVec("available", width))
    elif kind == "union":
        nparts = int(params[0])
        inp = _fresh_inputs(Shape(1, (nparts,)), width)
        disjoint_union(inp, _bools("a", nparts), _bools("b", nparts))
    elif kind == "plan3":
        from assigncheck.verify.models.constrained import plan

        variant, members, nparts = params[0], int(params[1]), int(params[2])
        inp = _fresh_inputs(Shape(members, (nparts,)), width)
        plan(inp, [z3.BitVec(f"v{m}", width) for m in range(members)], variant)
    else:
        raise ValueError(f"unknown fact kind {kind!r}")
    assert inp.facts and inp.facts[-1][0] == key, (key, inp.facts[-1][0] if inp.facts else None)
    return inp.facts[-1][1]


def bitblast_solver(seconds: float) -> z3.Solver:
    """Bit-blast and SAT, after a simplification that keeps nested sums nested: the helper facts chain
    through shared sub-terms (prefix counts), which the default flattening of sums into one n-ary sum
    would rebuild apart (at 4 members x [4, 4]: 0.65 s instead of 38 s for H5)."""
    tactic = z3.Then(z3.With("simplify", flat=False, elim_and=False), "bit-blast", "sat")
    return z3.TryFor(tactic, max(1, int(seconds * 1000))).solver()


def prove_fact(key: FactKey, timeout_s: float) -> str:
    """"proved" | "counterexample" | "unknown" (cached per key: a key fixes every size and the width)."""
    if key[0] == "r2":
        return prove_fact(key[1:], timeout_s)
    if _proved.get(key) == "proved":
        return "proved"
    if key[0] == "contract":  # a stage against its contract (verify.models.contracts), with its own facts
        from assigncheck.verify.models.contracts import prove_contract

        result = prove_contract(key, timeout_s)
        _proved[key] = result
        return result
    solver = z3.SolverFor("QF_BV")
    solver.set("timeout", max(1, int(timeout_s * 1000)))
    solver.add(z3.Not(lemma(key)))
    status = solver.check()
    result = "proved" if status == z3.unsat else "counterexample" if status == z3.sat else "unknown"
    _proved[key] = result
    return result
