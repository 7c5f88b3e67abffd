"""`assigncheck prove`: bounded Z3 proofs of the built-in assignors' models (and the quota lemmas)."""

from __future__ import annotations

import argparse
import math
import os
import time
from typing import TYPE_CHECKING

from assigncheck.ci import flag_types

if TYPE_CHECKING:  # z3 is imported only once the verb runs
    from assigncheck.verify.models.base import Model
    from assigncheck.verify.prove import Bound

# Z3 bounds: far past what proves in minutes (7 members x 12 partitions takes ~60 s), small enough that
# listing the bound's shapes (members x every topic-count vector) stays cheap.
MAX_MEMBERS, MAX_PARTITIONS, MAX_TOPICS, MAX_GENERATIONS = 64, 256, 8, 16
MAX_SHAPES = 100_000


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "prove", help="prove invariants of the assignors' Z3 models up to a bound, or find a counterexample"
    )
    parser.add_argument("--assignor", action="append", metavar="NAME", type=flag_types.nonempty,
                        help="a model name (repeatable; default: every model, plus the unbounded lemmas)")
    parser.add_argument("--members", type=flag_types.int_in(1, MAX_MEMBERS), default=3, metavar="N",
                        help="members <= N (default 3)")
    parser.add_argument("--partitions", type=flag_types.int_in(1, MAX_PARTITIONS), default=4, metavar="P",
                        help="partitions <= P (default 4)")
    parser.add_argument("--topics", type=flag_types.int_in(1, MAX_TOPICS), default=2, metavar="T",
                        help="topics <= T (default 2)")
    parser.add_argument("--generations", type=flag_types.int_in(0, MAX_GENERATIONS), default=2, metavar="G",
                        help="known generations 1..G besides unknown (-1) (default 2)")
    parser.add_argument("--seconds", type=flag_types.seconds(), default=60.0, metavar="S",
                        help="time per model (default 60)")
    parser.add_argument("--jobs", type=flag_types.int_in(1, flag_types.MAX_JOBS), default=None, metavar="J",
                        help="processes for the composed proofs of the constrained model (default: the CPU count)")
    parser.add_argument("--out", default="reports/prove", type=flag_types.nonempty, metavar="DIR",
                        help="where counterexamples are written")
    parser.add_argument("--first", action="store_true",
                        help="hunt: stop at the first counterexample (one plain query per shape, no helper facts)")
    parser.add_argument("--lemmas", action="store_true", help="also prove the unbounded quota lemmas")
    parser.add_argument("--exhaustive", metavar="TARGET", type=flag_types.nonempty,
                        help="instead: check TARGET (a built-in name or an outside target spec) on every problem "
                             "within the bound, up to symmetry, against Z3's optima")
    parser.add_argument("--promises", default=None, metavar="TEXT", type=flag_types.promises,
                        help="with --exhaustive: the target's promises (default: what it declares)")
    parser.add_argument("--protocol", default=None, choices=("eager", "cooperative"),
                        help="with --exhaustive: the problems' protocol (default eager)")
    parser.add_argument("--racks", action="store_true",
                        help="with --exhaustive: every rack-aware problem within the bound (two racks; KIP-881) "
                             "instead, held to Z3's fewest rack mismatches")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from assigncheck.ci.engines import require
    from assigncheck.spec.errors import InputError

    require("assigncheck prove", "z3")
    from assigncheck.verify.models import MODELS, get_model
    from assigncheck.verify.prove import Bound

    bound = Bound(args.members, args.partitions, args.topics, args.generations)
    shapes = args.members * sum(math.comb(args.partitions, k) for k in range(1, args.topics + 1))
    if shapes > MAX_SHAPES:
        raise InputError("--partitions", f"{bound} has {shapes:,} shapes; at most {MAX_SHAPES:,} (fewer members, "
                                         "partitions or topics)")
    jobs = args.jobs if args.jobs is not None else os.cpu_count() or 1
    flag_types.output_dir(args.out, "--out")  # counterexamples go there: refuse a bad path before proving
    if args.exhaustive is not None:
        return _exhaustive(args, bound)
    for flag, given in (("--promises", args.promises is not None), ("--protocol", args.protocol is not None),
                        ("--racks", args.racks)):
        if given:
            raise InputError(flag, "applies only with --exhaustive TARGET")
    models = [get_model(n) for n in flag_types.distinct(args.assignor)] if args.assignor else list(MODELS.values())
    refuted = _lemmas(args.seconds) if args.lemmas or not args.assignor else False
    for model in models:
        refuted |= _prove_model(model, bound, args, jobs)
    return 1 if refuted else 0


