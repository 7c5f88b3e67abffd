"""Bounded proofs: every invariant of a model, for every input up to a bound, or a counterexample.

A bound is (members <= N, partitions <= P over topics <= T, generation codes 0..G). It is covered shape by
shape (a concrete member count and partition count per topic, smallest first, so counterexamples come out
small); inside a shape every claim pattern, generation and (where the assignor allows them to differ)
subscription is symbolic. Per shape, one QF_BV query per invariant asks for an input breaking it, with
the encoding's helper facts (verify.models.facts, each proved first) and the invariants already proved
for the shape as assumptions: sound, since all of them hold for every input, and much faster (the
fixpoint of the constrained model at 4 members x [4, 4]: unknown after 27 s of CPU without, 1.4 s with).

Chained models (the constrained ones, verify.models.laws) state their counting arguments as chains of law
instances, one partition or member at a time, so the SAT solver follows them by propagation: per shape a
small plain query first (small shapes), then one query per invariant with only the fact kinds it needs
(Model.relevant), under a simplifier that keeps sums nested (the chains share their prefix-count terms).
Every fact is an instance of a law proved valid on fresh variables, so a left-out or extra fact changes
no answer, only the time; a satisfying input is a real counterexample.

Composed models (Model.composed, verify.models.contracts) go one (members, partition count) cell at a time
instead: the stages are proved against their contracts once per size, and one query per invariant over
fresh stage outputs covers every topic split of the cell (at 6 x 12: 72 cells instead of 468 shapes). A
cell the composition does not prove falls back to the real model, shape by shape, which is also where
every counterexample comes from. With `jobs`, worker processes prove the cells (or, for other models, the
shapes) and this process takes their answers in order, so the smallest counterexample still wins.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import multiprocessing
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Literal, NamedTuple

import z3

from assigncheck.formats.documents import problem_from_json
from assigncheck.spec.errors import InputError
from assigncheck.spec.model import Problem
from assigncheck.verify.model_problems import problem_from_model
from assigncheck.verify.models.base import Model
from assigncheck.verify.models.encoding import Inputs, Shape, symbolic, topic_vectors
from assigncheck.verify.models.facts import bitblast_solver, prove_fact

Status = Literal["open", "proved", "counterexample", "unknown"]
# chained models: one plain query per small shape, before the facts are built (measured per shape: plain SAT
# wins up to members x partitions 16, or 24 with at most 4 partitions; past that the counting blows up)
QUICK_SECONDS = 0.8


def _quick(shape: Shape) -> bool:
    size = shape.members * shape.partition_count
    return size <= 16 or (shape.partition_count <= 4 and size <= 24)


@dataclass(frozen=True, slots=True)
class Bound:
    members: int
    partitions: int
    topics: int = 2
    generations: int = 2  # known generations besides unknown (-1)

    def __post_init__(self) -> None:
        for name, low in (("members", 1), ("partitions", 1), ("topics", 1), ("generations", 0)):
            value = getattr(self, name)
            if not isinstance(value, int) or value < low:
                raise InputError(f"--{name}", f"must be a whole number >= {low}, got {value!r}")

    def __str__(self) -> str:
        return f"members<={self.members} partitions<={self.partitions} topics<={self.topics} gens<={self.generations}"


def shapes(bound: Bound) -> list[Shape]:
    """All shapes within the bound, smallest first (members + partitions, then members, then counts)."""
    out = [Shape(n, v) for n in range(1, bound.members + 1) for v in topic_vectors(bound.partitions, bound.topics)]
    return sorted(out, key=lambda s: (s.members + s.partition_count, s.members, s.topics))


@dataclass
class Outcome:
    """One invariant's result over the whole bound."""

    invariant: str
    status: Status = "open"  # "proved" only once every shape of the bound is
    problem: Problem | None = None  # the counterexample
    shape: Shape | None = None  # where it was found, or where the time ran out
    note: str = ""


@dataclass
class ProofResult:
    model: str
    bound: Bound
    outcomes: dict[str, Outcome]
    seconds: float = 0.0  # wall time
    cpu_seconds: float = 0.0  # CPU of this process and its workers (Z3 runs in them): fairer on a shared machine
    shapes_done: int = 0
    cells_composed: int = 0  # (members, partition count) cells proved at once (verify.models.contracts)
    shapes_total: int = 0
    solver_calls: int = 0
    per_shape: list[tuple[Shape, float]] = field(default_factory=list)

    @property
    def counterexamples(self) -> list[Outcome]:
        return [o for o in self.outcomes.values() if o.status == "counterexample"]

    @property
    def all_proved(self) -> bool:
        return all(o.status == "proved" for o in self.outcomes.values())


