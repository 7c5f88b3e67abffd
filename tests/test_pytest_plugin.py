"""The pytest11 plugin on an example project: a correct assignor passes, a broken one fails with a reproducer."""

import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).parent / "example_project"


def test_plugin_checks_a_projects_assignor(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(PROJECT),
         "--basetemp", str(tmp_path), str(PROJECT / "check_example.py")],
        cwd=PROJECT, capture_output=True, text=True, timeout=600,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "2 passed, 1 failed" in out or "1 failed, 2 passed" in out, out
    assert "FAILED check_example.py::test_broken_assignor_is_caught" in out
    assert "loses-the-last-partition failed the quick gate" in out
    assert "H5" in out and "reproducer" in out and '"format": 1' in out
