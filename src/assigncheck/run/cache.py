"""Libraries that keep files of their own, pointed at assigncheck's cache directory (`formats.cache`)."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

from assigncheck.formats.cache import cache_dir


def keep_state_in_cache() -> None:
    """Point the libraries that keep files of their own at the cache, unless the user pointed them elsewhere:
    numba writes its machine code beside its source by default (an installed package's `__pycache__`), and
    hypothesis its example database and Unicode tables in `./.hypothesis` (the user's working directory). Set in
    the environment before either is imported, so worker processes, fuzz jobs and Spark tasks inherit it.
    (matplotlib's: `matplotlib_dir`, when the plots are made.)"""
    os.environ.setdefault("NUMBA_CACHE_DIR", str(cache_dir("numba")))
    os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", str(cache_dir("hypothesis")))


def matplotlib_dir() -> Path:
    """Where matplotlib keeps its font list, set before it is imported: `MPLCONFIGDIR` when the user set it, else
    the cache (matplotlib's own default is `$XDG_CACHE_HOME/matplotlib`, outside it). Where the cache cannot be
    written (a read-only cache), a temporary directory removed at exit, as matplotlib would make itself, but
    without its warning lines on every run."""
    given = os.environ.get("MPLCONFIGDIR")
    if given:
        return Path(given)
    path = cache_dir("matplotlib")
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".probe-")  # access() lies for root on a read-only mount
        os.close(fd)
        os.unlink(probe)
    except OSError:
        path = Path(tempfile.mkdtemp(prefix="assigncheck-matplotlib-"))
        atexit.register(shutil.rmtree, path, ignore_errors=True)
    os.environ["MPLCONFIGDIR"] = str(path)
    return path

__all__ = ["cache_dir", "keep_state_in_cache", "matplotlib_dir"]
