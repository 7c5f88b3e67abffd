"""`assigncheck gate`: the merge gate. Exit 0 all pass, 1 a violation or a stage error, 2 bad usage/input."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("gate", help="run every stage on the built-in assignors or on your targets")
    p.add_argument("--profile", default="quick", help="quick (≤ 5 min on 2 cores) or full")
    p.add_argument("--target", action="append", default=[], metavar="SPEC",
                   help="built-in name, package.module:object, cmd:COMMAND, kafka-python:NAME, aiokafka:NAME "
                        "(repeatable; default: every built-in assignor)")
    p.add_argument("--promises", help="promises of the --target(s), e.g. balance=perfect,fixpoint "
                                      "(outside targets promise nothing beyond H1-H8 unless told)")
    p.add_argument("--stages", default=None, help="comma-separated subset of properties,proofs,fuzz,campaign")
    p.add_argument("--report-dir", default="reports", help="where JUnit XML, JSON, Markdown and HTML go")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--master", default=None, help="Spark master URL for the campaign stage (default local[*])")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from assigncheck.ci.gate import STAGES, run_gate
    from assigncheck.ci.reports import write_all
    from assigncheck.ci.summary import print_summary, targets_from_args

    console = Console(stderr=True)
    targets = targets_from_args(args.target, args.promises)
    stages = tuple(s.strip() for s in args.stages.split(",")) if args.stages else STAGES
    steps = sum(1 if s == "campaign" else len(targets) for s in stages)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("gate", total=steps)

        def progress(message: str) -> None:  # called as each (stage, target) step starts
            started = bar.tasks[0].description != "gate"
            bar.update(task, advance=1 if started else 0, description=f"gate: {message}")

        result = run_gate(targets, args.profile, args.report_dir, stages, args.seed, args.master, progress=progress)
    rows_file = Path(args.report_dir) / "campaign" / "rows.json"
    rows = __import__("json").loads(rows_file.read_text()) if rows_file.exists() else []
    files = write_all(result, args.report_dir, rows)
    print_summary(result, files)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as f:
            f.write(files["markdown"].read_text(encoding="utf-8"))
    return result.exit_code
