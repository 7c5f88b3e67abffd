"""`assigncheck replay FILE`: does a reproducer still reproduce?

Everything comes from the file: the target (spec, declared promises, classpath), the invariant, the check's
seed and CPU budget (`formats.reproducer`). Flags override them, for "does it reproduce on another target?".
Exit 1 when the recorded invariant breaks again (for H8, nondeterminism, when two runs of the same input differ
within a few tries; for H8 across processes, when two fresh processes of the target, started with the variable
and values the file records, answer differently; for a timing finding of the scale stage, when the same
problem, timed again the same way, is again over the budget or the promise: `run.scale.retime`), 0 when it
no longer does, 2 when the file or the target cannot be used.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from assigncheck.ci import flag_types
from assigncheck.spec.errors import InputError

DEFAULT_BUDGET_S = 10.0


def register(subparsers: argparse._SubParsersAction) -> None:
    from assigncheck.ci.target_flags import add_java_options

    parser = subparsers.add_parser("replay", help="rerun a reproducer: exit 1 if its violation reproduces")
    parser.add_argument("file", help="a reproducer written by the gate, `fuzz` or a campaign, or - for standard input")
    parser.add_argument("--target", type=flag_types.nonempty,
                        help="replay against this target instead of the one the file names")
    parser.add_argument("--promises", type=flag_types.promises,
                        help="hold the target to these promises instead of the file's")
    parser.add_argument("--budget", type=flag_types.seconds(), default=None,
                        help=f"CPU seconds per assign call (H7; default: the file's, else {DEFAULT_BUDGET_S:g})")
    parser.add_argument("--minimize", type=flag_types.nonempty, metavar="OUT",
                        help="when it reproduces, shrink the problem while the same violation persists "
                             "(delta debugging, as the fuzzer does) and write the result to OUT")
    parser.add_argument("--json", action="store_true", help="print one JSON line with the verdict")
    add_java_options(parser)
    parser.set_defaults(run=run)


def _say(args: argparse.Namespace, answer: dict[str, Any]) -> int:
    if args.json:
        print(json.dumps(answer, ensure_ascii=True))
    else:
        for v in answer.get("violations", []):
            print(f"{'*' if v.get('matches') else ' '} {v['invariant']}: {v['message']}")
        print(answer["summary"])
    return 1 if answer["reproduces"] else 0


def run(args: argparse.Namespace) -> int:
    from assigncheck.formats.documents import load_json

    if args.minimize is not None:
        flag_types.output_file(args.minimize, "--minimize")  # before the replay, not after the shrinking
    where = "standard input" if args.file == "-" else args.file
    doc = load_json(args.file)  # a missing, empty or garbage file is named as such, whatever its note
    codec = _codec(doc, where)
    if codec is not None:
        return _say(args, _replay_codec(args, *codec))
    problem, record = _read(args, doc, where)
    if record is not None and "live" in record.extra:  # a live group's finding: its schedule, on a fresh broker
        return _say(args, _replay_live(args, record))
    return _say(args, _verdict(args, _target_ref(args, record), problem, record, doc))


def _codec(doc: Any, where: str) -> tuple[str, bytes] | None:
    """(target, input bytes) of a codec finding's file, None for any other file."""
    from assigncheck.findings.reproducers import codec_finding

    try:
        return codec_finding(doc)
    except InputError as e:
        raise InputError(f"{where}: {e.path}", e.message) from None


def _replay_codec(args: argparse.Namespace, target_name: str, data: bytes) -> dict[str, Any]:
    from assigncheck.fuzz.harness import CodecTarget

    target = args.target or target_name
    violation = CodecTarget(target).run(data)
    return {"file": str(args.file), "target": target, "reproduces": bool(violation),
            "summary": f"reproduces: {violation}" if violation else f"no longer reproduces on {target}"}


def _read(args: argparse.Namespace, doc: Any, where: str) -> tuple[Any, Any]:
    """The file's problem and finding record (None: a plain problem file, which needs --target)."""
    from assigncheck.formats.documents import problem_from_json
    from assigncheck.formats.reproducer import record_of

    try:
        problem = problem_from_json(doc)
        record = record_of(doc)
    except InputError as e:
        raise InputError(f"{where}: {e.path}" if e.path else str(where), e.message) from None
    if record is None and not args.target:
        raise InputError("--target", f"{where} is a problem file that names no target (not a reproducer); "
                                     "pass --target")
    return problem, record


