"""`make gate`'s figures: one `assigncheck gate --profile quick` over every built-in, as `make gate` runs it, and
the work each stage did (and in how long) per target, read from the run's `report.json`.

    python -m benchmarks.gate                                     # the quick gate, every stage
    python -m benchmarks.gate -- --stages scale                   # the scale stage alone
    python -m benchmarks.gate -- --stages scale --target java:... # ... on other targets

Arguments after `--` go to `assigncheck gate` (after `--profile quick`); they name the run's variant in the
results file `benchmarks/results/gate.json`, which keeps the last run of each variant (the scale stage's
variants keep three: the docs report its CPU times as the range over them). About 5-8 minutes for the whole gate
on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks import record

KEEP_SCALE = 3
SCALE_WHY = "the docs report the scale stage's CPU times as the range over the last three runs of each variant"


def stage_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per (stage, target): its time, its work against the nominal, its findings, and for the scale stage
    the largest rungs' CPU per call and the growth it measured."""
    rows = []
    for s in report["stages"]:
        work = s.get("work") or {}
        row: dict[str, Any] = {"stage": s["stage"], "target": s["target"], "seconds": round(s["seconds"], 1),
                               "ok": s["ok"], "error": s["error"], "findings": len(s["findings"]),
                               "found": [{"invariant": f["invariant"], "status": f["status"]} for f in s["findings"]],
                               "done": work.get("done"), "nominal": work.get("nominal"), "unit": work.get("unit"),
                               "skipped": s["stats"].get("skipped")}
        if s["stage"] == "scale" and "ladder" in s["stats"]:
            last: dict[str, dict[str, Any]] = {}
            for rung in s["stats"]["ladder"]:
                last[rung["series"]] = rung  # each series' largest rung climbed
            row["largest"] = list(last.values())
            row["growth"] = s["stats"].get("growth", "")
            row["ladder"] = s["stats"]["ladder"]
        rows.append(row)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gate", description=__doc__.splitlines()[0])
    parser.add_argument("gate_args", nargs="*", help="after --: more arguments for `assigncheck gate`")
    args = parser.parse_args()
    started = record.begin()
    cli = str(Path(sys.executable).with_name("assigncheck"))
    with tempfile.TemporaryDirectory(prefix="bench-gate-") as tmp:
        command = [cli, "gate", "--profile", "quick", "--report-dir", tmp, *args.gate_args]
        done = subprocess.run(command, cwd=record.ROOT, check=False)
        report_file = Path(tmp) / "report.json"
        if not report_file.exists():
            print(f"python -m benchmarks.gate: the gate wrote no report (exit {done.returncode})", file=sys.stderr)
            return 2
        report = json.loads(report_file.read_text())
    variant = " ".join(args.gate_args)
    scale_only = "--stages" in args.gate_args and args.gate_args[args.gate_args.index("--stages") + 1:][:1] == ["scale"]
    record.save("gate", started.finish(stage_rows(report), variant=variant, exit_code=done.returncode,
                                       gate_seconds=report["seconds"], counts=report["counts"],
                                       warnings=len(report["warnings"]), targets=report["targets"]),
                keep=KEEP_SCALE if scale_only else 1, why=SCALE_WHY)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
