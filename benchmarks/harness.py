"""Shared timing helpers for `make bench`: best-of-N wall or CPU time (fresh inputs) and peak memory of one call."""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Callable
from typing import Any


def best_time(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """Best wall-clock seconds over `repeat` calls (the first call warms caches), and the last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def fresh_cpu_time(fn: Callable[[Any], Any], problem: Any, repeat: int = 3) -> tuple[float, Any]:
    """Best CPU seconds (`time.process_time`: the machine is shared) of `fn(copy)` over `repeat` calls,
    each on a fresh copy of `problem` (`Problem.derived` caches per object, so a reused problem would hide
    the cost of valid ownership after the first call), and the last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        copy = problem.replace() if hasattr(problem, "replace") else problem
        gc.collect()
        t0 = time.process_time()
        result = fn(copy)
        best = min(best, time.process_time() - t0)
    return best, result


def peak_mib(fn: Callable[[], Any]) -> float:
    """Peak Python-heap MiB allocated during one call (numpy buffers included)."""
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def row(scenario: str, subject: str, seconds: float, *, peer: str | None = None, peer_seconds: float | None = None,
        goal: str = "", ok: bool | None = None, peak: float | None = None, note: str = "") -> dict[str, Any]:
    """One result line: the subject's time, the peer's time in the same run, and their ratio."""
    return {
        "scenario": scenario,
        "subject": subject,
        "ms": round(seconds * 1000, 2),
        "peer": peer,
        "peer_ms": None if peer_seconds is None else round(peer_seconds * 1000, 2),
        "speedup": None if peer_seconds is None or seconds == 0 else round(peer_seconds / seconds, 1),
        "peak_mib": None if peak is None else round(peak, 1),
        "goal": goal,
        "ok": ok,
        "note": note,
    }