def _cpu() -> float:
    """CPU seconds of this process and of its finished workers."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _hunt(model: Model, inp: Inputs, props: dict[str, z3.BoolRef], names: list[str],
          outcomes: dict[str, Outcome], seconds: float) -> z3.CheckSatResult:
    """Ask for an input breaking any invariant at all; record what a model of it breaks."""
    if seconds <= 0:
        return z3.unknown
    solver = z3.SolverFor("QF_BV")
    solver.set("timeout", max(1, int(seconds * 1000)))
    solver.add(*inp.domain, z3.Not(z3.And(*[props[n] for n in names])))
    status = solver.check()
    if status == z3.sat:
        solution = solver.model()
        problem = problem_from_model(model, inp, solution)
        for n in names:
            if z3.is_false(solution.eval(props[n], model_completion=True)):
                outcomes[n].status, outcomes[n].shape, outcomes[n].problem = "counterexample", inp.shape, problem
    return status


def _kind(key: tuple[Any, ...]) -> str:
    if key[0] == "r2":  # a fact of the second round (the fixpoint's)
        return f"r2:{_kind(key[1:])}"
    return key[1] if key[0] == "law" else key[0]


def _usable_facts(inp: Inputs, left: Callable[[], float]) -> list[tuple[tuple[Any, ...], z3.BoolRef]] | None:
    """The encoding's helper facts that are proved valid (a false one, such as a broken variant's quota
    arithmetic, is just not used); None when the time runs out first."""
    assert inp.facts is not None  # inputs made to note their facts
    usable = set()
    for key in sorted({key for key, _ in inp.facts}, key=str):
        status = prove_fact(key, left()) if left() > 0 else "unknown"
        if status == "unknown":
            return None
        if status == "proved":
            usable.add(key)
    return [(key, fact) for key, fact in inp.facts if key in usable]


def _facts_for(model: Model, names: list[str], usable: list[tuple[tuple[Any, ...], z3.BoolRef]],
               known: list[z3.BoolRef], proved: list[z3.BoolRef]) -> list[z3.BoolRef]:
    """The facts a query about `names` gets: the kinds they need (Model.relevant), plus what is proved."""
    relevant = model.relevant or {}
    if any(n not in relevant for n in names):
        return known
    kinds = frozenset[str]().union(*(relevant[n] for n in names))
    return [f for k, f in usable if _kind(k) in kinds] + proved


def _prove_groups(model: Model, inp: Inputs, props: dict[str, z3.BoolRef], outcomes: dict[str, Outcome],
                  left: Callable[[], float], result: ProofResult, usable: list[tuple[tuple[Any, ...], z3.BoolRef]],
                  known: list[z3.BoolRef], proved: list[z3.BoolRef]) -> set[str]:
    """One query for each group of invariants (Model.groups); the ones proved together (and added to `known`
    and `proved`). On any other answer each is then asked alone."""
    done: set[str] = set()
    for group in model.groups:
        members = [n for n in group if n in props and outcomes[n].status != "counterexample"]
        if len(members) < 2 or left() <= 0:
            continue
        solver = bitblast_solver(left())
        solver.add(*inp.domain, *_facts_for(model, members, usable, known, proved),
                   z3.Not(z3.And(*[props[n] for n in members])))
        result.solver_calls += 1
        if solver.check() == z3.unsat:
            done.update(members)
            known.extend(props[n] for n in members)
            proved.extend(props[n] for n in members)
    return done


def _prove_shape(model: Model, inp: Inputs, props: dict[str, z3.BoolRef], names: list[str],
                 outcomes: dict[str, Outcome], left: Callable[[], float], result: ProofResult) -> str | None:
    """Prove each open invariant for one shape, in order, with the helper facts and the invariants proved
    before it as assumptions; a refuted one becomes a counterexample. Returns why it gave up (time), or None
    when every query was answered."""
    usable = _usable_facts(inp, left)
    if usable is None:
        return "time ran out proving a helper lemma"
    known = [fact for _, fact in usable]
    proved: list[z3.BoolRef] = []  # the invariants proved for this shape so far
    done = _prove_groups(model, inp, props, outcomes, left, result, usable, known, proved)
    for name in names:
        if outcomes[name].status == "counterexample" or name in done:
            continue
        if left() <= 0:
            return "time ran out"
        solver = bitblast_solver(left()) if model.chained else z3.SolverFor("QF_BV")
        if not model.chained:
            solver.set("timeout", max(1, int(left() * 1000)))
        solver.add(*inp.domain, *_facts_for(model, [name], usable, known, proved), z3.Not(props[name]))
        status = solver.check()
        result.solver_calls += 1
        if status == z3.unknown:
            return "time ran out"
        if status == z3.sat:
            outcomes[name].status, outcomes[name].shape = "counterexample", inp.shape
            outcomes[name].problem = problem_from_model(model, inp, solver.model())
            continue
        known.append(props[name])
        proved.append(props[name])
    return None


def _prove_cell(composed: Model, carrier: Shape, generations: int, names: list[str], left: Callable[[], float],
                result: ProofResult) -> str:
    """Every invariant of the composed model on one (members, partition count) cell: "proved" covers every
    shape of the cell (verify.models.contracts); anything else ("open") proves nothing either way."""
    inp = symbolic(carrier, generations, equal_subscriptions=True)
    scratch = {name: Outcome(name) for name in names}
    why = _prove_shape(composed, inp, composed.invariants(inp), names, scratch, left, result)
    return "proved" if why is None and all(o.status != "counterexample" for o in scratch.values()) else "open"


def _one_shape(model: Model, shape: Shape, generations: int, names: list[str], outcomes: dict[str, Outcome],
               left: Callable[[], float], result: ProofResult, stop_at_first: bool) -> str | None:
    """Prove (or hunt in) one shape with the real model; why it gave up, or None."""
    inp = symbolic(shape, generations, equal_subscriptions=model.equal_subscriptions)
    if stop_at_first:
        inp = replace(inp, facts=None)  # no helper facts: not needed to find a counterexample
    if model.chained and not stop_at_first and _quick(shape):
        # small shapes: one plain query for every invariant; the facts are built only if it gives up
        inp_plain = replace(inp, facts=None)
        still_open = [n for n in names if outcomes[n].status != "counterexample"]
        status = _hunt(model, inp_plain, model.invariants(inp_plain), still_open, outcomes,
                       min(QUICK_SECONDS, left()))
        result.solver_calls += 1
        if status == z3.unsat or all(outcomes[n].status == "counterexample" for n in names):
            return None
    props = model.invariants(inp)
    if stop_at_first:  # hunting: one plain query per shape finds a counterexample fastest
        status = _hunt(model, inp, props, names, outcomes, left())
        result.solver_calls += 1
        return "time ran out" if status == z3.unknown else None
    return _prove_shape(model, inp, props, names, outcomes, left, result)


class Answer(NamedTuple):
    """A worker's answer for a cell (status "proved" or "open") or a shape (why it gave up, or None, and
    each invariant's status with its counterexample as problem JSON: a Problem does not pickle)."""

    status: str | None
    calls: int
    seconds: float
    statuses: dict[str, tuple[str, dict | None]] | None = None


