"""The one directory assigncheck keeps state in outside a report directory: `$XDG_CACHE_HOME/assigncheck`
(default `~/.cache/assigncheck`): compiled Java bridges, Kafka's jars, numba's machine code, hypothesis' files."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(*names: str) -> Path:
    """`$XDG_CACHE_HOME/assigncheck/<names...>` (not created here)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base, "assigncheck", *names)


def keep_state_in_cache() -> None:
    """Point the libraries that keep files of their own at the cache, unless the user pointed them elsewhere:
    numba writes its machine code beside its source by default (an installed package's `__pycache__`), and
    hypothesis its example database and Unicode tables in `./.hypothesis` (the user's working directory). Set
    in the environment before either is imported, so worker processes, fuzz jobs and Spark tasks inherit it."""
    os.environ.setdefault("NUMBA_CACHE_DIR", str(cache_dir("numba")))
    os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", str(cache_dir("hypothesis")))

__all__ = ["cache_dir", "keep_state_in_cache"]
