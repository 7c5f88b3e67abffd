"""Loaded code kept out of the cyclic garbage collector's way in processes that run many `assign` calls.

A process that has loaded the sticky assignors holds over 100,000 long-lived objects (numba's compiler among
them). Every full collection walks them all (14-18 ms on the 2-core machine) and leaves the CPU caches cold
for the call that follows. The gate's properties stage, a fuzz job, a campaign's Spark task and the benchmark
harness therefore freeze what is alive once their code is loaded: later collections walk only what was
made since.
"""

from __future__ import annotations

import gc


def freeze_loaded() -> None:
    """Collect, then move every object still alive to the collector's permanent generation (`gc.freeze`).
    Reference counting still frees frozen objects; only a cycle among them would never be collected, and what
    is alive when code has just been loaded (modules, classes, compiled functions) lives as long as the
    process."""
    gc.collect()
    gc.freeze()
