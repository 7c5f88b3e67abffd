"""Time budgets in the machine's own units: a fixed workload timed here, against its time on the reference machine.

H7's CPU budget per call and the scale stage's time budget are set in *reference seconds*: CPU seconds on the
reference machine (the 2-core AMD EPYC virtual machine the project is developed on). A run measures how long
this machine takes for the same fixed work (`workload`: pure Python, shaped like an assignor's work: string ids,
dicts, sorting, building lists; no project code, whose speed changes whenever the project gets faster), as CPU
time of the calling thread, the minimum of `REPEATS` runs (waiting for a core is not CPU time, and the minimum
is the run least disturbed by other work); `factor = measured / REFERENCE_S`. A budget of B reference seconds is
then B x factor seconds here: a machine twice as slow gets twice the budget, so a verdict does not depend on the runner.
`max_time` promises are not scaled: they are the user's own service level, in seconds.

`ASSIGNCHECK_CPU_FACTOR` fixes the factor instead of measuring it (a positive number): for a runner whose
calibration is not to be trusted, and for the gate's own replays of its findings in fresh processes, which
judge with the factor the run judged with.
"""

from __future__ import annotations

import gc
import os
import time
from dataclasses import dataclass
from functools import cache
from typing import Any

from assigncheck.spec.errors import InputError

ENV = "ASSIGNCHECK_CPU_FACTOR"
# `measure()` on the reference machine: the median of 27 processes' results, at load 1.5-1.7 (they ranged from
# 0.096 to 0.155 s; a busy machine runs it slower, as it runs an assignor slower)
REFERENCE_S = 0.105
REPEATS = 5
MEMBERS, TOPICS, ROUNDS = 1500, 60, 5  # the workload's size: about 0.1 s of CPU on the reference machine
FACTOR_RANGE = (0.01, 100.0)  # what ASSIGNCHECK_CPU_FACTOR may say


def workload() -> int:
    """A fixed amount of assignor-shaped work: `ROUNDS` rounds of dealing each topic's partitions to the
    least-loaded of its subscribers, over string member ids, dicts and sorted lists. Deterministic (nothing
    depends on the string hash seed's iteration order); returns a checksum of what it built."""
    members = [f"consumer-{i % 7}-{i:05d}-{(i * 7919) % 10007:05d}" for i in range(MEMBERS)]
    topics = {f"topic-{(t * 37) % TOPICS:03d}": 4 + (t * 5) % 13 for t in range(TOPICS)}
    names = sorted(topics)
    subscribed = {m: {names[(i + k) % TOPICS] for k in range(0, TOPICS, 1 + i % 4)} for i, m in enumerate(members)}
    checksum = 0
    for r in range(ROUNDS):
        load = dict.fromkeys(members, 0)
        owned: dict[str, list[tuple[str, int]]] = {m: [] for m in members}
        for topic in names:
            subscribers = sorted((m for m in members if topic in subscribed[m]), key=lambda m: (load[m], m))
            for index in range(topics[topic] * (r + 1)):
                member = subscribers[index % len(subscribers)]
                owned[member].append((topic, index))
                load[member] += 1
        ordered = sorted(members, key=lambda m: (-len(owned[m]), m))
        checksum += sum(len(owned[m]) * (k + 1) for k, m in enumerate(ordered)) % 1_000_003
        checksum += len("".join(f"{t}:{i}" for t, i in owned[ordered[0]]))
    return checksum


def measure(repeats: int = REPEATS) -> float:
    """The workload's CPU seconds here: the minimum of `repeats` runs, each on this thread's CPU clock, with the
    cyclic collector off (the workload makes no cycles; a collection of the caller's objects is not its work)."""
    best = float("inf")
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeats):
            start = time.thread_time()
            workload()
            best = min(best, time.thread_time() - start)
    finally:
        if enabled:
            gc.enable()
    return best


@dataclass(frozen=True)
class Calibration:
    """How budgets in reference seconds become seconds on this machine."""

    factor: float  # this machine's CPU seconds per reference second
    measured_s: float | None = None  # the workload's CPU seconds here (None: the factor was fixed by ENV)
    reference_s: float = REFERENCE_S

    def scaled(self, reference_seconds: float) -> float:
        """`reference_seconds` of the reference machine, in this machine's seconds."""
        return reference_seconds * self.factor

    @property
    def how(self) -> str:
        if self.measured_s is None:
            return f"fixed by {ENV}"
        return (f"the calibration workload took {self.measured_s * 1000:.1f} ms of CPU here, "
                f"{self.reference_s * 1000:.1f} ms on the reference machine")

    def text(self) -> str:
        """One line for reports: the factor and where it comes from."""
        return f"CPU factor {self.factor:.3g} ({self.how})"

    def to_json(self) -> dict[str, Any]:
        return {"factor": self.factor, "measured_s": None if self.measured_s is None
                else round(self.measured_s, 5), "reference_s": self.reference_s, "fixed": self.measured_s is None}


def fixed_factor() -> float | None:
    """The factor ENV fixes, None when it is not set; an InputError naming it when it is not a usable number."""
    text = os.environ.get(ENV, "").strip()
    if not text:
        return None
    try:
        factor = float(text)
    except ValueError:
        factor = float("nan")
    lo, hi = FACTOR_RANGE
    if not lo <= factor <= hi:  # also refuses nan and inf
        raise InputError(ENV, f"must be a number from {lo:g} to {hi:g} (this machine's CPU seconds per "
                              f"reference second), got {text[:40]!r}")
    return factor


@cache
def _measured() -> float:
    return measure()


def current() -> Calibration:
    """This process's calibration: the factor ENV fixes, else measured (once per process: about half a second)."""
    factor = fixed_factor()
    if factor is not None:
        return Calibration(factor)
    measured = _measured()
    return Calibration(measured / REFERENCE_S, measured)


def rescaled(budget_s: float, recorded_factor: float | None) -> float:
    """A budget recorded in a file as `budget_s` on a machine of `recorded_factor`, in this machine's seconds:
    the same reference seconds, scaled by this machine's factor. A budget recorded with no factor is absolute
    (a user's `--budget`), and stays as it is."""
    if recorded_factor is None:
        return budget_s
    return current().scaled(budget_s / recorded_factor)


__all__ = ["ENV", "REFERENCE_S", "REPEATS", "Calibration", "current", "fixed_factor", "measure", "rescaled",
           "workload"]
