"""`assigncheck fuzz`: bad flags are one line and exit 2; a clean run prints its figures and exits 0."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from assigncheck.ci.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_bad_targets_and_flags_exit_2(tmp_path, capsys):
    assert main(["fuzz", "--target", "no-such-assignor", "--seconds", "1", "--out", str(tmp_path)]) == 2
    assert "--target" in capsys.readouterr().err
    assert main(["fuzz", "--target", "codec:nope", "--seconds", "1", "--out", str(tmp_path)]) == 2
    assert main(["fuzz", "--target", "range", "--seconds", "0", "--out", str(tmp_path)]) == 2
    assert main(["fuzz", "--target", "range", "--jobs", "0", "--out", str(tmp_path)]) == 2
    assert not any(tmp_path.iterdir())  # nothing started


def test_a_clean_decoder_run_reports_execs_and_keeps_its_corpus(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "assigncheck.ci", "fuzz", "--target", "codec:subscription",
                          "--seconds", "3", "--out", str(tmp_path)], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    line = run.stdout.splitlines()[0]
    assert line.startswith("codec:subscription: ") and "findings 0" in line
    execs = int(line.split(": ")[1].split(" execs")[0].replace(",", ""))
    assert execs > 0
    from assigncheck.fuzz.triage import slug

    assert any((tmp_path / "corpus" / slug("codec:subscription")).iterdir())  # a rerun resumes from these
