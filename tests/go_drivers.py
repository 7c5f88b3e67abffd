"""The Go module's drivers of sarama's and kafka-go's balancers (`go/cmd/sarama-driver`, `go/cmd/kafka-go-driver`,
built by `make go-programs` to `.venv/bin/NAME`) and what each balancer is held to: the promises its library's
documentation makes (docs/TARGETS.md, *Go balancers*). A reproducer names a driver as
`cmd2:.venv/bin/NAME BALANCER`, relative to the clone."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from assigncheck.findings.replay import reproduces
from assigncheck.formats.documents import load_problem
from assigncheck.formats.reproducer import record_of
from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.promises import Promises
from assigncheck.spec.violations import Violation
from assigncheck.targets import registry
from tests.paths import ROOT

DRIVERS = {"sarama": ".venv/bin/sarama-driver", "kafka-go": ".venv/bin/kafka-go-driver"}
PROMISES = {
    "sarama": {
        # "follows the same logic as" Kafka's RangeAssignor (NewBalanceStrategyRange's doc comment)
        "range": "exact=range,balance=per-topic,claims=real",
        # "assigns partitions to members in alternating order"
        "roundrobin": "balance=perfect,claims=real",
        # a port of Kafka's StickyAssignor: "preserve earlier assignments while maintain a balanced partition
        # distribution", held as Kafka's own class is
        "sticky": "balance=local,fixpoint,claims=real",
        # Kafka's CooperativeStickyAssignor's name and protocol: alone, it makes the group cooperative
        "cooperative-sticky": "balance=local,fixpoint,claims=real,max_rounds=2,eager=false",
    },
    "kafka-go": {
        "range": "balance=per-topic",  # "groups consumers by partition": each topic in ranges
        "roundrobin": "balance=perfect",  # "divides partitions evenly among consumers"
        # "The primary objective is to spread partitions evenly across consumers"; the racks are best effort
        "rack-affinity": "balance=perfect",
    },
}


class DriverMissing(RuntimeError):
    """The drivers could not be built (no Go, or the build failed): the message is make's one line."""


def build() -> dict[str, Path]:
    """Build the Go programs if their sources changed (`make go-programs`) and return each driver's path."""
    done = subprocess.run(["make", "-s", "go-programs"], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        said = [line for line in (done.stdout + done.stderr).splitlines() if line and not line.startswith("make")]
        raise DriverMissing(said[0] if said else "make go-programs failed")
    return {family: ROOT / path for family, path in DRIVERS.items()}


def spec(family: str, balancer: str) -> str:
    """The `--target` spec of one balancer, as the findings record it (relative to the clone)."""
    return f"cmd2:{DRIVERS[family]} {balancer}"


def finding_note(path: Path, key: str) -> dict[str, Any]:
    """A kept finding's verdict fields (`finding.KEY`: verdict, root, where, why)."""
    note: dict[str, Any] = json.loads(path.read_text())["finding"][key]
    return note


def replay(path: Path, problem: Problem | None = None) -> tuple[list[Violation], Promises]:
    """The kept finding's violations of its own invariant on `problem` (its own by default), with its target's
    promises, as `assigncheck replay` checks it (run from the clone, where its relative driver path points)."""
    record = record_of(json.loads(path.read_text()))
    assert record is not None, path
    target = registry.load(record.target)
    try:
        _, matching, _ = reproduces(target, problem or load_problem(path), record.invariant, record.seed,
                                    record.budget_s or 10.0)
        return matching, target.promises
    finally:
        target.close()


def assign(path: Path, problem: Problem | None = None) -> Assignment:
    """The kept finding's target's answer to `problem` (its own by default)."""
    record = record_of(json.loads(path.read_text()))
    assert record is not None, path
    target = registry.load(record.target)
    try:
        return target.assign(problem or load_problem(path))
    finally:
        target.close()
