"""`assigncheck replay FILE`: does a reproducer still reproduce?

Everything comes from the file: the target (spec, declared promises, classpath), the invariant, the check's
seed and CPU budget (`formats.reproducer`). Flags override them, for "does it reproduce on another target?".
A budget the gate scaled by its machine's CPU factor (the file records the factor) is scaled again by this
machine's (`run.calibration`): the same reference seconds, in this machine's units; `--budget` is absolute.
`--times N` replays it N times (each loading the target afresh) and says in how many it failed (k of N).
The replay itself is `findings.replay`'s, by the finding's kind (H8 across processes, a timing finding, a model
conformance, a codec or a live finding, any other); this command reads the file, applies the flags and prints
the answer. Exit 1 when the recorded invariant breaks again, 0 when it no longer does, 2 when the file or the
target cannot be used.

A file's target is code of the file's choosing (a program, a module, jars): it runs only with consent
(`findings.consent`): the file was written on this machine (`formats.trust`), `--target` names the target, or
`--trust` says to run it; otherwise one line says what would run, and exit 2. The file's paths are found from
wherever it is replayed (`findings.located`), and an error about what the file records names the file's field,
not a flag of this command's that was not given.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assigncheck.ci import flag_types
from assigncheck.spec.errors import InputError

if TYPE_CHECKING:  # the findings layer loads when a replay runs, not at the CLI's start
    from assigncheck.findings.replay import On, Reproducer
    from assigncheck.formats.reproducer import Record, TargetRef

DEFAULT_BUDGET_S = 10.0  # CPU seconds per assign call when neither the file nor --budget gives any
MAX_TIMES = 1000


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
    parser.add_argument("--times", type=flag_types.int_in(1, MAX_TIMES), default=1, metavar="N",
                        help="replay it N times and say in how many it failed (exit 1 when any did)")
    parser.add_argument("--json", action="store_true", help="print one JSON line with the verdict")
    parser.add_argument("--trust", action="store_true",
                        help="run the program, module or jars the file names even though this machine did not "
                             "write it (a reproducer from elsewhere: read its target first)")
    add_java_options(parser)
    parser.set_defaults(run=run)


def _say(args: argparse.Namespace, answer: dict[str, Any]) -> int:
    """The answer on standard output: one JSON line (its text escaped by JSON), or a line per violation and the
    summary, whatever came from the target made printable."""
    from assigncheck.formats.bounded import shown

    if args.json:
        print(json.dumps(answer, ensure_ascii=True))
    else:
        for v in answer.get("violations", []):
            print(f"{'*' if v.get('matches') else ' '} {v['invariant']}: {shown(v['message'])}")
        print(shown(answer["summary"]))
    return 1 if answer["reproduces"] else 0


def run(args: argparse.Namespace) -> int:
    from assigncheck.findings.replay import replay, replay_times
    from assigncheck.formats.json_input import parse_json, read_input

    if args.minimize is not None:
        flag_types.output_file(args.minimize, "--minimize")  # before the replay, not after the shrinking
    where = "standard input" if args.file == "-" else args.file
    data = read_input(args.file)  # a missing, empty or garbage file is named as such, whatever its note
    found = _read(args, parse_json(data, where), where)
    on = _on(args, found)
    try:
        located, notes = _located(args, found, on)
    except InputError:
        _consent(args, found, on, data, where)  # what the file would run, before where it is not
        raise
    _consent(args, found, located, data, where)  # shown where it would run
    try:
        answer = replay(found, located) if args.times == 1 else replay_times(found, located, args.times)
    except InputError as e:
        raise _named_by_the_file(args, e, where, found.kind) from None
    for note in [*notes, *answer.notes]:
        print(note, file=sys.stderr)
    return _say(args, answer.to_json())


# The flags a target's reference comes from, and the field of a reproducer's record each stands for.
_FIELDS = {"--target": "spec", "--classpath": "classpath", "--maven": "maven", "--config": "config"}


def _named_by_the_file(args: argparse.Namespace, e: InputError, where: str, kind: str) -> InputError:
    """An error about the target named by what said it: the flag when it was given, else the file's field (a live
    finding's client, assignor and classpath are in `finding.live`)."""
    field = _FIELDS.get(e.path)
    if field is None or getattr(args, e.path[2:]) not in (None, []):
        return e
    return InputError(f"{where}: finding.{'live' if kind == 'live' else 'target'}.{field}", e.message)


