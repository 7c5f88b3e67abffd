"""`assigncheck assign --assignor NAME PROBLEM.json`: print the assignment one assignor computes."""

from __future__ import annotations

import argparse

from assigncheck.impl import registry
from assigncheck.spec.json_format import assignment_to_json, dumps, load_problem


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("assign", help="run one assignor on a problem file and print its assignment JSON")
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--assignor", help=f"a built-in assignor: {', '.join(registry.names())}")
    who.add_argument("--target", help="a built-in name, package.module:object, or a prefix target (cmd:..., ...)")
    parser.add_argument("problem", help="a problem JSON file")
    parser.add_argument("--pretty", action="store_true", help="indented JSON instead of one line")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    assignor = registry.get(args.assignor) if args.assignor else registry.load_target(args.target)
    problem = load_problem(args.problem)
    print(dumps(assignment_to_json(assignor.assign(problem)), pretty=args.pretty))
    return 0