Answers = tuple[list[tuple[Shape, Answer]], list[tuple[Shape, Answer]]]  # (cells by carrier, shapes)


def _shape_rows(model: Model, shapes_: list[Shape], generations: int, deadline: float) -> list[tuple[Shape, Answer]]:
    """Shapes proved with the real model, in a worker (deadline: time.time())."""
    from assigncheck.formats.documents import problem_to_json

    names, out = _invariant_names(model), []
    for shape in shapes_:
        if time.time() >= deadline:
            out.append((shape, Answer("time ran out", 0, 0.0, {})))
            continue
        outcomes = {n: Outcome(n) for n in names}
        result, started = ProofResult(model.name, Bound(1, 1), outcomes), time.perf_counter()
        why = _one_shape(model, shape, generations, names, outcomes, lambda: deadline - time.time(), result, False)
        statuses: dict[str, tuple[str, dict | None]] = {
                    n: (o.status, problem_to_json(o.problem) if o.problem is not None else None)
                    for n, o in outcomes.items()}
        out.append((shape, Answer(why, result.solver_calls, time.perf_counter() - started, statuses)))
    return out


def _cells_job(name: str, topics: int, generations: int, deadline: float,
               cells: list[tuple[Shape, list[Shape]]]) -> Answers:
    """A composed model's cells in a worker, each by its carrier shape; a cell the composition does not prove
    is then proved shape by shape with the real model. The cells of one task share a partition count, hence
    the keep contracts they prove."""
    from assigncheck.verify.models import get_model

    model = get_model(name)
    assert model.composed is not None  # only a composed model's cells are sent here
    composed = model.composed(topics)
    names, carriers, shape_rows = _invariant_names(composed), [], []
    for carrier, real in cells:
        if time.time() >= deadline:  # not even worth building the cell's terms
            carriers.append((carrier, Answer("open", 0, 0.0)))
            continue
        result, started = ProofResult(name, Bound(1, 1), {}), time.perf_counter()
        status = _prove_cell(composed, carrier, generations, names, lambda: deadline - time.time(), result)
        carriers.append((carrier, Answer(status, result.solver_calls, time.perf_counter() - started)))
        if status != "proved":
            shape_rows += _shape_rows(model, real, generations, deadline)
    return carriers, shape_rows