def _consent(args: argparse.Namespace, found: Reproducer, on: On, data: bytes, where: str) -> None:
    """Refuse to run code the file chose (a program, a module, jars, an environment variable) unless this machine
    wrote the file, the command line names the target, or --trust says to run it."""
    from assigncheck.findings.consent import outside_code
    from assigncheck.formats import trust

    if args.trust:
        return
    ref = None if found.kind in ("codec", "live") or args.target else on.ref
    what = outside_code(found, ref)
    if what is None or trust.written_here(data):
        return
    raise InputError(where, f"would run {what}, and this machine did not write this file: read its target, then "
                            f"replay it with --trust to run it (or name the target with --target)")


def _read(args: argparse.Namespace, doc: Any, where: str) -> Reproducer:
    """The file's finding (a plain problem file needs --target), its errors named with the file."""
    from assigncheck.findings.replay import read

    try:
        found = read(doc, str(args.file))
    except InputError as e:
        raise InputError(f"{where}: {e.path}" if e.path else str(where), e.message) from None
    if found.kind != "codec" and found.record is None and not args.target:
        raise InputError("--target", f"{where} is a problem file that names no target (not a reproducer); "
                                     "pass --target")
    return found


def _on(args: argparse.Namespace, found: Reproducer) -> On:
    """The flags, as what to replay the finding on: the file's target and budget unless they say otherwise."""
    from assigncheck.findings.replay import On
    from assigncheck.formats.reproducer import TargetRef

    if found.kind == "codec":  # no assign calls: a decoder's input, decoded again
        return On(DEFAULT_BUDGET_S, ref=TargetRef(args.target) if args.target else None)
    if found.kind == "live":
        for flag in ("target", "promises", "budget", "minimize"):
            if getattr(args, flag) is not None:
                raise InputError(f"--{flag}", "does not apply to a live finding (its file names the client and "
                                              "schedule)")
        return On(DEFAULT_BUDGET_S)  # unused: a live group's clients make no timed calls
    record = found.record
    ref = _target_ref(args, record)
    budget, hang = _budget(args, record)
    if found.kind == "scale" and args.minimize is not None:
        raise InputError("--minimize", "a timing finding is not minimized: its size is what it is about")
    return On(budget, ref=ref, hang_s=hang, minimize_to=None if args.minimize is None else Path(args.minimize))


def _located(args: argparse.Namespace, found: Reproducer, on: On) -> tuple[On, list[str]]:
    """`on` with the file's target found from here (`findings.located`), and notes on what changed since the file
    was written; as it is when the command line names the target."""
    from assigncheck.findings.located import locate

    if on.ref is None or found.record is None or args.target:
        return on, []
    ref, notes = locate(on.ref, args.file)
    return replace(on, ref=ref), notes


def _budget(args: argparse.Namespace, record: Record | None) -> tuple[float, float | None]:
    """H7's budget per call and hang limit (None: derived from the budget): `--budget` as given; else the file's,
    in this machine's units when the file records the CPU factor it was scaled by; else the default."""
    from assigncheck.run.calibration import current, rescaled

    if args.budget is not None:
        return args.budget, None
    if record is None or not record.budget_s:
        return DEFAULT_BUDGET_S, None if record is None else record.hang_s
    if record.cpu_factor is None:
        return record.budget_s, record.hang_s
    budget = rescaled(record.budget_s, record.cpu_factor)
    reference = record.budget_s / record.cpu_factor
    print(f"budget {budget:.3g} s of CPU per call: the file's {reference:.3g} reference s x this machine's "
          f"{current().text()}", file=sys.stderr)
    return budget, None


def _target_ref(args: argparse.Namespace, record: Record | None) -> TargetRef:
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
                      digests=given.digests if args.classpath is not None else ref.digests,
                      maven=given.maven or ref.maven,
                      config=given.config or ref.config)
    return ref
