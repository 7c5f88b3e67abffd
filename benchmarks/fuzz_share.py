"""The fuzz stage's share of work on targets outside the built-ins: the execs the gate's fuzz stage (quick
profile: 2,500 execs within 6 s) does on a built-in, a user's in-process Python class, and the same correct
round-robin as a `cmd:` program in Python and in Node.js (when `node` is installed), over protocol 1 and over
protocol 2 (whose batch requests carry several problems per round trip).

    python -m benchmarks.fuzz_share            # as the machine is
    python -m benchmarks.fuzz_share --busy     # with every core kept busy by another process

Each run goes to the results file `benchmarks/results/fuzz_share.json` (the last of each variant: as-is, busy).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from contextlib import nullcontext
from pathlib import Path

from benchmarks import record
from benchmarks.harness import busy_cores

HERE = Path(__file__).resolve().parent / "outside"


def targets() -> list[str]:
    found = ["range", "benchmarks.outside.roundrobin_class:RoundRobin",
             f"cmd:{sys.executable} {HERE / 'roundrobin.py'}", f"cmd2:{sys.executable} {HERE / 'roundrobin.py'}"]
    node = shutil.which("node")
    if node:
        found += [f"cmd:{node} {HERE / 'roundrobin.js'}", f"cmd2:{node} {HERE / 'roundrobin.js'}"]
    return found


def measure(spec: str) -> tuple[int, int, float, int]:
    """(execs done, nominal execs, seconds, execs per second) of the gate's fuzz stage on `spec`."""
    from assigncheck.ci.pipeline import Plan, run_gate
    from assigncheck.ci.target_flags import open_targets
    from assigncheck.formats.reproducer import TargetRef

    (target,) = open_targets([TargetRef(spec)])
    with tempfile.TemporaryDirectory() as d:
        result = run_gate([target], Plan.of("quick", Path(d) / "reports", ["fuzz"]))
    close = getattr(target, "close", None)
    if close is not None:
        close()
    (stage,) = result.stages
    if stage.error or stage.findings:
        raise SystemExit(f"{spec}: {stage.error or [f.message for f in stage.findings]}")
    assert stage.work is not None
    return stage.work.done, stage.work.nominal, stage.seconds, stage.stats.get("exec/s", 0)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fuzz_share")
    parser.add_argument("--busy", action="store_true", help="keep every core busy with another process meanwhile")
    args = parser.parse_args()
    sys.path.insert(0, os.getcwd())
    rows = []
    with busy_cores(factor=1) if args.busy else nullcontext():
        started = record.begin()
        print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start"
              f"{', every core kept busy' if args.busy else ''}")
        for spec in targets():
            done, nominal, seconds, rate = measure(spec)
            name = spec.replace(str(HERE) + "/", "").replace(sys.executable, "python")
            name = name.replace(shutil.which("node") or "node", "node")
            rows.append({"target": name, "execs": done, "nominal": nominal, "seconds": round(seconds, 1),
                         "exec_per_s": rate})
            print(f"{done:6,}/{nominal:,} execs ({rate:5,} exec/s) in {seconds:5.1f} s  {name}", flush=True)
        print(f"load {os.getloadavg()[0]:.1f} at the end")
        record.save("fuzz_share", started.finish(rows, variant="busy" if args.busy else "as-is"))


if __name__ == "__main__":
    main()
