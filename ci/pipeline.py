"""`assigncheck gate`: every stage on every target, within the profile's budgets; verdicts users can trust.

Stages, in order (`ci.stages`): `properties` (hypothesis over the spec's strategies), `proofs` (Z3 models for
the built-in assignors that have one, small-scope exhaustive checking for the rest), `fuzz` (atheris),
`campaign` (a Spark differential campaign). Every stage holds a target to the same promises: the target is
loaded once from its reference (`impl.registry.load`), and worker processes load that same reference.

A run is stateless: it works in a directory of its own inside the report directory and publishes it (the
reproducers, the fuzz corpus, the campaign rows) only when every stage is done, so nothing of an earlier run
is resumed or aggregated, and an interrupted run (Ctrl-C) leaves the previous reports as they were.

A finding fails the gate only once its reproducer, replayed from the file alone in a fresh process, shows
the same invariant broken (`ci.verdicts.confirm`).
"""

from __future__ import annotations

import importlib
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from assigncheck.ci.context import PROFILES, Context, ctrl_c_stops, stop_if_interrupted
from assigncheck.ci.results import Finding, GateResult, StageResult
from assigncheck.ci.stages import STAGES
from assigncheck.ci.verdicts import confirm
from assigncheck.run.calls import hang_limit
from assigncheck.spec.errors import InputError
from assigncheck.spec.promises import Assignor

PUBLISHED = ("reproducers", "fuzz", "campaign")  # what a run leaves in the report directory besides the reports
WORK_PREFIX = ".gate-run-"


def _stage(name: str) -> Callable[..., Any]:
    return importlib.import_module(f"assigncheck.ci.stages.{name}").run


def check_report_dir(report_dir: str | Path) -> Path:
    """The report directory, created if need be; an InputError before any stage runs if it cannot be one."""
    from assigncheck.ci.args import output_dir

    if str(report_dir) == "":
        raise InputError("--report-dir", "must not be empty")
    return output_dir(report_dir, "--report-dir")


def _load() -> tuple[float, list[str]]:
    """The machine's load at the start, and a note when it is busier than its cores."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    cores = os.cpu_count() or 1
    busy = [f"load average {load:.1f} on {cores} core(s) at the start: stages may check less, each says how much"]
    return load, busy if load > cores else []


def run_gate(targets: Sequence[Assignor], profile: str = "quick", report_dir: str | Path = "reports",
             stages: Sequence[str] = STAGES, seed: int = 0, master: str | None = None,
             progress: Callable[[str], None] | None = None, h8_env: str = "PYTHONHASHSEED") -> GateResult:
    if profile not in PROFILES:
        raise InputError("--profile", f"must be one of {', '.join(PROFILES)}, got {profile!r}")
    if not stages:
        raise InputError("--stages", "name at least one stage")
    for s in stages:
        if s not in STAGES:
            raise InputError("--stages", f"unknown stage {s!r}; stages are {', '.join(STAGES)}")
    root = check_report_dir(report_dir)
    work = root / f"{WORK_PREFIX}{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
    work.mkdir(parents=True)
    ctx = Context(PROFILES[profile], work, seed, master, progress or (lambda message: None), h8_env)
    load, notes = _load()
    result = GateResult(profile, tuple(t.name for t in targets), notes=notes, load=load)
    started = time.monotonic()
    try:
        with ctrl_c_stops():
            _run_stages(stages, targets, ctx, result)
        result.seconds = time.monotonic() - started
        _publish(work, root, result)
    except BaseException:  # Ctrl-C or a usage error: the previous reports stay as they were
        shutil.rmtree(work, ignore_errors=True)
        raise
    return result


def _run_stages(stages: Sequence[str], targets: Sequence[Assignor], ctx: Context, result: GateResult) -> None:
    for stage in stages:
        run = _stage(stage)
        if stage == "campaign":  # one Spark campaign covers every target at once
            ctx.progress(f"campaign: {ctx.profile.campaign_instances} instances × {len(targets)} target(s)")
            done = _guarded(lambda run=run: run(list(targets), ctx), stage, "all")
        else:
            done = []
            for target in targets:
                stop_if_interrupted()
                ctx.progress(f"{stage}: {target.name}")
                done += _guarded(lambda run=run, t=target: [run(t, ctx)], stage, target.name)
        result.stages += [_confirmed(r, targets, ctx) for r in done]


def _confirmed(stage: StageResult, targets: Sequence[Assignor], ctx: Context) -> StageResult:
    """The stage's findings, each confirmed by a replay in a fresh process (or not), and its work checked."""
    by_name = {t.name: t for t in targets}
    if stage.findings:
        ctx.progress(f"{stage.stage}: replaying {len(stage.findings)} finding(s) for {stage.target}")
        stage.findings = confirm(stage.findings, lambda f: by_name.get(f.target), ctx,
                                 4 * hang_limit(ctx.profile.budget_s) + 60)
    if stage.work is not None and stage.work.short:
        stage.notes.append(f"ran {stage.work}: under half of its nominal work")
    return stage


def _publish(work: Path, root: Path, result: GateResult) -> None:
    """Move this run's files into the report directory, replacing an earlier run's, and point the findings
    at their published reproducers."""
    for name in PUBLISHED:
        old, new = root / name, work / name
        if old.exists():
            shutil.rmtree(old) if old.is_dir() else old.unlink()
        if new.exists():
            new.rename(old)
    prefix = str(work)

    def moved(f: Finding) -> Finding:
        if f.reproducer and f.reproducer.startswith(prefix):
            return replace(f, reproducer=str(root) + f.reproducer[len(prefix):])
        return f

    for stage in result.stages:
        stage.findings = [moved(f) for f in stage.findings]
    shutil.rmtree(work, ignore_errors=True)


def _guarded(call: Callable[[], Any], stage: str, target: str) -> list[StageResult]:
    """A stage that breaks is reported as a stage error, never as a harness traceback."""
    started = time.monotonic()
    try:
        return list(call())
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001 - reported in every report, and fails the gate
        return [StageResult(stage, target, time.monotonic() - started, error=f"{type(e).__name__}: {e}")]
