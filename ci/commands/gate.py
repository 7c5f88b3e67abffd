"""`assigncheck gate`: the merge gate. Exit 0 all pass, 1 a confirmed finding or a stage error, 2 bad usage/input."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from assigncheck.ci import args as checks
from assigncheck.ci.context import PROFILES
from assigncheck.ci.stages import STAGES
from assigncheck.spec.errors import InputError


def register(sub: argparse._SubParsersAction) -> None:
    from assigncheck.ci.target_flags import add_target_options

    p = sub.add_parser("gate", help="run every stage on the built-in assignors or on your targets")
    p.add_argument("--profile", default="quick", choices=tuple(PROFILES),
                   help="quick (≤ 5 min on 2 cores) or full")
    add_target_options(p)
    p.add_argument("--stages", default=None, type=checks.names_in(STAGES, "stage"),
                   help=f"comma-separated subset of {','.join(STAGES)} (default: those whose engines are installed)")
    p.add_argument("--report-dir", default="reports", type=checks.nonempty,
                   help="where JUnit XML, JSON, Markdown and HTML go")
    p.add_argument("--seed", type=checks.int_in(0, checks.MAX_SEED), default=0)
    p.add_argument("--master", default=None, type=checks.spark_master,
                   help="Spark master URL for the campaign stage (default local[*])")
    p.add_argument("--h8-env", default="PYTHONHASHSEED", metavar="NAME", type=checks.env_name,
                   help="H8 across processes: the environment variable given two different values in two "
                        "processes of each target (default PYTHONHASHSEED)")
    p.set_defaults(run=run)



def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from assigncheck.ci.console import print_summary
    from assigncheck.ci.engines import STAGE_ENGINES, available_stages, in_ci, install_hint, missing, require
    from assigncheck.ci.pipeline import check_report_dir, run_gate
    from assigncheck.ci.reports import write_all
    from assigncheck.ci.stages.campaign import ROWS_FILE
    from assigncheck.ci.target_flags import targets_from_args
    from assigncheck.formats.documents import load_json

    not_run = ""
    if args.stages is None:  # every stage whose engine is installed
        stages, absent = available_stages(STAGES)
        if absent:  # a pass must not read as the whole gate's: under CI it is refused, elsewhere said loudly
            hint = install_hint([m for s in absent for m in missing(STAGE_ENGINES[s])])
            if in_ci():
                raise InputError("--stages", f"CI={os.environ['CI']} and the stages {', '.join(absent)} cannot run "
                                 f"(extras not installed): {hint}, or name the stages to run with --stages")
            not_run = f"{', '.join(absent)} NOT RUN (extras not installed: {hint})"
    else:
        stages = args.stages
        for stage in stages:
            require(f"the {stage} stage", *STAGE_ENGINES[stage], flag="--stages")
    if "campaign" in stages:
        from assigncheck.spark.session import check_master

        check_master(args.master)
    check_report_dir(args.report_dir)  # before any target starts or stage runs
    targets = targets_from_args(args)
    console = Console(stderr=True, highlight=False)
    skipped = f"; {not_run}" if not_run else ""
    console.print(f"assigncheck gate: stages {', '.join(stages)}{skipped}", markup=False, soft_wrap=True)
    steps = sum(1 if s == "campaign" else len(targets) for s in stages)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("gate", total=steps)

        def progress(message: str) -> None:  # called as each (stage, target) step starts
            started = bar.tasks[0].description != "gate" and "replaying" not in message
            bar.update(task, advance=1 if started else 0, description=f"gate: {message}")

        result = run_gate(targets, args.profile, args.report_dir, stages, args.seed, args.master, progress=progress,
                          h8_env=args.h8_env)
    if not_run:  # in every report and above the verdict too, not only in the first line
        result.notes.append(f"stages {not_run}: this gate checked {', '.join(stages)} only")
    rows_file = Path(args.report_dir) / "campaign" / ROWS_FILE
    rows = load_json(rows_file) if rows_file.exists() else []
    files = write_all(result, args.report_dir, rows)
    print_summary(result, files)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with open(step_summary, "a", encoding="utf-8") as f:
            f.write(files["markdown"].read_text(encoding="utf-8"))
    return result.exit_code
