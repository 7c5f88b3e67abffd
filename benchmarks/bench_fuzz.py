"""Fuzz-target throughput without atheris: the cost of one input (decode, every assignor run, the spec
check) on the small problems the decoder makes from mutated regression vectors, per CPU second. This is
the ceiling of `assigncheck fuzz`'s rate (atheris' instrumentation of the assignor comes on top); the
goal is 3,000 inputs/s. For a target in another process (`benchmarks/outside/roundrobin.py` and `.js`
over `cmd:` and `cmd2:`), the harness's CPU per input, and its program's (in the note)."""

from __future__ import annotations

import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import row

TARGETS = ["range", "roundrobin", "sticky-constrained", "sticky-constrained-4phase", "sticky", "cooperative-sticky",
           "lag"]
ROOT = Path(__file__).resolve().parent.parent
OUTSIDE = ROOT / "benchmarks" / "outside"


def outside_targets() -> list[str]:
    programs = [f"{sys.executable} {OUTSIDE / 'roundrobin.py'}"]
    if shutil.which("node"):
        programs.append(f"{shutil.which('node')} {OUTSIDE / 'roundrobin.js'}")
    return [f"{prefix}:{program}" for program in programs for prefix in ("cmd", "cmd2")]


def small_inputs(count: int, seed: int = 1) -> list[bytes]:
    """Mutations of the encoded regression vectors (and random bytes), narrow layout only."""
    from assigncheck.fuzz.decode import WIDE_BITS
    from assigncheck.fuzz.runner import VECTORS, _mutate, build_seeds

    with tempfile.TemporaryDirectory() as d:
        build_seeds(VECTORS, Path(d), "consumer")
        pool = [p.read_bytes() for p in sorted(Path(d).iterdir())]
    rng = random.Random(seed)
    out: list[bytes] = []
    while len(out) < count:
        base = rng.choice(pool) if rng.random() < 0.7 else bytes(rng.randrange(256) for _ in range(rng.randint(1, 48)))
        data = _mutate(base, rng, 256)
        if not (data and data[0] & WIDE_BITS == WIDE_BITS):
            out.append(data)
    return out


def run(quick: bool) -> list[dict]:
    from assigncheck.fuzz.harness import load
    from assigncheck.run.gc import freeze_loaded

    inputs = small_inputs(300 if quick else 2000)
    rows = []
    for name in TARGETS:
        target = load(name, budget_s=2.0, seed=1)
        freeze_loaded()  # as the fuzz job does once its target is loaded
        start = time.process_time()
        for data in inputs:
            target.run(data)
        cpu = time.process_time() - start
        rate = len(inputs) / cpu
        rows.append(row("one fuzz input, small problems (CPU)", name, cpu / len(inputs), goal=">= 3,000 inputs/s",
                        ok=rate >= 3000, note=f"{rate:,.0f} inputs per CPU second over {len(inputs)}, "
                                               "uninstrumented (under atheris about half)",
                        per_cpu_second=round(rate), inputs=len(inputs)))
    for spec in outside_targets():
        target = load(spec, budget_s=2.0, seed=1)
        target.run(inputs[0])  # the program starts
        program = target.assignor
        start, child = time.process_time(), program.cpu_seconds()
        for data in inputs[1:]:
            target.run(data)
        cpu, child = time.process_time() - start, program.cpu_seconds() - child
        program.close()
        n = len(inputs) - 1
        rows.append(row("one fuzz input, small problems (harness CPU)", spec.replace(f"{OUTSIDE}/", ""), cpu / n,
                        note=f"its program: {1000 * child / n:.2f} ms of CPU per input",
                        harness_ms=round(1000 * cpu / n, 3), program_ms=round(1000 * child / n, 3), inputs=n))
    return rows
