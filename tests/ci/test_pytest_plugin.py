"""The pytest11 plugin on an example project: a correct assignor passes, a broken one fails with a reproducer that
`assigncheck replay FILE` replays, and stages that need the target in other processes refuse an object they
cannot load there."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import TESTS

PROJECT = TESTS / "example_project"


@pytest.mark.slow  # a project's suite through the plugin (40 s); test_java_target runs the plugin by default
def test_plugin_checks_a_projects_assignor(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(PROJECT),
         "--basetemp", str(tmp_path), str(PROJECT / "check_example.py")],
        cwd=PROJECT, capture_output=True, text=True, timeout=600,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "3 failed, 2 passed" in out or "2 passed, 3 failed" in out, out
    assert "FAILED check_example.py::test_broken_assignor_is_caught" in out
    assert "loses-the-last-partition failed the quick gate" in out
    assert "H5" in out and "reproducer" in out and '"format": 1' in out
    # an object made in a test: refused in one line before any stage runs
    assert "the fuzz stage runs the target in other processes" in out
    # a module-level one: its reproducer names it my_assignor:BROKEN and replays in a fresh process as told
    told = re.findall(r"reproducer (\S+) \(replay: PYTHONPATH=(\S+) assigncheck replay \S+\)", out)
    assert told, out
    file, root = told[0]
    assert Path(root) == PROJECT.resolve()
    replay = subprocess.run([str(Path(sys.executable).with_name("assigncheck")), "replay", file], cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": root}, capture_output=True, text=True, timeout=300)
    assert replay.returncode == 1, replay.stdout + replay.stderr  # 1: it reproduces
    # one made in a test: its file says how to replay it
    noted = re.findall(r"reproducer (\S+) \(replay: assigncheck replay \S+ --target MODULE:OBJECT", out)
    assert noted and "--target MODULE:OBJECT" in Path(noted[0]).read_text()
