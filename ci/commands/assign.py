"""`assigncheck assign --assignor NAME PROBLEM.json`: print the assignment one assignor computes.

Exit 0 with the assignment on standard output; 1 when the assignor fails (raises, or returns something
that is not an assignment: an H7 finding, said in one line); 2 on bad usage or input.
"""

from __future__ import annotations

import argparse
import sys

from assigncheck.ci import args as checks
from assigncheck.impl import registry
from assigncheck.spec.errors import InputError
from assigncheck.spec.json_format import assignment_to_json, dumps, load_problem
from assigncheck.spec.model import Assignment


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("assign", help="run one assignor on a problem file and print its assignment JSON")
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--assignor", type=checks.nonempty, help=f"a built-in assignor: {', '.join(registry.names())}")
    who.add_argument("--target", type=checks.nonempty,
                     help="a built-in name, package.module:object, or a prefix target (cmd:..., ...)")
    parser.add_argument("problem", help="a problem JSON file, or - for standard input")
    parser.add_argument("--pretty", action="store_true", help="indented JSON instead of one line")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    assignor = registry.get(args.assignor) if args.assignor is not None else registry.load_target(args.target)
    problem = load_problem(args.problem)
    try:
        out = assignor.assign(problem)
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001 - the assignor's failure is its finding, not our traceback
        print(checks.one_line(f"assigncheck: {assignor.name} failed on this problem (H7): {type(e).__name__}: {e}"),
              file=sys.stderr)
        return 1
    if not isinstance(out, Assignment):
        print(checks.one_line(f"assigncheck: {assignor.name} returned {type(out).__name__}, not an Assignment (H7)"),
              file=sys.stderr)
        return 1
    print(dumps(assignment_to_json(out), pretty=args.pretty))
    return 0