def _verdict(args: argparse.Namespace, ref: Any, problem: Any, record: Any, doc: Any) -> dict[str, Any]:
    """Replay the finding the way its kind needs: a model disagreement, a timing finding, H8 across two
    processes, or any other violation."""
    invariant = record.invariant if record is not None else None
    if invariant == "model.conformance":  # a proofs-stage finding: the Z3 model and the code disagree
        return _conformance(ref, problem)
    budget = args.budget if args.budget is not None else (record.budget_s if record and record.budget_s
                                                          else DEFAULT_BUDGET_S)
    hang = record.hang_s if record is not None and args.budget is None else None
    extra = record.extra if record is not None else {}
    if "scale" in extra:  # a timing finding: timed again, not minimized
        if args.minimize is not None:
            raise InputError("--minimize", "a timing finding is not minimized: its size is what it is about")
        return _retime(args, ref, problem, record, budget, hang)
    note = doc.get("note", "") if isinstance(doc.get("note", ""), str) else ""
    if "processes" in extra:  # H8 across processes: two processes, as recorded
        return _replay_processes(args, ref, problem, record, budget, hang, note)
    seed = record.seed if record is not None else 0
    return _replay(args, ref, problem, invariant, budget, hang, seed, note)


def _replay_live(args: argparse.Namespace, record: Any) -> dict[str, Any]:
    from assigncheck.live import session

    for flag in ("target", "promises", "budget", "minimize"):
        if getattr(args, flag) is not None:
            raise InputError(f"--{flag}", "does not apply to a live finding (its file names the client and schedule)")
    again, result = session.replay(record)
    violations = [{**v.to_json(), "matches": v.invariant == record.invariant, "step": step}
                  for step, v in result.violations]
    return {"file": str(args.file), "target": record.target.spec, "invariant": record.invariant,
            "reproduces": again, "violations": violations, "seconds": round(result.seconds, 1),
            "summary": (f"reproduces: {record.invariant} on a fresh broker with {result.spec.client}" if again else
                        f"no longer reproduces: {record.invariant} not seen with {result.spec.client}")}


def _target_ref(args: argparse.Namespace, record: Any) -> Any:
    """The file's target, or the flags' (held to the promises the finding was about unless told otherwise)."""
    from assigncheck.ci.target_flags import refs_from_args
    from assigncheck.formats.reproducer import TargetRef

    ref = record.target if record is not None else TargetRef(args.target)
    if args.target:
        ref = TargetRef(args.target, ref.promises)
    if args.promises is not None:
        ref = replace(ref, promises=args.promises)
    if args.classpath is not None or args.config or args.maven:
        (given,) = refs_from_args(ref.spec, ref.promises, args.classpath, args.config, args.maven)
        ref = replace(ref, classpath=given.classpath if args.classpath is not None else ref.classpath,
                      maven=given.maven or ref.maven,
                      config=given.config or ref.config)
    return ref


def _replay(args: argparse.Namespace, ref: Any, problem: Any, invariant: str | None, budget: float,
            hang: float | None, seed: int, note: str) -> dict[str, Any]:
    from assigncheck.ci.target_flags import open_targets
    from assigncheck.ci.verdicts import H8_TRIES, reproduces
    from assigncheck.spec.violations import judged_as

    (target,) = open_targets([ref])
    wanted = judged_as(invariant) if invariant else None
    tries = H8_TRIES if wanted == "H8" else 1
    violations, matching, attempt = reproduces(target, problem, invariant, seed, budget, hang)
    name = ref.spec + (f" with promises {ref.promises!r}" if ref.promises is not None else "")
    what = wanted or (matching[0].invariant if matching else "any violation")
    summary = (f"reproduces: {what} on {name}" + (f" (try {attempt} of {tries})" if tries > 1 else "")
               if matching else f"no longer reproduces {what} on {name}")
    if matching and args.minimize:
        summary += "; " + _minimize(target, problem, matching[0], seed, budget, args.file, Path(args.minimize), note)
    close = getattr(target, "close", None)
    if close is not None:
        close()
    return {"file": str(args.file), "target": ref.to_json(), "invariant": wanted, "reproduces": bool(matching),
            "summary": summary, "violations": [{**v.to_json(), "matches": v in matching} for v in violations]}


def _retime(args: argparse.Namespace, ref: Any, problem: Any, record: Any, budget: float,
            hang: float | None) -> dict[str, Any]:
    from assigncheck.ci.target_flags import open_targets
    from assigncheck.run.scale import retime

    (target,) = open_targets([ref])
    try:
        matching, measured = retime(target, problem, record.extra["scale"], budget, hang)
    finally:
        close = getattr(target, "close", None)
        if close is not None:
            close()
    name = ref.spec + (f" with promises {ref.promises!r}" if ref.promises is not None else "")
    summary = (f"reproduces: {record.invariant} on {name}" if matching
               else f"no longer reproduces {record.invariant} on {name}") + f" ({measured})"
    return {"file": str(args.file), "target": ref.to_json(), "invariant": record.invariant,
            "reproduces": bool(matching), "summary": summary,
            "violations": [{**v.to_json(), "matches": True} for v in matching]}


