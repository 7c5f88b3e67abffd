"""franz-go's balancers (kgo's RangeBalancer, RoundRobinBalancer, StickyBalancer, CooperativeStickyBalancer,
unmodified; the version pinned in `go/go.mod`) through our Go driver (`go/cmd/franz-go-driver`): as a `cmd2:`
target, and as the benchmarks' in-run speed peer (`-bench`).

`make` builds the driver to one path in every clone, `.venv/bin/franz-go-driver` (`make franz-go`; `make test` and
`make bench` do it first), so a reproducer names it as `cmd2:.venv/bin/franz-go-driver BALANCER`, relative to the
clone: `assigncheck replay FILE` from the clone's top folder replays it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DRIVER = ".venv/bin/franz-go-driver"  # relative to ROOT, as the findings' target specs name it
BALANCERS = ("range", "roundrobin", "sticky", "cooperative-sticky")
# What kgo's doc comments promise (group_balancer.go): range and round-robin "equivalent to the Java" balancers
# (the spec's references), round-robin "a perfect balance" when all members subscribe alike; sticky "optimal
# balancing" with "minimal partition movement" ("optimal and extra sticky"; its own brute-force test holds it to
# the lexicographically least load vector, which is the least Σ count², then the most partitions kept);
# cooperative-sticky the same, speaking only the cooperative protocol and ending "in only two join rounds".
# Like Kafka's own classes, each assumes claims a previous assignment made (claims=real).
PROMISES = {
    "range": "exact=range,balance=per-topic,claims=real",
    "roundrobin": "exact=roundrobin,balance=perfect,claims=real",
    "sticky": "balance=optimal,stickiness=max_retained,fixpoint,claims=real",
    "cooperative-sticky": "balance=optimal,stickiness=max_retained,fixpoint,claims=real,max_rounds=2,eager=false",
}


class DriverMissing(RuntimeError):
    """The driver could not be built (no Go, or the build failed): the message is make's one line."""


def build() -> Path:
    """Build the driver if its sources changed (`make franz-go`: the one build rule) and return its path."""
    done = subprocess.run(["make", "-s", "franz-go"], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        said = [line for line in (done.stdout + done.stderr).splitlines() if line and not line.startswith("make")]
        raise DriverMissing(said[0] if said else "make franz-go failed")
    return ROOT / DRIVER


def spec(balancer: str) -> str:
    """The `--target` spec of one balancer, as the findings record it (relative to the clone)."""
    return f"cmd2:{DRIVER} {balancer}"


def bench(balancer: str, files: list[Path], *, warmup: int, calls: int) -> list[dict[str, Any]]:
    """`franz-go-driver -bench`: per file, CPU and wall ms of each timed Balance call (after `warmup` leader
    steps, each call on fresh member metadata, after a full collection) and the last call's assignment."""
    done = subprocess.run([str(build()), "-bench", "-warmup", str(warmup), "-calls", str(calls), balancer,
                           *map(str, files)], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]
