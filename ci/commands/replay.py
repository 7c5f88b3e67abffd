"""`assigncheck replay FILE [--target NAME]`: does a fuzz reproducer still reproduce?

Exit 1 when the recorded violation reproduces (or, with no recorded invariant, any violation), 0 when it
no longer does. The target and invariant come from the reproducer's note unless `--target` is given.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from assigncheck.ci import args as checks
from assigncheck.spec.errors import InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("replay", help="rerun a fuzz reproducer: exit 1 if the violation reproduces")
    parser.add_argument("file", help="a reproducer written by `assigncheck fuzz` (problem JSON), or - for standard "
                                     "input")
    parser.add_argument("--target", type=checks.nonempty,
                        help="the assignor to replay against (default: the one named in the note)")
    parser.add_argument("--budget", type=checks.seconds(), default=10.0,
                        help="seconds one assign call may take (H7)")
    parser.add_argument("--minimize", type=checks.nonempty, metavar="OUT",
                        help="when it reproduces, shrink the problem while the same violation persists "
                             "(delta debugging, as the fuzzer does) and write the result to OUT")
    parser.set_defaults(run=run)


def _note(doc: Any) -> str:
    return doc.get("note", "") if isinstance(doc, dict) and isinstance(doc.get("note", ""), str) else ""


def run(args: argparse.Namespace) -> int:
    from assigncheck.fuzz.targets import AssignorTarget, CodecTarget
    from assigncheck.fuzz.triage import codec_finding, parse_note
    from assigncheck.spec.json_format import load_json, problem_from_json

    if args.minimize is not None:
        checks.output_file(args.minimize, "--minimize")  # before the replay, not after the shrinking
    where = "standard input" if args.file == "-" else args.file
    doc = load_json(args.file)  # a missing, empty or garbage file is named as such, whatever its note
    try:
        codec = codec_finding(doc)
    except InputError as e:
        raise InputError(f"{where}: {e.path}", e.message) from None
    if codec is not None:
        target_name, data = codec
        violation = CodecTarget(args.target or target_name).run(data)
        print(f"reproduces: {violation}" if violation else f"no longer reproduces on {args.target or target_name}")
        return 1 if violation else 0
    try:
        problem = problem_from_json(doc)
    except InputError as e:
        raise InputError(f"{where}: {e.path}" if e.path else where, e.message) from None
    fields = parse_note(_note(doc))
    target_name = args.target or fields.get("target")
    if not target_name:
        raise InputError("--target", f"{where} names no target in its note; pass --target")
    invariant = fields.get("invariant")
    if invariant == "model.conformance":  # a proofs-stage finding: the Z3 model and the code disagree
        return _conformance(target_name, problem)
    target = AssignorTarget(target_name, budget_s=args.budget)
    violations = target.check(problem)
    if not target.applies(problem):
        print(f"{target_name} does not apply to this problem (outside its declared domain)")
    matching = [v for v in violations if invariant is None or v.invariant == invariant]
    for v in violations:
        print(f"{'*' if v in matching else ' '} {v}")
    if matching:
        print(f"reproduces: {invariant or matching[0].invariant} on {target_name}")
        if args.minimize:
            _minimize(target, problem, invariant or matching[0].invariant, _note(doc), Path(args.minimize))
        return 1
    print(f"no longer reproduces{f' {invariant}' if invariant else ''} on {target_name}")
    return 0


def _conformance(target_name: str, problem: object) -> int:
    from assigncheck.impl import registry
    from assigncheck.verify.models import MODELS, models_of
    from assigncheck.verify.replay import disagrees

    assignor = registry.load_target(target_name)
    models = models_of(assignor.name)  # the model of what it claims to be
    if not models:
        raise InputError("--target", f"{target_name} has no Z3 model to compare with (models: "
                                     f"{', '.join(sorted({m.assignor for m in MODELS.values()}))})")
    model = next((m for m in models if m.protocol == getattr(problem, "protocol", None)), models[0])
    if disagrees(model, assignor, problem):  # type: ignore[arg-type]
        print(f"reproduces: model.conformance (Z3 model {model.name} and {target_name} differ on this problem)")
        return 1
    print(f"no longer reproduces model.conformance: Z3 model {model.name} and {target_name} agree")
    return 0


def _minimize(target: object, problem: object, invariant: str, note: str, out: Path) -> None:
    from assigncheck.fuzz.minimize import minimize
    from assigncheck.spec.json_format import save_problem

    def still_fails(candidate: object) -> bool:
        return any(v.invariant == invariant for v in target.check(candidate))  # type: ignore[attr-defined]

    smaller = minimize(problem, still_fails)  # type: ignore[arg-type]
    save_problem(smaller, out, note=f"{note} (minimized by assigncheck replay --minimize)".strip())
    print(f"minimized to {len(getattr(smaller, 'members', ()))} member(s): {out}")
