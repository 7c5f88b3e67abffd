"""`assigncheck assign --assignor NAME PROBLEM.json`: print the assignment one assignor computes.

Exit 0 with the assignment on standard output; 2 on bad usage or input, and when the target gives no
assignment (it raises, hangs, or answers something that is not an assignment), said in one line.
"""

from __future__ import annotations

import argparse

from assigncheck.ci import flag_types
from assigncheck.formats.documents import assignment_to_json, dumps, load_problem
from assigncheck.targets import registry


def register(subparsers: argparse._SubParsersAction) -> None:
    from assigncheck.ci.target_flags import add_java_options

    parser = subparsers.add_parser("assign", help="run one assignor on a problem file and print its assignment JSON")
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--assignor", type=flag_types.nonempty, help=f"a built-in assignor: {', '.join(registry.names())}")
    who.add_argument("--target", type=flag_types.nonempty,
                     help="a built-in name, package.module:object, or a prefix target (cmd:..., ...)")
    parser.add_argument("problem", help="a problem JSON file, or - for standard input")
    add_java_options(parser)
    parser.add_argument("--pretty", action="store_true", help="indented JSON instead of one line")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from assigncheck.ci.target_flags import refs_from_args
    from assigncheck.run.calls import run_assignor
    from assigncheck.spec.errors import AssignorFailed, InputError
    from assigncheck.spec.groups import protocol_form

    if args.assignor and (args.classpath or args.config or args.maven):
        flag = "--classpath" if args.classpath else "--maven" if args.maven else "--config"
        raise InputError(flag, "applies to --target java:CLASS only")
    problem = load_problem(args.problem)  # bad input is said before loading a target can compile or start anything
    assignor = registry.get(args.assignor) if args.assignor is not None else registry.load(
        refs_from_args(args.target, None, args.classpath, args.config, args.maven)[0])
    try:  # the protocol the target speaks, no time budget; a failure is one line, not a traceback
        out = run_assignor(assignor, protocol_form(problem, assignor.promises), budget_s=None)
    except AssignorFailed as failed:
        raise InputError("--target" if args.target else "--assignor",
                         f"{assignor.name} gave no assignment (H7): {failed.violation.message}") from None
    finally:
        close = getattr(assignor, "close", None)
        if close is not None:
            close()
    print(dumps(assignment_to_json(out), pretty=args.pretty))
    return 0
