"""Symbolic model of `streams-sticky` (rules 1-5 of `spec/reference/streams.py`), and its bounded proofs.

A Streams problem is not a consumer group, so this model has its own shapes and inputs: a shape fixes the
clients' capacities (client k is the k-th by id) and the sub-topologies' task counts (sub-topology s the
s-th by name); every previous active and standby claim of a known task is symbolic. Quotas (rule 1) depend on
the shape alone and are computed, not encoded; valid previous actives, the keep stage (rule 3, one greedy
step at a time) and the hand-out laps (rule 5) are encoded step by step as QF_BV terms. A junk claim (an
unknown sub-topology, an index out of range, a repeat) counts for nothing in any rule, so shapes leave it out.

`prove_streams` asks, shape by shape (smallest first), for claims breaking each invariant of docs/SPEC.md §7.4
that the checker enforces (`streams.clients` holds by construction: the output has one row per client; so do
the standby invariants of §7.5, as KAFKA-7203's rules place no standby, and model-versus-code replay compares
standbys too, so code that placed one would differ from the model);
`evaluate` runs the model on a concrete problem (conformance with the code), `problem_of` turns a solver's
model back into a `StreamsProblem` (counterexamples replay on the code).
"""

from __future__ import annotations

import functools
import itertools
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

import z3

from assigncheck.spec.errors import InputError
from assigncheck.spec.model import Assignment, Client, StreamsProblem, iter_pairs, partitions_of
from assigncheck.spec.reference.streams import quotas

WIDTH = 8  # signed keys reach ±T·max quota, products of counts and capacities: the bounds keep them inside ±127
INVARIANTS = ("streams.active_once", "streams.balance", "streams.sticky")
BY_CONSTRUCTION = ("streams.clients", "streams.standby_replicas", "streams.standby_apart", "streams.standby_stateful")


