"""The one directory assigncheck keeps state in outside a report directory: `$XDG_CACHE_HOME/assigncheck` (default
`~/.cache/assigncheck`): compiled Java bridges, Kafka's jars, numba's machine code, hypothesis' and matplotlib's
files, and the reproducers this machine wrote (`formats.trust`)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(*names: str) -> Path:
    """`$XDG_CACHE_HOME/assigncheck/<names...>` (not created here)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base, "assigncheck", *names)


def cache_error(what: str, path: Path, clear: str | None = None) -> str:
    """The end of an error that comes from the cache: which entry, and how to clear it (by default the entry)."""
    return f"{what} in the cache {path}: remove it ({clear or f'rm -rf {path}'}) and run again"

__all__ = ["cache_dir", "cache_error"]
