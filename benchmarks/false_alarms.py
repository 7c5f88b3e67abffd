"""False alarms of the quick gate on correct targets, on an idle machine and with every core kept busy.

The controls: every built-in assignor, and correct assignors nobody of this project wrote the way users run
them: the spec's range and round-robin references served over `cmd:` (a separate process, JSON lines) and
Kafka's own RangeAssignor over `java:` (nothing found in it). Each run is one quick gate over all of them; the
figures are the findings per status (only confirmed ones fail the gate), the exit code, and the work each stage
did against its nominal work.

    python -m benchmarks.false_alarms --runs 1 [--busy 2]

`--busy F` keeps F x cores busy-looping processes running during the runs (load >= F x cores). The runs go to
the results file `benchmarks/results/false_alarms.json` (the last of each variant: as-is, busy); `--out FILE`
also writes them, with every finding, to FILE. About 7-8 minutes a run on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SERVE = f"cmd:{sys.executable} {ROOT / 'tests' / 'fixtures' / 'reference_target.py'}"
CONTROLS = (
    (f"{SERVE} range", "balance=per-topic,exact=range"),
    (f"{SERVE} roundrobin", "balance=perfect,exact=roundrobin"),
    ("java:org.apache.kafka.clients.consumer.RangeAssignor", None),
)


def targets_named() -> list[str]:
    from assigncheck.targets.registry import names

    return [*names(), *(spec for spec, _ in CONTROLS)]


def targets() -> list[Any]:
    from assigncheck.formats.reproducer import TargetRef
    from assigncheck.targets.registry import get, load, names, probe

    return [get(n) for n in names()] + [probe(load(TargetRef(spec, promises))) for spec, promises in CONTROLS]


def one_run(report_dir: Path) -> dict[str, Any]:
    from assigncheck.ci.pipeline import Plan, run_gate

    loads = [os.getloadavg()[0]]
    started = time.monotonic()
    result = run_gate(targets(), Plan.of("quick", report_dir))
    loads.append(os.getloadavg()[0])
    work: dict[str, list[float]] = {}
    for s in result.stages:
        if s.work is not None and s.work.nominal:
            work.setdefault(s.stage, []).append(s.work.done / s.work.nominal)
    return {
        "exit_code": result.exit_code,
        "seconds": round(time.monotonic() - started, 1),
        "load": [round(x, 1) for x in loads],
        "findings": {status: [(f.target, f.stage, f.invariant, f.why) for f in result.by_status(status)]
                     for status in ("confirmed", "unconfirmed", "unreachable")},
        "stage_errors": [(s.stage, s.target, s.error) for s in result.stages if s.error],
        "work_min_fraction": {stage: round(min(fractions), 3) for stage, fractions in work.items()},
        "short_stages": [f"{s.stage}/{s.target}: {s.work}" for s in result.stages if s.work and s.work.short],
    }


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.false_alarms")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--busy", type=int, default=0, help="busy-looping processes per core during the runs")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    from benchmarks import record
    from benchmarks.harness import busy_cores

    started = record.begin()
    runs = []
    with tempfile.TemporaryDirectory(prefix="false-alarms-") as tmp:
        for k in range(args.runs):
            if args.busy:
                with busy_cores(args.busy):
                    runs.append(one_run(Path(tmp) / f"r{k}"))
            else:
                runs.append(one_run(Path(tmp) / f"r{k}"))
            print(json.dumps(runs[-1]), flush=True)
    doc = {"busy_per_core": args.busy, "cores": os.cpu_count(), "controls": [c for c, _ in CONTROLS], "runs": runs}
    if args.out:
        args.out.write_text(json.dumps(doc, indent=1) + "\n")
    rows = [{"exit_code": r["exit_code"], "seconds": r["seconds"], "load": r["load"],
             **{status: len(found) for status, found in r["findings"].items()},
             "stage_errors": len(r["stage_errors"]), "work_min_fraction": r["work_min_fraction"],
             "short_stages": r["short_stages"]} for r in runs]
    record.save("false_alarms", started.finish(rows, variant="busy" if args.busy else "as-is",
                                               busy_per_core=args.busy, targets=len(targets_named())))
    return 0 if all(not r["findings"]["confirmed"] and r["exit_code"] == 0 for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
