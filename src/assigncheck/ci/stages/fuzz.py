"""Gate stage `fuzz`: atheris (libFuzzer) on one target for the profile's budget (longer for a target that is
not a built-in: `OUTSIDE_S`), via `assigncheck.fuzz`.

The jobs run as subprocesses (libFuzzer exits its process) and load the target by its reference, promises
included, so they check what every other stage checks; each job says which promises it enforced. They keep
going after a finding until the budget ends; each finding is minimized and written by the job, then
confirmed by the gate like every other.
"""

from __future__ import annotations

import io
import time

from assigncheck.ci.context import Context
from assigncheck.ci.results import StageResult, Work
from assigncheck.ci.stages import each_target
from assigncheck.findings.confirm import from_files
from assigncheck.findings.finding import Finding
from assigncheck.spec.promises import Assignor

# Wall-clock seconds for a target that is not a built-in, whose execs cost more: a round trip to its program
# (`cmd:`, `java:`), or atheris' instrumentation of its module (a Python object). It does the same nominal work,
# given the time that takes; a built-in gets the profile's `fuzz_s`.
OUTSIDE_S = {"quick": 60.0, "full": 600.0}


def check_target(target: Assignor, ctx: Context) -> StageResult:
    from assigncheck.fuzz.jobs import fuzz_target
    from assigncheck.targets.registry import BUILTINS, ref_of

    started = time.monotonic()
    out = ctx.work_dir / "fuzz"
    ref = ref_of(target)
    outside = max(ctx.profile.fuzz_s, OUTSIDE_S.get(ctx.profile.name, OUTSIDE_S["quick"]))
    seconds = ctx.profile.fuzz_s if ref.spec in BUILTINS else outside
    res = fuzz_target(ref.key(), seconds=seconds, jobs=1, out=out, seed=ctx.seed + 1,
                      budget_s=ctx.profile.budget_s, engine="atheris", max_len=256,
                      minimize_s=ctx.profile.minimize_s, runs=ctx.profile.fuzz_execs, status=io.StringIO(),
                      cpu_factor=None if ctx.calibration is None else ctx.calibration.factor)
    result = StageResult("fuzz", target.name, checked=("H1-H8+promises",), promises=res.promises)
    result.findings = from_files("fuzz", target.name, list(res.findings))
    for failure in res.failed_jobs:  # libFuzzer's own timeout, or an escaped exception: a harness failure
        result.findings.append(Finding("fuzz", target.name, "harness.error", failure, status="unconfirmed",
                                       why="the fuzz job itself failed; nothing to replay"))
    if res.promises is None:
        result.notes.append("the fuzz job did not say which promises it enforced")
    elif res.promises != target.promises.to_text():
        result.error = f"the fuzz job enforced {res.promises!r}, not {target.promises.to_text()!r}"
    result.work = Work(res.execs, ctx.profile.fuzz_execs, "execs")
    result.seconds = time.monotonic() - started
    result.stats = {"exec/s": round(res.rate), "cov": res.cov}
    return result


run = each_target("fuzz", check_target)
