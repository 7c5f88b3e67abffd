"""The live check's figures: `assigncheck live --seed 0` (every client and protocol pair on one broker), its groups
and confirmed findings read from its console output, into the results file `benchmarks/results/live.json`.

    python -m benchmarks.live [-- LIVE ARGS]

Arguments after `--` go to `assigncheck live` after `--seed 0` (e.g. `--client franz-go`). About 5-8 minutes on
2 cores: a broker's start, a group of 6 steps per pair, and a fresh broker for each finding's replay.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks import record

GROUP = re.compile(r"^(?P<mark>[✓✗]) (?P<client>.+?): (?P<steps>\d+) steps, (?P<points>\d+) stable points, .*?"
                   r"(?P<seconds>\d+) s$")
FOUND = re.compile(r"^    (?P<invariant>\S+) \((?P<where>[^)]*)\): (?P<message>.*)$")
REPRODUCER = re.compile(r"^    reproducer: \S+ \((?P<status>confirmed|unconfirmed)")


def groups(output: str) -> list[dict[str, object]]:
    """One row per group the run printed: its client, steps, stable points, seconds, and its findings."""
    rows: list[dict[str, object]] = []
    found: list[dict[str, str]] = []
    for line in output.splitlines():
        if m := GROUP.match(line):
            found = []
            rows.append({"client": m["client"], "ok": m["mark"] == "✓", "steps": int(m["steps"]),
                         "stable_points": int(m["points"]), "seconds": int(m["seconds"]), "findings": found})
        elif (m := FOUND.match(line)) and rows:
            found.append({"invariant": m["invariant"], "where": m["where"], "message": m["message"][:300]})
        elif (m := REPRODUCER.match(line)) and found:
            found[-1]["status"] = m["status"]
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.live", description=__doc__.splitlines()[0])
    parser.add_argument("live_args", nargs="*", help="after --: more arguments for `assigncheck live`")
    args = parser.parse_args()
    started = record.begin()
    cli = str(Path(sys.executable).with_name("assigncheck"))
    with tempfile.TemporaryDirectory(prefix="bench-live-") as tmp:
        done = subprocess.run([cli, "live", "--seed", "0", "--report-dir", tmp, *args.live_args], cwd=record.ROOT,
                              capture_output=True, text=True, check=False)
    print(done.stdout, end="")
    print(done.stderr, end="", file=sys.stderr)
    rows = groups(done.stdout)
    if not rows:
        print(f"python -m benchmarks.live: no group in the output (exit {done.returncode})", file=sys.stderr)
        return 2
    bugs = [f"{r['client']}: {f['invariant']} ({f.get('status', 'unconfirmed')})"
            for r in rows for f in r["findings"]]  # type: ignore[attr-defined]
    finished = started.finish(rows, variant=" ".join(args.live_args), exit_code=done.returncode, pairs=len(rows),
                              bugs=bugs, broker="Kafka 4.4.0")
    record.save("live", finished)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
