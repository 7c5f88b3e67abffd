"""Shared timing helpers for `make bench`: best-of-N CPU time (fresh inputs) and peak memory of one call."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from typing import Any

from assigncheck.run.gc import freeze_loaded
from assigncheck.spec.model import Problem, StreamsProblem


def fresh_call(fn: Callable[[], Any]) -> Callable[[], Any]:
    """`fn` with each problem among a `functools.partial`'s arguments replaced by a new copy: a problem caches
    derived data on itself (valid ownership, row layouts), so timing repeated calls on one object would measure
    the warm path that a real first call never takes."""
    if not isinstance(fn, partial):
        return fn

    def fresh(value: Any) -> Any:
        return replace(value) if isinstance(value, Problem | StreamsProblem) else value

    return partial(fn.func, *map(fresh, fn.args), **{k: fresh(v) for k, v in fn.keywords.items()})


def best_time(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """Best CPU seconds (`time.process_time`: the machine is shared) over `repeat` calls, and the last result.
    Pass a `functools.partial` over the problem: each call then gets a fresh copy of it, made outside the
    timed region (see `fresh_call`). What is loaded is frozen first, as in the gate's stages (`run.gc`), so
    the collection before each call walks only what the benchmarks made."""
    freeze_loaded()
    best, result = float("inf"), None
    for _ in range(repeat):
        call = fresh_call(fn)
        result = None  # the last call's result is freed here, not when the next timed call's replaces it
        gc.collect()
        t0 = time.process_time()
        result = call()
        best = min(best, time.process_time() - t0)
    return best, result


@contextmanager
def busy_cores(factor: int = 2, most_s: float = 1800) -> Iterator[None]:
    """Every core kept busy by other processes (load >= factor x cores), as on a shared CI runner. Each spinner
    also stops by itself after `most_s`, should this process die before it can stop them."""
    spin = f"import time\nend = time.monotonic() + {most_s}\nwhile time.monotonic() < end: pass"
    spinners = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(factor * (os.cpu_count() or 1))]
    try:
        yield
    finally:
        for p in spinners:
            p.kill()
            p.wait()


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
        goal: str = "", ok: bool | None = None, peak: float | None = None, note: str = "", **figures: Any
        ) -> dict[str, Any]:
    """One result line: the subject's time, the peer's time in the same run, and their ratio; `figures` are the
    benchmark's own (the ones its docs tables show, by name), beside the common columns."""
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
        **figures,
    }
