"""A fuzz test of the CLI itself: hypothesis drives `benchmarks.malformed.case` (argument vectors
and file contents: valid documents and JSON-ish mutations of them, bad flag values, special paths) through
`assigncheck.ci.cli.main` in-process, plus a few runs in real processes. Every run must exit 0, 1 or 2,
print no traceback, say exit 2 in one line (argparse's usage errors excepted), finish within a time
limit, and write nothing outside the sandbox's `out/` directory.
"""

from __future__ import annotations

import contextlib
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.malformed import Case, case, outcome_problems, prepare, run_in_process
from tests.paths import ROOT

CLI = str(Path(sys.executable).with_name("assigncheck"))
PER_CALL_S = 30  # no case needs more than a few seconds; a hang is a failure, not a stuck suite


def _snapshot(sandbox: Path) -> dict[str, tuple[int, int]]:
    """Every path under the sandbox except `out/` (where writes are allowed), with size and mtime."""
    out = {}
    for p in sandbox.rglob("*"):
        rel = p.relative_to(sandbox)
        if rel.parts[0] != "out":
            st_ = p.lstat()
            out[str(rel)] = (st_.st_size, st_.st_mtime_ns)
    return out


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli-fuzz")
    prepare(root)
    return root


@settings(max_examples=300, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(rng=st.randoms(use_true_random=True))  # a real Random: hypothesis picks its seed, not each draw
def test_the_cli_survives_malformed_arguments_and_files(rng, sandbox, monkeypatch):
    monkeypatch.chdir(sandbox)
    c = case(rng, sandbox)
    before = _snapshot(sandbox)  # after `case` wrote the inputs: the run itself may write only to out/
    rc, out, err = run_in_process(c, PER_CALL_S)
    assert not outcome_problems(rc, out, err), (c.argv, rc, err[-2000:])
    after = _snapshot(sandbox)
    assert after == before, (c.argv, set(after.items()) ^ set(before.items()))
    assert Path("/dev/full").is_char_device()


def test_real_processes_exit_cleanly_on_malformed_input(tmp_path):
    """The same checks in real processes: a bounded read of /dev/zero on stdin, a FIFO, and seeded cases; with an
    empty numba cache, as on the first run after an install, where compiling must not add a line to an error."""
    prepare(tmp_path)
    cache = tmp_path / "out" / "numba-cache"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(cache)}
    rng = random.Random(16)
    bad_version = tmp_path / "in" / "bad-version.json"
    bad_version.write_text('{"format": {"version": {}}}')
    cases = [Case(["assign", "--assignor", "range", "-"]), Case(["check", str(tmp_path / "in" / "fifo"), "-"]),
             Case(["assign", "--assignor", "sticky-constrained-4phase", str(bad_version)]),
             *(case(rng, tmp_path) for _ in range(6))]
    for c in cases:
        with open("/dev/zero", "rb") if c.argv[-1] == "-" and not c.stdin else contextlib.nullcontext() as zero:
            done = subprocess.run([CLI, *c.argv], stdin=zero, input=None if zero else c.stdin, capture_output=True,
                                  timeout=120, cwd=tmp_path, env=env)
        err = done.stderr.decode(errors="replace")
        assert not outcome_problems(done.returncode, done.stdout.decode(errors="replace"), err), (c.argv, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "out"]