@dataclass(frozen=True, slots=True)
class StreamsBound:
    clients: int
    tasks: int
    subtopologies: int = 2
    capacity: int = 2

    def __post_init__(self) -> None:
        for name in ("clients", "tasks", "subtopologies", "capacity"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise InputError(f"--{name}", f"must be a whole number >= 1, got {value!r}")

    def __str__(self) -> str:
        return (f"clients<={self.clients} tasks<={self.tasks} subtopologies<={self.subtopologies} "
                f"capacity<={self.capacity}")


@dataclass(frozen=True, slots=True)
class StreamsShape:
    capacities: tuple[int, ...]  # client k (the k-th by id)
    sizes: tuple[int, ...]  # tasks of sub-topology s (the s-th by name)

    @property
    def tasks(self) -> list[tuple[int, int]]:
        return [(s, i) for s, n in enumerate(self.sizes) for i in range(n)]

    def __str__(self) -> str:
        return f"capacities {list(self.capacities)} x tasks {list(self.sizes)}"


def shapes(bound: StreamsBound) -> list[StreamsShape]:
    """Every shape within the bound, smallest first (clients + tasks, then clients)."""
    from assigncheck.verify.models.encoding import topic_vectors

    out = [StreamsShape(caps, sizes)
           for n in range(1, bound.clients + 1)
           for caps in itertools.product(range(1, bound.capacity + 1), repeat=n)
           for sizes in topic_vectors(bound.tasks, bound.subtopologies)]
    return sorted(out, key=lambda s: (len(s.capacities) + sum(s.sizes), len(s.capacities), s.sizes, s.capacities))


@dataclass
class StreamsInputs:
    shape: StreamsShape
    active: list[list[z3.BoolRef]]  # [client][task]: a previous active claim
    standby: list[list[z3.BoolRef]]  # [client][task]: a previous standby claim


def symbolic(shape: StreamsShape) -> StreamsInputs:
    n, t = len(shape.capacities), len(shape.tasks)
    return StreamsInputs(shape, [[z3.Bool(f"a_{c}_{k}") for k in range(t)] for c in range(n)],
                         [[z3.Bool(f"s_{c}_{k}") for k in range(t)] for c in range(n)])


@functools.cache
def _num(x: int) -> z3.BitVecRef:
    return z3.BitVecVal(x, WIDTH)


def _count(bits: list[z3.BoolRef]) -> z3.BitVecRef:
    if not bits:
        return _num(0)
    one, zero = _num(1), _num(0)
    return z3.Sum([z3.If(b, one, zero) for b in bits])


def _one_hot_min(eligible: list[z3.BoolRef], before: list[list[z3.BoolRef]]) -> list[z3.BoolRef]:
    """sel[s]: s is eligible and no eligible s' ranks before it (`before[a][b]`: a ranks before b; a strict
    total order, so exactly one is selected when any is eligible)."""
    n = len(eligible)
    return [z3.And(eligible[s], *[z3.Not(z3.And(eligible[o], before[o][s])) for o in range(n) if o != s])
            for s in range(n)]


def _lowest(bits: list[z3.BoolRef]) -> list[z3.BoolRef]:
    """The first true bit, one-hot."""
    return [z3.And(b, *[z3.Not(e) for e in bits[:k]]) for k, b in enumerate(bits)]


def _picks_before(key: list[z3.BitVecRef], standby: list[z3.BoolRef], a: int, b: int) -> z3.BoolRef:
    """Rule 5's order on sub-topologies: larger deficit (smaller key), then holding a standby, then name."""
    tied = key[a] == key[b]
    return z3.Or(key[a] < key[b], z3.And(tied, standby[a], z3.Not(standby[b])),
                 z3.And(tied, standby[a] == standby[b], z3.BoolVal(a < b)))


def assign(inp: StreamsInputs) -> list[list[z3.BoolRef]]:
    """[client][task]: the model's output (rules 2-5; rule 1's quotas from the shape)."""
    shape = inp.shape
    tasks, n = shape.tasks, len(shape.capacities)
    of = [[k for k, (s, _) in enumerate(tasks) if s == sub] for sub in range(len(shape.sizes))]
    quota = _quotas(shape)
    valid = [[z3.And(inp.active[c][k], *[z3.Not(inp.active[o][k]) for o in range(n) if o != c])
              for k in range(len(tasks))] for c in range(n)]
    out = [[z3.BoolVal(False)] * len(tasks) for _ in range(n)]
    held = [_keep(shape, of, valid[c], quota[c], out[c]) for c in range(n)]
    free = [z3.Not(z3.Or(*[out[c][k] for c in range(n)])) for k in range(len(tasks))]
    have = [sum(held[c], _num(0)) for c in range(n)]
    for _lap in range(max(quota, default=0)):  # rule 5: laps over the clients by id
        for c in range(n):
            if quota[c]:
                go = z3.ULT(have[c], _num(quota[c]))
                _take_one(shape, of, go, inp.standby[c], quota[c], held[c], free, out[c])
                have[c] = have[c] + z3.If(go, _num(1), _num(0))
    return out


def _keep(shape: StreamsShape, of: list[list[int]], valid: list[z3.BoolRef], quota: int,
          out: list[z3.BoolRef]) -> list[z3.BitVecRef]:
    """Rule 3 for one client: keep min(|valid|, quota) of its valid previous actives, the largest deficit
    first, lowest indices (written into `out`); returns how many it kept per sub-topology."""
    subs, total = range(len(shape.sizes)), len(shape.tasks)
    previous = [_count([valid[k] for k in of[s]]) for s in subs]
    count = sum(previous, _num(0))
    keep = z3.If(z3.ULT(count, _num(quota)), count, _num(quota))
    kept = [_num(0) for _ in subs]
    for step in range(quota):
        key = [kept[s] * total - keep * shape.sizes[s] for s in subs]
        eligible = [z3.ULT(kept[s], previous[s]) for s in subs]
        before = [[key[a] < key[b] if a > b else key[a] <= key[b] for b in subs] for a in subs]
        sel = _one_hot_min(eligible, before)
        go = z3.ULT(_num(step), keep)
        kept = [kept[s] + z3.If(z3.And(go, sel[s]), _num(1), _num(0)) for s in subs]
    for s in subs:
        for j, k in enumerate(of[s]):
            out[k] = z3.And(valid[k], z3.ULT(_count([valid[e] for e in of[s][:j]]), kept[s]))
    return kept


def _take_one(shape: StreamsShape, of: list[list[int]], go: z3.BoolRef, standby_of: list[z3.BoolRef], quota: int,
              held: list[z3.BitVecRef], free: list[z3.BoolRef], out: list[z3.BoolRef]) -> None:
    """Rule 5, one client's turn (when `go`): a free task of the sub-topology it lacks most, its previous
    standby first, else the lowest index; updates `held`, `free` and `out` in place."""
    subs, total = range(len(shape.sizes)), len(shape.tasks)
    nonempty = [z3.Or(*[free[k] for k in of[s]]) for s in subs]
    mine = [[z3.And(free[k], standby_of[k]) for k in of[s]] for s in subs]
    standby = [z3.Or(*mine[s]) for s in subs]
    key = [held[s] * total - quota * shape.sizes[s] for s in subs]
    sel = _one_hot_min(nonempty, [[_picks_before(key, standby, a, b) for b in subs] for a in subs])
    for s in subs:
        first_standby, first_free = _lowest(mine[s]), _lowest([free[k] for k in of[s]])
        took = []
        for j, k in enumerate(of[s]):
            take = z3.And(go, sel[s], z3.If(standby[s], first_standby[j], first_free[j]))
            out[k] = z3.Or(out[k], take)
            free[k] = z3.And(free[k], z3.Not(take))
            took.append(take)
        held[s] = held[s] + _count(took)


def _quotas(shape: StreamsShape) -> list[int]:
    problem = StreamsProblem({_name(s, len(shape.sizes)): n for s, n in enumerate(shape.sizes)},
                             tuple(Client(_client(c, len(shape.capacities)), cap)
                                   for c, cap in enumerate(shape.capacities)))
    by_id = quotas(problem)
    return [by_id[c.client_id] for c in problem.clients]


def _client(c: int, n: int) -> str:
    return f"c{c:0{len(str(max(n - 1, 0)))}d}"


def _name(s: int, n: int) -> str:
    return f"s{s:0{len(str(max(n - 1, 0)))}d}"


def invariants(inp: StreamsInputs, assign_fn: Callable[[StreamsInputs], list[list[z3.BoolRef]]] | None = None,
               ) -> dict[str, z3.BoolRef]:
    """The checker's Streams invariants (spec/streams_checks.py) on the model's output (or `assign_fn`'s)."""
    out = (assign_fn or assign)(inp)
    shape = inp.shape
    n, total, caps = len(shape.capacities), len(shape.tasks), shape.capacities
    once = z3.And(*[z3.And(z3.Or(*[out[c][k] for c in range(n)]),
                           *[z3.Not(z3.And(out[a][k], out[b][k])) for a in range(n) for b in range(a + 1, n)])
                    for k in range(total)])
    given = [_count(out[c]) for c in range(n)]
    balance = z3.And(*[given[a] * caps[b] - given[b] * caps[a] <= caps[a] * caps[b]
                       for a in range(n) for b in range(n) if a != b])
    sticky = []
    for c in range(n):
        valid = [z3.And(inp.active[c][k], *[z3.Not(inp.active[o][k]) for o in range(n) if o != c])
                 for k in range(total)]
        previous = _count(valid)
        kept = _count([z3.And(v, o) for v, o in zip(valid, out[c])])
        sticky.append(z3.UGE(kept, z3.If(z3.ULT(previous, given[c]), previous, given[c])))
    return {"streams.active_once": once, "streams.balance": balance, "streams.sticky": z3.And(*sticky)}


# ---- concrete problems ----------------------------------------------------------------------------------------


def inputs_of(problem: StreamsProblem) -> tuple[StreamsInputs, list[str], list[str]]:
    """The model's concrete inputs for `problem` (clients by id, sub-topologies by name; junk claims dropped)."""
    if not problem.clients:
        raise InputError("clients", "the streams model needs at least one client")
    clients = sorted(problem.clients, key=lambda c: c.client_id)
    names = sorted(problem.subtopologies)
    shape = StreamsShape(tuple(c.capacity for c in clients), tuple(problem.subtopologies[s] for s in names))
    slot = {(names[s], i): k for k, (s, i) in enumerate(shape.tasks)}

    def row(claims: object) -> list[z3.BoolRef]:
        held = {slot[t] for t in iter_pairs(claims) if t in slot}  # type: ignore[arg-type]
        return [z3.BoolVal(k in held) for k in range(len(shape.tasks))]

    return (StreamsInputs(shape, [row(c.active) for c in clients], [row(c.standby) for c in clients]),
            [c.client_id for c in clients], names)


def evaluate(problem: StreamsProblem) -> Assignment:
    """The model's output on a concrete problem (every term simplifies to a constant)."""
    inp, ids, names = inputs_of(problem)
    out = assign(inp)
    by_client = {}
    for cid, row in zip(ids, out):
        tasks = []
        for (s, i), term in zip(inp.shape.tasks, row):
            value = z3.simplify(term)
            if not (z3.is_true(value) or z3.is_false(value)):
                raise AssertionError(f"model output for {cid} did not reduce to a constant: {value}")
            if z3.is_true(value):
                tasks.append((names[s], i))
        by_client[cid] = tasks
    return Assignment.of(by_client)


def problem_of(inp: StreamsInputs, solution: z3.ModelRef) -> StreamsProblem:
    """The concrete problem a solver's model describes: clients c0.., sub-topologies s0.."""
    shape = inp.shape
    n, m = len(shape.capacities), len(shape.sizes)

    def claims(row: list[z3.BoolRef]) -> list[tuple[str, int]]:
        return [(_name(s, m), i) for (s, i), b in zip(shape.tasks, row)
                if z3.is_true(solution.eval(b, model_completion=True))]

    return StreamsProblem({_name(s, m): size for s, size in enumerate(shape.sizes)},
                          tuple(Client(_client(c, n), cap, partitions_of(claims(inp.active[c])),
                                       partitions_of(claims(inp.standby[c])))
                                for c, cap in enumerate(shape.capacities)))


# ---- bounded proofs -------------------------------------------------------------------------------------------


@dataclass
class StreamsOutcome:
    invariant: str
    status: str = "open"  # open, proved, counterexample, unknown
    problem: StreamsProblem | None = None
    shape: StreamsShape | None = None
    note: str = ""


@dataclass
class StreamsProof:
    bound: StreamsBound
    outcomes: dict[str, StreamsOutcome] = field(default_factory=dict)
    shapes_done: int = 0
    shapes_total: int = 0
    seconds: float = 0.0

    @property
    def counterexamples(self) -> list[StreamsOutcome]:
        return [o for o in self.outcomes.values() if o.status == "counterexample"]


def prove_streams(bound: StreamsBound, seconds: float,
                  assign_fn: Callable[[StreamsInputs], list[list[z3.BoolRef]]] | None = None) -> StreamsProof:
    """Every invariant for every claim pattern of every shape within `bound`, or the smallest counterexample,
    within `seconds` (what is left open then is "unknown", with the shape it stopped at). `assign_fn` replaces
    the model's encoding (the tests' deliberately broken variants)."""
    started = time.monotonic()
    deadline = started + seconds
    result = StreamsProof(bound, {n: StreamsOutcome(n) for n in INVARIANTS})
    todo = shapes(bound)
    result.shapes_total = len(todo)
    for shape in todo:
        inp = symbolic(shape)
        props = invariants(inp, assign_fn)
        open_ = [n for n in props if result.outcomes[n].status != "counterexample"]
        left = deadline - time.monotonic()
        if left <= 0:
            return _finish(result, started, shape, "time ran out")
        solver = z3.SolverFor("QF_BV")  # one query for all of them: most shapes break none
        solver.set("timeout", max(1, int(left * 1000)))
        solver.add(z3.Not(z3.And(*[props[n] for n in open_])))
        status = solver.check()
        if status == z3.unknown:
            return _finish(result, started, shape, "time ran out")
        if status == z3.sat:  # the invariants this input breaks; the others are asked again at this shape
            solution = solver.model()
            for n in open_:
                if z3.is_false(solution.eval(props[n], model_completion=True)):
                    outcome = result.outcomes[n]
                    outcome.status, outcome.shape, outcome.problem = "counterexample", shape, problem_of(inp, solution)
            for n in open_:
                if result.outcomes[n].status == "counterexample":
                    continue
                left = deadline - time.monotonic()
                if left <= 0:
                    return _finish(result, started, shape, "time ran out")
                solver = z3.SolverFor("QF_BV")
                solver.set("timeout", max(1, int(left * 1000)))
                solver.add(z3.Not(props[n]))
                status = solver.check()
                if status == z3.unknown:
                    return _finish(result, started, shape, "time ran out")
                if status == z3.sat:
                    outcome = result.outcomes[n]
                    outcome.status, outcome.shape = "counterexample", shape
                    outcome.problem = problem_of(inp, solver.model())
        result.shapes_done += 1
    return _finish(result, started)


def _finish(result: StreamsProof, started: float, shape: StreamsShape | None = None, why: str = "") -> StreamsProof:
    for o in result.outcomes.values():
        if o.status != "open":
            continue
        if shape is None:
            o.status = "proved"
        else:
            o.status, o.shape = "unknown", shape
            o.note = f"{why} at shape {shape} ({result.shapes_done} of {result.shapes_total} shapes proved)"
    result.seconds = time.monotonic() - started
    return result


# ---- model vs code --------------------------------------------------------------------------------------------


def sample_problems(bound: StreamsBound, seed: int = 0) -> Iterator[StreamsProblem]:
    """Endless seeded Streams problems within `bound` (`generate.build.streams_problem`, junk claims included),
    clients under random ids listed in a random order, so that the code's own ordering is exercised."""
    from assigncheck.generate.build import SeededChooser, streams_problem

    rng = random.Random(seed)
    choose = SeededChooser(rng)
    while True:
        p = streams_problem(choose, max_clients=bound.clients, max_subtopologies=bound.subtopologies,
                            max_tasks=bound.tasks, max_capacity=bound.capacity, claims="any", max_standbys=2,
                            inputs=False)  # the model has no lags, racks or tags: streams-sticky reads none
        if p.task_count > bound.tasks:
            continue
        names = rng.sample([f"c{k}" for k in range(2 * bound.clients)], len(p.clients))
        clients = [replace(c, client_id=name) for c, name in zip(p.clients, names)]
        rng.shuffle(clients)
        yield replace(p, clients=tuple(clients))


def conformance(assignor: object, bound: StreamsBound, *, seconds: float, seed: int = 0, limit: int = 500,
                at_least: int = 0) -> tuple[int, StreamsProblem | None]:
    """(problems agreed on, the first one model and code differ on, or None)."""
    from assigncheck.run.calls import run_assignor

    checked, deadline = 0, time.monotonic() + seconds
    for problem in sample_problems(bound, seed):
        if checked >= limit or (checked >= at_least and time.monotonic() > deadline):
            break
        if disagrees(assignor, problem, run_assignor):
            return checked, problem
        checked += 1
    return checked, None


def disagrees(assignor: object, problem: StreamsProblem, run: object = None) -> bool:
    """Whether the model and the code differ on `problem` (a crash of the code is a disagreement)."""
    from assigncheck.run.calls import run_assignor

    try:
        expected = evaluate(problem)
    except InputError:
        return False
    try:
        return (run or run_assignor)(assignor, problem, budget_s=5.0) != expected  # type: ignore[operator]
    except Exception:  # noqa: BLE001 - a crash on a problem the model answers is a disagreement
        return True

__all__ = ["BY_CONSTRUCTION", "INVARIANTS", "StreamsBound", "StreamsProof", "StreamsShape", "assign", "conformance",
           "disagrees", "evaluate", "invariants", "problem_of", "prove_streams", "sample_problems", "shapes"]
