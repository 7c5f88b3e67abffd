"""The cyclic garbage collector kept out of the way where it only costs time.

- Loaded code, in processes that run many `assign` calls. A process that has loaded the sticky assignors holds
  over 100,000 long-lived objects (numba's compiler among them); every full collection walks them all (14-18 ms
  on the 2-core machine) and leaves the CPU caches cold for the call that follows. A fuzz job, a campaign's
  Spark task and the benchmark harness therefore freeze what is alive once their code is loaded
  (`freeze_loaded`), and the gate's properties stage does for its run (`loaded_frozen`): later collections walk
  only what was made since.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


def freeze_loaded() -> None:
    """Collect, then move every object still alive to the collector's permanent generation (`gc.freeze`).
    Reference counting still frees frozen objects; only a cycle among them would never be collected, and what
    is alive when code has just been loaded (modules, classes, compiled functions) lives as long as the
    process."""
    gc.collect()
    gc.freeze()


@contextmanager
def loaded_frozen() -> Iterator[None]:
    """`freeze_loaded` for a block of a process that goes on after it (a gate stage run in-process): unfrozen
    after the block, so that what the caller drops later is collected as before."""
    freeze_loaded()
    try:
        yield
    finally:
        gc.unfreeze()

__all__ = ["freeze_loaded", "loaded_frozen"]
