"""`assigncheck gate`: every stage on every target, within the profile's budgets; verdicts users can trust.

Stages, in order (`ci.stages`): `properties` (hypothesis over the spec's strategies), `proofs` (Z3 models for
the built-in assignors that have one, small-scope exhaustive checking for the rest), `fuzz` (atheris),
`campaign` (a Spark differential campaign), `scale` (production-size problems, timed). Every stage holds a
target to the same promises: the target is loaded once from its reference (`targets.registry.load`), and worker
processes load that same reference.

A run is planned first (`Plan.of`: the profile, the stages and the report directory, each checked once, before
any target starts). It is stateless: it works in a directory of its own inside the report directory and
publishes it (the reproducers, the fuzz corpus, the campaign rows, the reports) only when every stage is done,
all or nothing (`ci.publish`), so nothing of an earlier run is resumed or aggregated, and an interrupted run
(Ctrl-C), or one that fills the disk, leaves the previous reports as they were.

A finding fails the gate only once its reproducer, replayed from the file alone in a fresh process, shows
the same invariant broken (`findings.confirm.confirm`).

A run calibrates once (`run.calibration.current`): the profile's H7 budget and scale budget are reference
seconds, scaled by this machine's CPU factor, which every report states.
"""

from __future__ import annotations

import importlib
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from assigncheck.ci.context import PROFILES, Context, Profile, Progress
from assigncheck.ci.publish import WORK_PREFIX as WORK_PREFIX  # where a run works, for whoever looks
from assigncheck.ci.publish import failed, publish, remove_stale, work_dir
from assigncheck.ci.results import GateResult, StageResult
from assigncheck.ci.stages import STAGES, StageRun
from assigncheck.findings.confirm import confirm
from assigncheck.findings.finding import Finding
from assigncheck.run.calls import hang_limit
from assigncheck.run.interrupt import ctrl_c_stops, stop_if_interrupted
from assigncheck.spec.errors import InputError
from assigncheck.spec.promises import Assignor

PUBLISHED = ("reproducers", "fuzz", "campaign")  # what a run leaves in the report directory besides the reports
# writes the reports of a result into a directory (the run's), naming the directory they are published to
Reports = Callable[[GateResult, Path, Path], dict[str, Path]]


@dataclass(frozen=True)
class Plan:
    """What a gate run does: the profile, the stages in order, the report directory (created, writable)."""

    profile: Profile
    stages: tuple[str, ...]
    report_dir: Path

    @classmethod
    def of(cls, profile: str = "quick", report_dir: str | Path = "reports", stages: Sequence[str] = STAGES) -> Plan:
        """The plan, or an InputError naming the flag, before any target starts or stage runs."""
        from assigncheck.ci.flag_types import output_dir

        if profile not in PROFILES:
            raise InputError("--profile", f"must be one of {', '.join(PROFILES)}, got {profile!r}")
        stages = tuple(dict.fromkeys(stages))
        if not any(stages):
            raise InputError("--stages", f"names no stage; stages are {', '.join(STAGES)}")
        for s in stages:
            if s not in STAGES:
                raise InputError("--stages", f"unknown stage {s[:40]!r}; stages are {', '.join(STAGES)}")
        if str(report_dir) == "":
            raise InputError("--report-dir", "must not be empty")
        return cls(PROFILES[profile], stages, output_dir(report_dir, "--report-dir"))


def _stage(name: str) -> StageRun:
    return importlib.import_module(f"assigncheck.ci.stages.{name}").run