def _lemmas(seconds: float) -> bool:
    """Prove every quota lemma, a line each; was any refuted?"""
    from assigncheck.verify.lemmas import LEMMAS, prove_lemma

    refuted = False
    print("lemmas (unbounded integers)")
    for lemma in LEMMAS:
        t0 = time.perf_counter()
        status, cex = prove_lemma(lemma, seconds)
        refuted |= status == "counterexample"
        print(f"  {status:<14} {time.perf_counter() - t0:6.2f}s  {lemma.name}" + (f"  {cex}" if cex else ""))
    return refuted


def _prove_model(model: Model, bound: Bound, args: argparse.Namespace, jobs: int) -> bool:
    """Prove one model's invariants within `bound`, a line each, each counterexample saved and replayed on the
    implementation; was any refuted?"""
    from assigncheck.verify.counterexamples import replay, save_counterexample
    from assigncheck.verify.prove import prove

    refuted = False
    result = prove(model, bound, args.seconds, stop_at_first=args.first, jobs=jobs)
    cells = f" ({result.cells_composed} composed cells)" if result.cells_composed else ""
    print(f"{model.name}  {bound}: {result.shapes_done}/{result.shapes_total} shapes{cells}, "
          f"{result.seconds:.2f}s (CPU {result.cpu_seconds:.2f}s)")
    for outcome in result.outcomes.values():
        line = f"  {outcome.invariant:<24} {outcome.status}"
        if outcome.note:
            line += f" ({outcome.note})"
        if outcome.status == "counterexample":
            refuted = True
            assert outcome.problem is not None  # a counterexample carries its problem
            violations = replay(model, outcome.problem)
            path = save_counterexample(model, outcome, violations, args.out)
            seen = ", ".join(sorted({v.invariant for v in violations})) or "nothing (model only)"
            line += f": {path} ({outcome.shape}); replay on impl: {seen}"
        print(line, flush=True)
    return refuted


def _exhaustive(args: argparse.Namespace, bound: Bound) -> int:
    from pathlib import Path

    from assigncheck.ci.target_flags import open_targets, refs_from_args
    from assigncheck.formats.documents import problem_to_json
    from assigncheck.formats.reproducer import Record, save
    from assigncheck.targets.registry import ref_of
    from assigncheck.verify.exhaustive import exhaust

    (target,) = open_targets(refs_from_args(args.exhaustive, args.promises))
    result = exhaust(target, bound, protocol=args.protocol or "eager", seconds=args.seconds,
                     racks=args.racks)
    state = "all" if result.complete else "stopped after"
    kind = " rack-aware" if args.racks else ""
    print(f"{args.exhaustive}  {bound}: {state} {result.checked}{kind} problems, {result.seconds:.2f}s, "
          f"{len(result.findings)} violations")
    for k, (problem, violation) in enumerate(result.findings):
        record = Record(ref_of(target), violation.invariant, stage="exhaustive", cause=violation.cause,
                        message=violation.message)
        path = save(problem_to_json(problem), record, Path(args.out) / f"exhaustive-{k}.json",
                    f"assignor: {args.exhaustive}. {violation} (small-scope exhaustive, {bound})")
        print(f"  {violation}: {path}")
    return 1 if result.findings else 0