def _shapes_job(name: str, generations: int, deadline: float, shapes_: list[Shape]) -> Answers:
    from assigncheck.verify.models import get_model

    return [], _shape_rows(get_model(name), shapes_, generations, deadline)


def _ahead(model: Model, bound: Bound, cells: list[tuple[tuple[int, int], list[Shape]]], deadline: float,
           jobs: int, result: ProofResult) -> tuple[dict[Shape, Answer], dict[Shape, Answer]]:
    """What the workers prove before this process goes through the cells in order: (composed cells by
    carrier, shapes). Spawned processes (Z3 is not fork-safe), the largest tasks first; the model is looked
    up by name there, so only the registered models go parallel."""
    from assigncheck.verify.models import get_model

    try:
        if get_model(model.name) is not model:
            return {}, {}
    except InputError:
        return {}, {}
    wall_deadline = time.time() + (deadline - time.perf_counter())  # a clock every process shares
    tasks: list[Any]  # a partition count's cells, or one cell
    if model.composed is not None:  # one task per partition count
        by_count: dict[int, list[tuple[Shape, list[Shape]]]] = {}
        for (n, p), cell in cells:
            by_count.setdefault(p, []).append((Shape(n, (p,)), cell))
        job = partial(_cells_job, model.name, bound.topics, bound.generations, wall_deadline)
        tasks = [task for _, task in sorted(by_count.items(), reverse=True)]
    else:  # one task per cell
        job = partial(_shapes_job, model.name, bound.generations, wall_deadline)
        tasks = [cell for _, cell in sorted(cells, key=lambda c: -c[0][0] * c[0][1])]
    carriers: dict[Shape, Answer] = {}
    shape_rows: dict[Shape, Answer] = {}
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) \
            as pool:
        for future in concurrent.futures.as_completed([pool.submit(job, task) for task in tasks]):
            cells_done, shapes_done = future.result()
            carriers.update(cells_done)
            shape_rows.update(shapes_done)
            result.solver_calls += sum(answer.calls for _, answer in cells_done + shapes_done)
    return carriers, shape_rows


def _invariant_names(model: Model) -> list[str]:
    probe = symbolic(Shape(1, (1,)), 0, equal_subscriptions=model.equal_subscriptions)
    return list(model.invariants(probe))