def _load() -> tuple[float, list[str]]:
    """The machine's load at the start, and a note when it is busier than its cores."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    cores = os.cpu_count() or 1
    busy = [f"load average {load:.1f} on {cores} core(s) at the start: stages may check less, each says how much"]
    return load, busy if load > cores else []


def run_gate(targets: Sequence[Assignor], plan: Plan, seed: int = 0, master: str | None = None,
             progress: Callable[[Progress], None] | None = None, h8_env: str = "PYTHONHASHSEED",
             reports: Reports | None = None, notes: Sequence[str] = ()) -> GateResult:
    """Every stage of `plan` on every target; `progress` hears of each step as it starts, replays and ends.
    `reports` writes the reports into the run's directory (`ci.reports.write_all`), published with the rest, all
    or nothing (`ci.publish`); `notes` go into them beside the run's own."""
    from assigncheck.run.calibration import current

    calibration = current()  # before anything is written: a bad ASSIGNCHECK_CPU_FACTOR is a usage error
    remove_stale(plan.report_dir)
    work = work_dir(plan.report_dir)
    try:
        work.mkdir(parents=True)
    except OSError as e:
        raise failed(plan.report_dir, e.strerror or str(e)) from None
    ctx = Context(plan.profile.calibrated(calibration.factor), work, seed, master, progress or (lambda event: None),
                  h8_env, calibration)
    load, load_notes = _load()
    result = GateResult(plan.profile.name, tuple(t.name for t in targets), notes=load_notes, load=load,
                        calibration=calibration, budget_s=plan.profile.budget_s)
    started = time.monotonic()
    try:
        with ctrl_c_stops():
            for stage in plan.stages:
                for done in _stage(stage)(targets, ctx):
                    result.stages.append(_confirmed(done, targets, ctx))
            result.seconds = time.monotonic() - started
            result.notes.extend(notes)
            _published(work, plan.report_dir, result, reports)
    except BaseException as e:  # Ctrl-C, a usage error, a full disk: the previous reports stay as they were
        shutil.rmtree(work, ignore_errors=True)
        if isinstance(e, OSError) or isinstance(e, InputError) and e.path.startswith(str(work)):
            raise failed(plan.report_dir, _cause(e, work)) from None
        raise
    return result


def _cause(e: BaseException, work: Path) -> str:
    """What went wrong writing in the run's directory, said without the directory (it is gone)."""
    text = e.message if isinstance(e, InputError) else (getattr(e, "strerror", None) or str(e))
    path = e.path if isinstance(e, InputError) else str(getattr(e, "filename", "") or "")
    name = os.path.relpath(path, work) if path.startswith(str(work)) else path
    return f"{name}: {text}" if name else text


def _confirmed(stage: StageResult, targets: Sequence[Assignor], ctx: Context) -> StageResult:
    """The stage's findings, each confirmed by a replay in a fresh process (or not), and its work checked."""
    by_name = {t.name: t for t in targets}
    if stage.findings:
        ctx.progress(Progress(stage.stage, stage.target, "replaying", f"{len(stage.findings)} finding(s)"))
        stage.findings = confirm(stage.findings, lambda f: by_name.get(f.target), ctx.filing,
                                 4 * hang_limit(ctx.profile.budget_s) + 60)
    if stage.work is not None and stage.work.short:
        stage.notes.append(f"ran {stage.work}: under half of its nominal work")
    ctx.progress(Progress(stage.stage, stage.target, "done", steps=len(targets) if stage.target == "all" else 1))
    return stage


def _published(work: Path, root: Path, result: GateResult, reports: Reports | None) -> None:
    """Point the findings at where their reproducers will be, write the reports beside them, and swap the run's
    files into the report directory, all or none (`ci.publish`)."""
    prefix = str(work)

    def moved(f: Finding) -> Finding:
        if f.reproducer and f.reproducer.startswith(prefix):
            return replace(f, reproducer=str(root) + f.reproducer[len(prefix):])
        return f

    for stage in result.stages:
        stage.findings = [moved(f) for f in stage.findings]
    written = reports(result, work, root) if reports is not None else {}
    stop_if_interrupted()  # a Ctrl-C that some library swallowed: an interrupted run publishes nothing
    publish(work, root, [*PUBLISHED, *(p.name for p in written.values())])
    result.reports = {kind: root / p.name for kind, p in written.items()}
