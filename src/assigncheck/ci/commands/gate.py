"""`assigncheck gate`: the merge gate. Exit 0 all pass, 1 a confirmed finding or a stage error, 2 bad usage/input."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from assigncheck.ci import flag_types
from assigncheck.ci.context import PROFILES, Progress
from assigncheck.ci.stages import STAGES
from assigncheck.spec.errors import InputError

if TYPE_CHECKING:
    from assigncheck.ci.pipeline import Plan
    from assigncheck.ci.results import GateResult
    from assigncheck.spec.promises import Assignor


def register(sub: argparse._SubParsersAction) -> None:
    from assigncheck.ci.target_flags import add_target_options

    p = sub.add_parser("gate", help="run every stage on the built-in assignors or on your targets")
    p.add_argument("--profile", default="quick", choices=tuple(PROFILES),
                   help="quick (≤ 5 min on 2 cores) or full")
    add_target_options(p)
    p.add_argument("--stages", default=None, type=_names,
                   help=f"comma-separated subset of {','.join(STAGES)} (default: those whose engines are installed)")
    p.add_argument("--report-dir", default="reports", help="where JUnit XML, JSON, Markdown and HTML go")
    p.add_argument("--seed", type=flag_types.int_in(0, flag_types.MAX_SEED), default=0)
    p.add_argument("--master", default=None, type=flag_types.spark_master,
                   help="Spark master URL for the campaign stage (default local[*])")
    p.add_argument("--h8-env", default="PYTHONHASHSEED", metavar="NAME", type=flag_types.env_name,
                   help="H8 across processes: the environment variable given two different values in two "
                        "processes of each target (default PYTHONHASHSEED)")
    p.set_defaults(run=run)


def _names(text: str) -> tuple[str, ...]:
    """The stages as named, in order (`ci.pipeline.Plan.of` checks them)."""
    return tuple(name.strip() for name in text.split(","))


def _stages(args: argparse.Namespace) -> tuple[tuple[str, ...], str]:
    """The stages to run, and what is not run because its engine is not installed (when --stages is not given)."""
    from assigncheck.ci.engines import STAGE_ENGINES, available_stages, in_ci, install_hint, missing

    if args.stages is not None:
        return args.stages, ""
    stages, absent = available_stages(STAGES)
    if not absent:
        return tuple(stages), ""
    hint = install_hint([m for s in absent for m in missing(STAGE_ENGINES[s])])
    if in_ci():  # a pass must not read as the whole gate's: under CI it is refused, elsewhere said loudly
        raise InputError("--stages", f"CI={os.environ['CI']} and the stages {', '.join(absent)} cannot run "
                         f"(extras not installed): {hint}, or name the stages to run with --stages")
    return tuple(stages), f"{', '.join(absent)} NOT RUN (extras not installed: {hint})"


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from assigncheck.ci.console import print_summary
    from assigncheck.ci.engines import STAGE_ENGINES, require
    from assigncheck.ci.pipeline import Plan
    from assigncheck.ci.target_flags import targets_from_args

    stages, not_run = _stages(args)
    from assigncheck.run.calibration import fixed_factor

    plan = Plan.of(args.profile, args.report_dir, stages)  # before any target starts or stage runs
    fixed_factor()  # ASSIGNCHECK_CPU_FACTOR, checked as the flags are
    for stage in plan.stages:
        require(f"the {stage} stage", *STAGE_ENGINES[stage], flag="--stages")
    if "campaign" in plan.stages:
        from assigncheck.spark.session import check_master

        check_master(args.master)
    targets = targets_from_args(args)
    console = Console(stderr=True, highlight=False)
    skipped = f"; {not_run}" if not_run else ""
    console.print(f"assigncheck gate: stages {', '.join(plan.stages)}{skipped}", markup=False, soft_wrap=True)
    # in every report and above the verdict too, not only in the first line
    notes = [f"stages {not_run}: this gate checked {', '.join(plan.stages)} only"] if not_run else []
    result = _run_with_bar(console, targets, plan, args, notes)  # the reports written and published with the rest
    print_summary(result, result.reports)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        try:
            with open(step_summary, "a", encoding="utf-8") as f:
                f.write(result.reports["markdown"].read_text(encoding="utf-8"))
        except OSError as e:
            raise InputError("GITHUB_STEP_SUMMARY", f"{step_summary}: cannot be written: {e.strerror or e}") from None
    return result.exit_code


def _run_with_bar(console: Any, targets: Sequence[Assignor], plan: Plan, args: argparse.Namespace,
                  notes: Sequence[str]) -> GateResult:
    """The gate, with a progress bar of its (stage, target) steps on a terminal (off one, a bar draws nothing
    but its last newline); its reports written into its directory and published with the rest."""
    from rich import progress as bars
    from rich.markup import escape

    from assigncheck.ci.pipeline import run_gate
    from assigncheck.ci.reports import write_all
    from assigncheck.formats.bounded import shown

    if not console.is_terminal:
        return run_gate(targets, plan, args.seed, args.master, h8_env=args.h8_env, reports=write_all, notes=notes)

    columns = (bars.TextColumn("{task.description}"), bars.BarColumn(), bars.MofNCompleteColumn(),
               bars.TimeElapsedColumn())
    with bars.Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("gate", total=len(plan.stages) * len(targets))

        def progress(event: Progress) -> None:
            if event.event == "done":
                bar.advance(task, event.steps)
            else:  # a target's name may hold markup or escape sequences: shown as text
                bar.update(task, description=escape(shown(f"gate: {event}", 200)))

        return run_gate(targets, plan, args.seed, args.master, progress=progress, h8_env=args.h8_env,
                        reports=write_all, notes=notes)