def prove(model: Model, bound: Bound, seconds: float = 60.0, *, stop_at_first: bool = False,
          jobs: int = 1) -> ProofResult:
    """Prove `model`'s invariants for every input within `bound`, within `seconds` of wall time.

    jobs: worker processes: they prove a composed model's cells (verify.models.contracts), or every shape of
    the others, before this process goes through the results in order (hunting stays in this process).

    stop_at_first: hunt for a counterexample instead: one query per shape for all invariants, without the
    helper facts, and return at the first one (what finds bugs fastest; a clean run still proves all).
    """
    names = _invariant_names(model)
    outcomes = {name: Outcome(name, "proved", note="by construction") for name in model.by_construction}
    outcomes.update({name: Outcome(name) for name in names})
    all_shapes = shapes(bound)
    result = ProofResult(model.name, bound, outcomes, shapes_total=len(all_shapes))
    started = time.perf_counter()
    run = _Run(model, bound, names, result, started, started + seconds, stop_at_first, _cpu())
    composed = model.composed(bound.topics) if model.composed and not stop_at_first else None
    cells = [(key, list(group)) for key, group in
             itertools.groupby(all_shapes, key=lambda s: (s.members, s.partition_count))]
    if jobs > 1 and not stop_at_first:
        run.ahead_cells, run.ahead_shapes = _ahead(model, bound, cells, run.deadline, jobs, result)
    for i, ((members, partitions), cell) in enumerate(cells):
        if composed is not None:
            carrier = Shape(members, (partitions,))
            if run.composed_cell(composed, carrier, len(cell)):
                continue
            if run.left() <= 0:  # the workers may have proved later cells: they count
                later = [c for (n, p), c in cells[i + 1:]
                         if getattr(run.ahead_cells.get(Shape(n, (p,))), "status", None) == "proved"]
                result.shapes_done += sum(map(len, later))
                result.cells_composed += len(later)
                return run.finish(cell[0], "time ran out")
            # not proved composed (a contract or the composition fails): the real model decides, shape by shape
        why_shape = run.shapes(cell)
        if why_shape is not None:
            return run.finish(*why_shape)
    return run.finish()


@dataclass
class _Run:
    """The state of one `prove` call: the clock, the workers' answers, and how outcomes end."""

    model: Model
    bound: Bound
    names: list[str]
    result: ProofResult
    started: float  # time.perf_counter()
    deadline: float
    stop_at_first: bool
    cpu_start: float
    ahead_cells: dict[Shape, Answer] = field(default_factory=dict)
    ahead_shapes: dict[Shape, Answer] = field(default_factory=dict)

    def left(self) -> float:
        return self.deadline - time.perf_counter()

    def composed_cell(self, composed: Model, carrier: Shape, size: int) -> bool:
        """Whether the composed model proves the cell (in a worker, or here)."""
        started = time.perf_counter()
        ahead = self.ahead_cells.get(carrier)
        status, seconds = (ahead.status, ahead.seconds) if ahead else (
            _prove_cell(composed, carrier, self.bound.generations, self.names, self.left, self.result), None)
        if status != "proved":
            return False
        self.result.shapes_done += size
        self.result.cells_composed += 1
        self.result.per_shape.append((carrier, seconds or time.perf_counter() - started))
        return True

    def shapes(self, cell: list[Shape]) -> tuple[Shape, str] | None:
        """Each shape of a cell with the real model (a worker's answer when it has one); (shape, why) when it
        gave up."""
        outcomes, result = self.result.outcomes, self.result
        for shape in cell:
            if all(outcomes[n].status == "counterexample" for n in self.names) or (
                    self.stop_at_first and result.counterexamples):
                return None
            started = time.perf_counter()
            worker_seconds = None
            if shape in self.ahead_shapes:  # proved in a worker: its counterexamples, unless a smaller one is known
                why, _, worker_seconds, statuses = self.ahead_shapes[shape]
                for n, (status, doc) in (statuses or {}).items():
                    if status == "counterexample" and outcomes[n].status != "counterexample":
                        outcomes[n].status, outcomes[n].shape = "counterexample", shape
                        found = problem_from_json(doc)
                        assert isinstance(found, Problem)  # a model's counterexample is a consumer group
                        outcomes[n].problem = found
            else:
                why = _one_shape(self.model, shape, self.bound.generations, self.names, outcomes, self.left, result,
                                 self.stop_at_first)
            if why:
                return shape, why
            result.shapes_done += 1
            result.per_shape.append((shape, worker_seconds or time.perf_counter() - started))
        return None

    def finish(self, shape: Shape | None = None, why: str = "") -> ProofResult:
        """Settle the open outcomes: proved when every shape was, unknown otherwise (and say why)."""
        result = self.result
        done = result.shapes_done == result.shapes_total
        for o in result.outcomes.values():
            if o.status != "open":
                continue
            if done:
                o.status = "proved"
            elif shape is not None:
                o.status, o.shape = "unknown", shape
                o.note = f"{why} at shape {shape} ({result.shapes_done} of {result.shapes_total} shapes proved)"
            else:  # stopped at the first counterexample: the rest is unchecked
                o.status, o.note = "unknown", "not checked past the first counterexample"
        result.seconds = time.perf_counter() - self.started
        result.cpu_seconds = _cpu() - self.cpu_start
        return result
