"""numba's on-disk cache of the compiled kernels (`NUMBA_CACHE_DIR`, under assigncheck's cache: `run.cache`), healed:
an entry that cannot be read back (a truncated or garbage index or data file: numba raises its unpickling error
from the import of every module with a kernel, and a built-in assignor would never load again) is discarded, with
one line saying so, and the kernel compiled again and saved afresh. A kernel whose cache cannot be written either
is compiled in memory, as where no cache directory is writable."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any


def healing(dispatcher: Any) -> Any:
    """`dispatcher` (numba's, with `cache=True`), its cache's loads and saves made to discard an unreadable entry
    instead of failing; unchanged when it has no cache on disk."""
    cache: Any = getattr(dispatcher, "_cache", None)
    files = getattr(cache, "_cache_file", None)
    if cache is None or files is None or not hasattr(files, "_index_path"):
        return dispatcher
    load, save = cache.load_overload, cache.save_overload

    def load_or_discard(sig: Any, target_context: Any) -> Any:
        try:
            return load(sig, target_context)
        except Exception as e:  # noqa: BLE001 - whatever unpickling garbage raises: the entry is unusable
            _discard(files, e)
            return None  # a cache miss: numba compiles, then saves a fresh entry

    def save_or_skip(sig: Any, data: Any) -> None:
        try:
            save(sig, data)
        except Exception as e:  # noqa: BLE001 - an entry that cannot be discarded nor written: kept in memory
            _discard(files, e)

    cache.load_overload, cache.save_overload = load_or_discard, save_or_skip
    return dispatcher


def entry_files(files: Any) -> list[Path]:
    """The index file of a kernel's cache entry and its data files."""
    index = Path(files._index_path)
    base = index.name.removesuffix(".nbi")
    return [index, *sorted(index.parent.glob(f"{base}.*.nbc"))]


def _discard(files: Any, error: Exception) -> None:
    paths = entry_files(files)
    removed = True
    for path in paths:
        try:
            path.unlink(missing_ok=True)
        except OSError:
            removed = False
    what = f"{type(error).__name__}: {error}"[:200]
    if removed:
        print(f"assigncheck: discarded an unreadable numba cache entry {paths[0]} ({what}); compiling it again",
              file=sys.stderr, flush=True)
    else:
        print(f"assigncheck: the numba cache entry {paths[0]} is unreadable ({what}) and cannot be removed: compiled "
              f"in memory; remove it ({'rm -f ' + ' '.join(map(str, paths))}) or set NUMBA_CACHE_DIR",
              file=sys.stderr, flush=True)


__all__ = ["entry_files", "healing"]
