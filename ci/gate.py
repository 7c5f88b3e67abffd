"""`assigncheck gate`: every stage on every target, within the profile's time budgets.

Stages, in order: `properties` (hypothesis over the spec's strategies), `proofs` (Z3 models for the
built-in assignors that have one, small-scope exhaustive checking for the rest), `fuzz` (atheris),
`campaign` (a Spark differential campaign). Each stage module exposes `run(target, ctx) -> StageResult`.
"""

from __future__ import annotations

import hashlib
import importlib
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assigncheck.ci.results import Finding, GateResult, StageResult
from assigncheck.spec.errors import InputError
from assigncheck.spec.json_format import save_problem
from assigncheck.spec.model import AnyProblem, StreamsProblem
from assigncheck.spec.promises import Assignor

STAGES = ("properties", "proofs", "fuzz", "campaign")


@dataclass(frozen=True)
class Profile:
    """Time and size budgets per stage (per target unless said otherwise)."""

    name: str
    examples: int  # hypothesis examples
    properties_s: float
    proofs_s: float
    fuzz_s: float
    campaign_instances: int  # for all targets together
    campaign_shards: int


PROFILES = {
    # `quick` fits in 5 minutes on 2 cores for all built-in assignors (what `make gate` runs).
    "quick": Profile("quick", examples=600, properties_s=12, proofs_s=10, fuzz_s=6, campaign_instances=4000,
                     campaign_shards=4),
    "full": Profile("full", examples=2000, properties_s=120, proofs_s=60, fuzz_s=120, campaign_instances=200_000,
                    campaign_shards=32),
}


@dataclass
class Context:
    """What every stage gets besides its target."""

    profile: Profile
    report_dir: Path
    seed: int = 0
    master: str | None = None
    progress: Callable[[str], None] = field(default=lambda message: None)

    def save_reproducer(self, stage: str, target: str, invariant: str, problem: AnyProblem, message: str) -> str:
        """Write the problem that shows a finding, once per (stage, target, invariant, content). The note
        uses the fuzzer's key=value layout, so `assigncheck replay FILE` needs no --target."""
        from assigncheck.spec.json_format import dumps, problem_to_json

        digest = hashlib.sha1(dumps(problem_to_json(problem)).encode()).hexdigest()[:10]
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{stage}-{target}-{invariant}")[:120]
        path = self.report_dir / "reproducers" / f"{slug}-{digest}.json"
        note = (f"assignor: {target}. gate finding; target={target}; invariant={invariant}; stage={stage}; "
                f"seed={self.seed}; message={message}")
        save_problem(problem, path, note=note)
        return str(path)


def target_spec(target: Assignor) -> str:
    """The `--target` string that loads this target again in another process (fuzz jobs, executors)."""
    inner = getattr(target, "inner", target)  # a target whose promises the command line declared
    return getattr(inner, "spec", None) or inner.name


def is_streams(problem: AnyProblem) -> bool:
    return isinstance(problem, StreamsProblem)


def shrink(target: Assignor, problem: AnyProblem, invariant: str, seconds: float = 10.0) -> AnyProblem:
    """Delta-debug a failing problem (the fuzzer's minimizer) while `invariant` still breaks on it."""
    from assigncheck.fuzz.minimize import minimize
    from assigncheck.spec.check import check_assignor

    def still_fails(candidate: AnyProblem) -> bool:
        return any(v.invariant == invariant for v in check_assignor(target, candidate, measure=False)[1].violations)

    return minimize(problem, still_fails, seconds=seconds)


def findings_from_report(stage: str, target: Assignor, report: Any, problem: AnyProblem, ctx: Context,
                         *, seed: int | None = None, how: str = "") -> list[Finding]:
    """Turn a failing `spec.check.Report` into findings that point at one written, minimized reproducer."""
    if report.ok:
        return []
    from assigncheck.spec.check import check_assignor

    problem = shrink(target, problem, report.violations[0].invariant)
    report = check_assignor(target, problem)[1]
    first = report.violations[0]
    path = ctx.save_reproducer(stage, target_spec(target), first.invariant, problem, f"{first.message}{how}")
    return [Finding.of(stage, target.name, v, reproducer=path, seed=seed) for v in report.violations]


def _stage(name: str) -> Callable[[Assignor, Context], StageResult]:
    return importlib.import_module(f"assigncheck.ci.stage_{name}").run


def run_gate(targets: Sequence[Assignor], profile: str = "quick", report_dir: str | Path = "reports",
             stages: Sequence[str] = STAGES, seed: int = 0, master: str | None = None,
             progress: Callable[[str], None] | None = None) -> GateResult:
    if profile not in PROFILES:
        raise InputError("--profile", f"must be one of {', '.join(PROFILES)}, got {profile!r}")
    for s in stages:
        if s not in STAGES:
            raise InputError("--stages", f"unknown stage {s!r}; stages are {', '.join(STAGES)}")
    ctx = Context(PROFILES[profile], Path(report_dir), seed, master, progress or (lambda message: None))
    result = GateResult(profile, tuple(t.name for t in targets))
    started = time.monotonic()
    for stage in stages:
        run = _stage(stage)
        if stage == "campaign":  # one Spark campaign covers every target at once
            ctx.progress(f"campaign: {ctx.profile.campaign_instances} instances × {len(targets)} target(s) on Spark")
            result.stages.extend(_guarded(lambda run=run: run(list(targets), ctx), stage, "all"))
            continue
        for target in targets:
            ctx.progress(f"{stage}: {target.name}")
            result.stages.extend(_guarded(lambda run=run, t=target: [run(t, ctx)], stage, target.name))
    result.seconds = time.monotonic() - started
    return result


def _guarded(call: Callable[[], Any], stage: str, target: str) -> list[StageResult]:
    """A stage that breaks is reported as a stage error, never as a harness traceback."""
    started = time.monotonic()
    try:
        out = call()
        return list(out)
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001 - reported in every report, and fails the gate
        return [StageResult(stage, target, time.monotonic() - started, error=f"{type(e).__name__}: {e}")]
