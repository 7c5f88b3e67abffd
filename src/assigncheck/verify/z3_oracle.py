"""The optima of `spec.oracle`, recomputed by Z3 `Optimize` on small problems (an independent check).

Per-partition encoding: a Boolean `x[p, m]` per partition p of a subscribed existing topic and
subscriber m, exactly one true per partition (pseudo-Boolean). Member m's count is unary: Booleans
`y[m, k]` ("count >= k", k = 1..deg_m, each implying the previous) with Σ_p x[p, m] = Σ_k y[m, k],
so Σ count² = Σ (2k - 1)·y[m, k] is a weighted soft-constraint objective. Objectives are soft
constraint groups, solved lexicographically in declaration order: balance first, then retained (one
point per validly owned partition kept). Integers are avoided: they are ~20x slower (TOOLCHAIN.md).

`lag_spread_optimum` uses integer lag sums (the lags are arbitrary numbers), one topic at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from assigncheck.spec.errors import InputError
from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.ownership import valid_owned
from assigncheck.spec.reference.lag import partition_lags

MAX_VARIABLES = 5_000  # (partition, subscriber) pairs; beyond this use spec.oracle (min-cost flow)


@dataclass
class _Model:
    opt: z3.Optimize
    x: dict[tuple[str, int, str], z3.BoolRef]  # (topic, index, member) -> "member gets the partition"
    counts: dict[str, list[tuple[z3.BoolRef, int]]]  # member -> its x terms, for pseudo-Boolean sums
    owned: set[tuple[str, int, str]]  # the x keys that are valid ownership


def _model(problem: Problem) -> _Model:
    members = sorted(problem.members, key=lambda m: m.member_id)
    opt = z3.Optimize()
    x: dict[tuple[str, int, str], z3.BoolRef] = {}
    counts: dict[str, list[tuple[z3.BoolRef, int]]] = {m.member_id: [] for m in members}
    pairs = sum(problem.topics[t] * len(problem.subscribers(t)) for t in problem.subscribed_topics())
    if pairs > MAX_VARIABLES:
        raise InputError("problem", f"too large for the Z3 oracle ({pairs} > {MAX_VARIABLES} partition-member pairs)")
    for topic in problem.subscribed_topics():
        subs = [m.member_id for m in members if topic in m.subscription]
        for i in range(problem.topics[topic]):
            row = []
            for m in subs:
                v = z3.Bool(f"x|{topic}|{i}|{m}")
                x[(topic, i, m)] = v
                counts[m].append((v, 1))
                row.append((v, 1))
            opt.add(z3.PbEq(row, 1))
    owned = {(t, i, m) for m, parts in valid_owned(problem).items() for t, arr in parts.items() for i in arr.tolist()}
    return _Model(opt, x, counts, owned)


def _balance_objective(model: _Model) -> None:
    for m, terms in model.counts.items():
        ys = [z3.Bool(f"y|{m}|{k}") for k in range(1, len(terms) + 1)]
        for lower, higher in zip(ys, ys[1:]):
            model.opt.add(z3.Implies(higher, lower))
        model.opt.add(z3.PbEq(terms + [(y, -1) for y in ys], 0))
        for k, y in enumerate(ys, start=1):
            model.opt.add_soft(z3.Not(y), 2 * k - 1, "balance")


def _retained_objective(model: _Model) -> None:
    for key in sorted(model.owned):
        model.opt.add_soft(model.x[key], 1, "retained")


def _mismatched(problem: Problem) -> set[tuple[str, int, str]]:
    """The (topic, index, member) pairs that would mismatch (`spec.racks`: the member has a rack none of the
    partition's replicas is on), read from the problem directly, not from `spec.racks`' layout."""
    known = problem.partition_racks or {}
    out: set[tuple[str, int, str]] = set()
    for m in problem.members:
        if not m.rack:
            continue
        for topic in problem.subscribed_topics():
            if topic in m.subscription:
                given = known.get(topic) or ()
                out.update((topic, i, m.member_id) for i in range(problem.topics[topic])
                           if i >= len(given) or m.rack not in given[i])
    return out


def _rack_objective(model: _Model, problem: Problem) -> set[tuple[str, int, str]]:
    """The fewest mismatches, one soft point per pair that does not mismatch."""
    mismatched = _mismatched(problem) & model.x.keys()
    for key in sorted(mismatched):
        model.opt.add_soft(z3.Not(model.x[key]), 1, "racks")
    return mismatched


def _balance_constraint(model: _Model, problem: Problem, balance: str) -> None:
    if balance == "optimal":
        _balance_objective(model)
    elif balance == "perfect" and model.counts:
        total = sum(problem.topics[t] for t in problem.subscribed_topics())
        floor, ceil = total // len(model.counts), -(-total // len(model.counts))
        for terms in model.counts.values():
            model.opt.add(z3.PbGe(terms, floor) if terms else z3.BoolVal(floor <= 0))
            if terms:
                model.opt.add(z3.PbLe(terms, ceil))


def _solve(model: _Model) -> z3.ModelRef | None:
    result = model.opt.check()
    if result == z3.unsat:
        return None
    if result != z3.sat:
        raise RuntimeError(f"z3 returned {result}: {model.opt.reason_unknown()}")
    return model.opt.model()


def _chosen(model: _Model, solution: z3.ModelRef) -> list[tuple[str, int, str]]:
    return [k for k, v in model.x.items() if z3.is_true(solution.eval(v, model_completion=True))]


def optimal_assignment(problem: Problem) -> Assignment:
    """An assignment with the minimum Σ count², then the most retained."""
    model = _model(problem)
    _balance_objective(model)
    _retained_objective(model)
    solution = _solve(model)
    assert solution is not None  # always satisfiable: every partition has a subscriber
    out: dict[str, list[tuple[str, int]]] = {m.member_id: [] for m in problem.members}
    for t, i, m in _chosen(model, solution):
        out[m].append((t, i))
    return Assignment.of(out)


def optimal_sum_squares(problem: Problem) -> int:
    counts = optimal_assignment(problem).counts()
    return sum(c * c for c in counts.values())


def max_retained(problem: Problem, balance: str = "optimal", racks: bool = False) -> int | None:
    """`spec.oracle.max_retained`'s figure computed by another engine, with that function's signature exactly (the
    tests cross-check the two): balance "none", "perfect" (None if impossible) or "optimal"; with `racks`, among the
    assignments with the fewest rack mismatches under that balance (on any problem: `spec.racks` only asks it of
    rack-aware ones)."""
    solved = _rack_optimum(problem, balance, racks)
    return None if solved is None else solved[1]


def min_mismatches(problem: Problem, balance: str = "optimal") -> int | None:
    """The fewest rack mismatches of a complete assignment under `balance` (None if impossible), by Z3."""
    solved = _rack_optimum(problem, balance, True)
    return None if solved is None else solved[0]


def _rack_optimum(problem: Problem, balance: str, racks: bool) -> tuple[int, int] | None:
    """(mismatches, retained) of the optimum: balance first, then (with `racks`) the fewest mismatches, then the
    most retained, lexicographically."""
    if balance not in ("none", "perfect", "optimal"):
        raise InputError("balance", f"must be one of none, perfect, optimal, got {balance!r}")
    model = _model(problem)
    _balance_constraint(model, problem, balance)
    mismatched = _rack_objective(model, problem) if racks else set()
    _retained_objective(model)
    solution = _solve(model)
    if solution is None:
        return None
    chosen = _chosen(model, solution)
    return sum(1 for key in chosen if key in mismatched), sum(1 for key in chosen if key in model.owned)


def lag_spread_optimum(problem: Problem) -> dict[str, int]:
    """Per subscribed topic: the least lag spread (max - min total lag over the topic's subscribers)
    among assignments of that topic with per-topic count balance (counts differ by at most one)."""
    out = {}
    for topic in problem.subscribed_topics():
        lags = partition_lags(problem, topic)
        subs = sorted(m.member_id for m in problem.subscribers(topic))
        if len(lags) * len(subs) > MAX_VARIABLES:
            raise InputError("problem", f"topic {topic!r} is too large for the Z3 oracle")
        opt = z3.Optimize()
        x = {(i, m): z3.Bool(f"x|{i}|{m}") for i in range(len(lags)) for m in subs}
        for i in range(len(lags)):
            opt.add(z3.PbEq([(x[(i, m)], 1) for m in subs], 1))
        floor, ceil = len(lags) // len(subs), -(-len(lags) // len(subs))
        hi, lo = z3.Int("hi"), z3.Int("lo")
        for m in subs:
            terms = [(x[(i, m)], 1) for i in range(len(lags))]
            if terms:
                opt.add(z3.PbGe(terms, floor), z3.PbLe(terms, ceil))
            total = z3.Sum([z3.If(x[(i, m)], lag, 0) for i, lag in enumerate(lags)] + [z3.IntVal(0)])
            opt.add(hi >= total, lo <= total)
        opt.minimize(hi - lo)
        if opt.check() != z3.sat:
            raise RuntimeError(f"z3 could not solve the lag spread of {topic!r}")
        out[topic] = opt.model().eval(hi - lo).as_long()
    return out
