"""Gate stage `fuzz`: atheris (libFuzzer) on one target for the profile's budget, via `assigncheck.fuzz`.

The jobs run as subprocesses (libFuzzer exits its process) and load the target by its spec string, so
the target is checked against the promises it declares itself (`--promises` of the gate reaches the
properties and proofs stages only). Each finding is already minimized and written by the fuzzer.
"""

from __future__ import annotations

import io
import time
from pathlib import Path

from assigncheck.ci.gate import Context, target_spec
from assigncheck.ci.results import Finding, StageResult
from assigncheck.spec.promises import Assignor

VECTORS = Path("tests/vectors")


def run(target: Assignor, ctx: Context) -> StageResult:
    from assigncheck.fuzz.jobs import fuzz_target
    from assigncheck.fuzz.triage import parse_note
    from assigncheck.spec.errors import InputError
    from assigncheck.spec.json_format import load_json

    started = time.monotonic()
    out = ctx.report_dir / "fuzz"
    vectors = VECTORS if VECTORS.is_dir() else out / "no-vectors"
    vectors.mkdir(parents=True, exist_ok=True)
    res = fuzz_target(target_spec(target), seconds=ctx.profile.fuzz_s, jobs=1, out=out, seed=ctx.seed + 1,
                      budget_s=2.0, engine="atheris", max_len=256, vectors=vectors, stop_on_finding=True,
                      status=io.StringIO())
    result = StageResult("fuzz", target.name, checked=("H1-H8+promises",))
    for path, invariant in sorted(res.findings.items()):
        try:
            doc = load_json(path)
            note = parse_note(doc.get("note", "") if isinstance(doc, dict) else "")
        except (InputError, TypeError):
            note = {}
        result.findings.append(Finding("fuzz", target.name, invariant, note.get("message", invariant),
                                       reproducer=path, seed=int(note["seed"]) if note.get("seed", "").isdigit()
                                       else None))
    for failure in res.failed_jobs:  # libFuzzer's own timeout (a hang) or an escaped exception
        result.findings.append(Finding("fuzz", target.name, "H7", failure))
    result.seconds = time.monotonic() - started
    result.stats = {"execs": res.execs, "exec/s": round(res.rate), "cov": res.cov}
    return result
