"""`assigncheck gate`: the merge gate. Exit 0 all pass, 1 a confirmed finding or a stage error, 2 bad usage/input."""

from __future__ import annotations

import argparse
import json
import os


def register(sub: argparse._SubParsersAction) -> None:
    from assigncheck.ci.targets import add_target_options

    p = sub.add_parser("gate", help="run every stage on the built-in assignors or on your targets")
    p.add_argument("--profile", default="quick", help="quick (≤ 5 min on 2 cores) or full")
    add_target_options(p)
    p.add_argument("--stages", default=None, help="comma-separated subset of properties,proofs,fuzz,campaign")
    p.add_argument("--report-dir", default="reports", help="where JUnit XML, JSON, Markdown and HTML go")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--master", default=None, help="Spark master URL for the campaign stage (default local[*])")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from assigncheck.ci.console import print_summary
    from assigncheck.ci.gate import check_report_dir, run_gate
    from assigncheck.ci.reports import write_all
    from assigncheck.ci.stages import STAGES
    from assigncheck.ci.stages.campaign import ROWS_FILE
    from assigncheck.ci.targets import targets_from_args
    from assigncheck.spark.session import check_master

    stages = tuple(s.strip() for s in args.stages.split(",")) if args.stages is not None else STAGES
    if "campaign" in stages:
        check_master(args.master)
    check_report_dir(args.report_dir)  # before any target starts or stage runs
    targets = targets_from_args(args)
    console = Console(stderr=True)
    steps = sum(1 if s == "campaign" else len(targets) for s in stages)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("gate", total=steps)

        def progress(message: str) -> None:  # called as each (stage, target) step starts
            started = bar.tasks[0].description != "gate" and "replaying" not in message
            bar.update(task, advance=1 if started else 0, description=f"gate: {message}")

        result = run_gate(targets, args.profile, args.report_dir, stages, args.seed, args.master, progress=progress)
    rows_file = os.path.join(args.report_dir, "campaign", ROWS_FILE)
    rows = json.loads(open(rows_file, encoding="utf-8").read()) if os.path.exists(rows_file) else []
    files = write_all(result, args.report_dir, rows)
    print_summary(result, files)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as f:
            f.write(files["markdown"].read_text(encoding="utf-8"))
    return result.exit_code
