"""An unreadable entry of numba's cache (garbage bytes where a kernel's index or data was) is discarded with one line
saying so, the kernel compiled again and its entry written afresh: the built-in `sticky` keeps working, instead of
failing to import with numba's unpickling error until someone deletes the cache by hand."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from assigncheck.formats.cache import cache_dir
from tests.paths import ROOT

PROBLEM = {"format": 1, "topics": {"t": 3}, "members": [{"id": "a", "subscription": ["t"]},
                                                       {"id": "b", "subscription": ["t"]}]}


def _assign(cache: Path, problem: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    return subprocess.run([sys.executable, "-m", "assigncheck.ci", "assign", "--assignor", "sticky", str(problem)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**env, "XDG_CACHE_HOME": str(cache)})


def test_garbage_in_the_numba_cache_is_discarded_and_compiled_again(tmp_path):
    problem = tmp_path / "p.json"
    problem.write_text(json.dumps(PROBLEM))
    cache = tmp_path / "cache"
    if cache_dir("numba").is_dir():  # this machine's entries, when it has some: the first run then only loads
        shutil.copytree(cache_dir("numba"), cache / "assigncheck" / "numba")
    first = _assign(cache, problem)
    assert first.returncode == 0, first.stderr
    entries = sorted((cache / "assigncheck" / "numba").glob("*/already_settled.*"))
    assert entries, "numba wrote no cache entry for the already-settled kernel"
    for path in entries:
        path.write_bytes(os.urandom(100))
    healed = _assign(cache, problem)
    assert healed.returncode == 0, healed.stderr
    assert json.loads(healed.stdout) == json.loads(first.stdout)
    assert "discarded an unreadable numba cache entry" in healed.stderr and "already_settled" in healed.stderr
    again = _assign(cache, problem)  # the entry written afresh: loaded, nothing discarded nor compiled
    assert again.returncode == 0 and "numba" not in again.stderr, again.stderr
