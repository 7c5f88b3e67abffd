"""`assigncheck gate`: the merge gate. Exit 0 all pass, 1 a violation or a stage error, 2 bad usage/input."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from assigncheck.ci import args as checks
from assigncheck.ci.gate import PROFILES, STAGES


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("gate", help="run every stage on the built-in assignors or on your targets")
    p.add_argument("--profile", default="quick", choices=tuple(PROFILES),
                   help="quick (≤ 5 min on 2 cores) or full")
    p.add_argument("--target", action="append", default=[], metavar="SPEC", type=checks.nonempty,
                   help="built-in name, package.module:object, cmd:COMMAND, kafka-python:NAME, aiokafka:NAME "
                        "(repeatable; default: every built-in assignor)")
    p.add_argument("--promises", type=checks.promises,
                   help="promises of the --target(s), e.g. balance=perfect,fixpoint "
                        "(outside targets promise nothing beyond H1-H8 unless told)")
    p.add_argument("--stages", default=STAGES, type=checks.names_in(STAGES, "stage"),
                   help=f"comma-separated subset of {','.join(STAGES)}")
    p.add_argument("--report-dir", default="reports", type=checks.nonempty,
                   help="where JUnit XML, JSON, Markdown and HTML go")
    p.add_argument("--seed", type=checks.int_in(0, checks.MAX_SEED), default=0)
    p.add_argument("--master", default=None, type=checks.spark_master,
                   help="Spark master URL for the campaign stage (default local[*])")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from assigncheck.ci.gate import run_gate
    from assigncheck.ci.reports import write_all
    from assigncheck.ci.summary import print_summary, targets_from_args
    from assigncheck.spec.json_format import load_json

    console = Console(stderr=True)
    targets = targets_from_args(checks.distinct(args.target), args.promises)
    checks.output_dir(args.report_dir, "--report-dir")  # now, not after every stage has run
    stages = args.stages
    steps = sum(1 if s == "campaign" else len(targets) for s in stages)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("gate", total=steps)

        def progress(message: str) -> None:  # called as each (stage, target) step starts
            started = bar.tasks[0].description != "gate"
            bar.update(task, advance=1 if started else 0, description=f"gate: {message}")

        result = run_gate(targets, args.profile, args.report_dir, stages, args.seed, args.master, progress=progress)
    rows_file = Path(args.report_dir) / "campaign" / "rows.json"
    rows = load_json(rows_file) if rows_file.exists() else []
    files = write_all(result, args.report_dir, rows)
    print_summary(result, files)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as f:
            f.write(files["markdown"].read_text(encoding="utf-8"))
    return result.exit_code
