"""`assigncheck fuzz`: bad flags are one line and exit 2; a clean run prints its figures and exits 0,
for a decoder and for an assignor whose calls run compiled code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from assigncheck.ci.cli import main
from tests.paths import ROOT


def test_bad_targets_and_flags_exit_2(tmp_path, capsys):
    assert main(["fuzz", "--target", "no-such-assignor", "--seconds", "1", "--out", str(tmp_path)]) == 2
    assert "--target" in capsys.readouterr().err
    assert main(["fuzz", "--target", "codec:nope", "--seconds", "1", "--out", str(tmp_path)]) == 2
    assert main(["fuzz", "--target", "range", "--seconds", "0", "--out", str(tmp_path)]) == 2
    assert main(["fuzz", "--target", "range", "--jobs", "0", "--out", str(tmp_path)]) == 2
    assert not any(tmp_path.iterdir())  # nothing started


def _clean_run(target: str, out: Path) -> int:
    """Fuzz `target` for 3 s; the execs of a run that exits 0 with no finding."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "assigncheck.ci", "fuzz", "--target", target, "--seconds", "3",
                          "--out", str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    line = run.stdout.splitlines()[0]
    assert line.startswith(f"{target}: ") and "findings 0" in line, run.stdout + run.stderr
    return int(line.split(": ")[1].split(" execs")[0].replace(",", ""))


def test_a_clean_decoder_run_reports_execs_and_keeps_its_corpus(tmp_path):
    assert _clean_run("codec:subscription", tmp_path) > 0
    from assigncheck.findings.reproducers import slug

    assert any((tmp_path / "corpus" / slug("codec:subscription")).iterdir())  # a rerun resumes from these


def test_an_assignor_running_compiled_code_is_fuzzed(tmp_path):
    """numba compiles a function's bytecode, which atheris must not have instrumented: `sticky`'s flow kernels run
    in the fuzz job (a kernel defined in an instrumented module failed to compile, and the job ran nothing)."""
    assert _clean_run("sticky", tmp_path) > 0


def test_a_jobs_fuzzing_time_starts_when_it_has_loaded_its_target():
    """On a busy machine with a cold numba cache a job's imports took over a minute, and the watcher stopped it at
    `seconds + 60` before it had run one input: its time now starts at its READY line."""
    from assigncheck.fuzz.jobs import GRACE_S, START_UP_S, JobState, _deadline, _Jobs

    jobs = _Jobs(states=[JobState(), JobState()])
    assert _deadline(jobs, 100.0, 3.0) == 100.0 + START_UP_S + 3.0 + GRACE_S  # still loading
    jobs.states[0].ready_at = 170.0
    assert _deadline(jobs, 100.0, 3.0) == 100.0 + START_UP_S + 3.0 + GRACE_S  # one still loading
    jobs.states[1].ready_at = 190.0
    assert _deadline(jobs, 100.0, 3.0) == 190.0 + 3.0 + GRACE_S