def _replay_processes(args: argparse.Namespace, ref: Any, problem: Any, record: Any, budget: float,
                      hang: float | None, note: str) -> dict[str, Any]:
    from assigncheck.ci.processes import TRIES, Pair, Processes, replay
    from assigncheck.findings.minimize import minimize
    from assigncheck.formats.reproducer import save

    processes = Processes.from_json(record.extra["processes"])
    violations, attempt = replay(ref, problem, processes, budget, hang)
    name = f"{ref.spec} ({processes})"
    summary = (f"reproduces: H8 across two processes of {name} (try {attempt} of {TRIES})" if violations
               else f"no longer reproduces H8 across two processes of {name}")
    if violations and args.minimize:
        from assigncheck.formats.documents import problem_to_json

        pair = Pair(ref, processes, ref.spec)
        try:
            smaller = minimize(problem, lambda p: bool(pair.compare(p, budget, hang)))
        finally:
            pair.close()
        save(problem_to_json(smaller), record, Path(args.minimize),
             f"{note} (minimized by assigncheck replay --minimize)".strip())
        summary += f"; minimized to {args.minimize}"
    return {"file": str(args.file), "target": ref.to_json(), "invariant": "H8", "reproduces": bool(violations),
            "summary": summary, "violations": [{**v.to_json(), "matches": True} for v in violations]}


def _conformance(ref: Any, problem: Any) -> dict[str, Any]:
    from assigncheck.spec.model import StreamsProblem
    from assigncheck.targets import registry
    from assigncheck.verify.counterexamples import disagrees
    from assigncheck.verify.models import MODELS, models_of

    assignor = registry.load(ref)
    if isinstance(problem, StreamsProblem):  # the Streams model (verify.models.streams) is every Streams target's
        from assigncheck.verify.models import streams

        differs = streams.disagrees(assignor, problem)
        return {"target": ref.to_json(), "invariant": "model.conformance", "reproduces": differs,
                "summary": f"reproduces: model.conformance (Z3 model streams-sticky and {ref.spec} differ on this "
                           "problem)" if differs else
                           f"no longer reproduces model.conformance: Z3 model streams-sticky and {ref.spec} agree"}
    models = models_of(assignor.name)  # the model of what it claims to be
    if not models:
        raise InputError("--target", f"{ref.spec} has no Z3 model to compare with (models: "
                                     f"{', '.join(sorted({m.assignor for m in MODELS.values()}))})")
    model = next((m for m in models if m.protocol == getattr(problem, "protocol", None)), models[0])
    if disagrees(model, assignor, problem):
        return {"target": ref.to_json(), "invariant": "model.conformance", "reproduces": True,
                "summary": f"reproduces: model.conformance (Z3 model {model.name} and {ref.spec} differ on this "
                           "problem)"}
    return {"target": ref.to_json(), "invariant": "model.conformance", "reproduces": False,
            "summary": f"no longer reproduces model.conformance: Z3 model {model.name} and {ref.spec} agree"}


def _minimize(target: Any, problem: Any, violation: Any, seed: int, budget: float, source: str, out: Path,
              note: str) -> str:
    from assigncheck.findings.minimize import minimize
    from assigncheck.findings.signature import keeps_its_shape
    from assigncheck.formats.documents import load_json, problem_to_json
    from assigncheck.formats.reproducer import Record, record_of, save
    from assigncheck.run.assignor_check import check_assignor
    from assigncheck.targets.registry import ref_of

    keeps = keeps_its_shape(problem, target.promises)

    def still_fails(candidate: Any) -> bool:
        return keeps(candidate) and any(
            v.invariant == violation.invariant and v.cause == violation.cause
            for v in check_assignor(target, candidate, seed=seed, budget_s=budget, measure=False)[1].violations)

    smaller = minimize(problem, still_fails)
    original = record_of(load_json(source)) if source != "-" else None
    record = original or Record(ref_of(target), violation.invariant, stage="replay", seed=seed, budget_s=budget,
                                cause=violation.cause, message=violation.message)
    save(problem_to_json(smaller), record, out, f"{note} (minimized by assigncheck replay --minimize)".strip())
    print(f"minimized to {len(getattr(smaller, 'members', ()))} member(s): {out}", file=sys.stderr)
    return f"minimized to {out}"
