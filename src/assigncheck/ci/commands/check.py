"""`assigncheck check PROBLEM.json ASSIGNMENT.json`: judge one output against the spec."""

from __future__ import annotations

import argparse
from typing import Any

from assigncheck.ci import flag_types
from assigncheck.spec.errors import InputError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check",
        help="check one assignment of one problem: hard invariants, promises, quality",
        description="Check ASSIGNMENT against PROBLEM: H1-H6 always, the --promises given, and a quality table. "
        "Exit 0 when nothing is violated, 1 otherwise, 2 on bad input.",
    )
    parser.add_argument("problem", help="problem JSON file (consumer or streams), or - for standard input")
    parser.add_argument("assignment", help='assignment JSON file ({"format": 1, "assignment": {...}}), or -')
    parser.add_argument("--promises", default="", metavar="TEXT", type=flag_types.promises,
                        help="promises to enforce, e.g. balance=perfect,stickiness=max_retained,per_topic_spread")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--no-oracle", action="store_true",
                        help="skip the min-cost-flow figures (optimal sum of squares, max retained)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from assigncheck.formats.documents import dumps, load_assignment, load_problem
    from assigncheck.spec.assignment_check import check_assignment
    from assigncheck.spec.promises import Promises

    promises = Promises.parse(args.promises)
    if args.problem == "-" and args.assignment == "-":
        raise InputError("assignment", "only one of PROBLEM and ASSIGNMENT can be - (standard input)")
    problem = load_problem(args.problem)
    assignment = load_assignment(args.assignment)
    report = check_assignment(problem, assignment, promises, oracle=False if args.no_oracle else None)
    if args.json:
        print(dumps(report.to_json(), pretty=True))
    else:
        _print(report)
    return 0 if report.ok else 1


def _print(report: Any) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from assigncheck.formats.bounded import shown

    console = Console(highlight=False, soft_wrap=True)
    for v in report.violations:
        console.print(f"[bold red]{escape(v.invariant)}[/]: {escape(shown(v.message))}")
    table = Table(title="quality", show_header=True)
    table.add_column("measure")
    table.add_column("value", justify="right")
    for name, value in report.quality.items():
        table.add_row(name, "-" if value is None else str(value))
    console.print(table)
    n = len(report.violations)
    console.print("[bold green]OK[/]: no violation" if report.ok else f"[bold red]FAIL[/]: {n} violation(s)")
