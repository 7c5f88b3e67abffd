"""Targets that are not assignors, or cannot run at all, are usage errors (exit 2, one line) in every command
that takes a target; none of them leaves a process behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from assigncheck.ci.cli import main
from assigncheck.formats.documents import save_problem
from assigncheck.spec.model import Member, Problem
from tests.paths import PACKAGE, ROOT

MISBEHAVING = ROOT / "tests" / "fixtures" / "misbehaving_target.py"
REPRODUCER = ROOT / "examples" / "library-findings" / "kafka-python-sticky-order-dependent.json"
NOT_ASSIGNORS = ["cmd:false", "cmd:true", "cmd:cat", "cmd:yes", "cmd:/nonexistent/assignor", "os:getcwd",
                 "builtins:print"]


@pytest.fixture
def problem_file(tmp_path):
    return str(save_problem(Problem({"t": 2}, (Member("a", {"t"}), Member("b", {"t"}))), tmp_path / "p.json"))


def _one_line_exit_2(capsys, argv):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, (argv, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("target", NOT_ASSIGNORS)
def test_assign_with_a_target_that_is_not_an_assignor_is_one_line(target, problem_file, capsys):
    _one_line_exit_2(capsys, ["assign", "--target", target, problem_file])


@pytest.mark.parametrize("target", ["cmd:false", "cmd:yes", "cmd:/nonexistent/assignor", "builtins:print"])
def test_the_gate_refuses_such_a_target_before_any_stage(target, tmp_path, capsys):
    err = _one_line_exit_2(capsys, ["gate", "--target", target, "--stages", "properties", "--report-dir",
                                    str(tmp_path / "r")])
    assert "--target" in err
    assert not list((tmp_path / "r").glob("*.json"))


def test_replay_against_a_target_that_cannot_start_is_not_fixed(tmp_path, capsys):
    reproducer = ROOT / "examples" / "library-findings" / "kafka-python-sticky-order-dependent.json"
    _one_line_exit_2(capsys, ["replay", str(reproducer), "--target", "cmd:/nonexistent"])
    _one_line_exit_2(capsys, ["replay", str(reproducer), "--target", "cmd:false"])


def test_campaign_and_exhaustive_proofs_refuse_it_too(tmp_path, capsys):
    _one_line_exit_2(capsys, ["campaign", "diff", "--target", "cmd:false", "--instances", "10", "--out",
                              str(tmp_path / "c")])
    _one_line_exit_2(capsys, ["prove", "--exhaustive", "cmd:true", "--members", "1", "--partitions", "1",
                              "--out", str(tmp_path / "p")])
    _one_line_exit_2(capsys, ["fuzz", "--target", "cmd:cat", "--seconds", "1", "--out", str(tmp_path / "f")])


def test_a_hanging_target_costs_the_properties_stage_its_circuit_breaker_not_minutes(tmp_path, monkeypatch):
    from assigncheck.ci.pipeline import Plan, run_gate
    from assigncheck.run import calls as check
    from assigncheck.targets.registry import load

    monkeypatch.setattr(check, "HANG_MIN_S", 1.0)  # the hang limit: 1 s here, max(30 s, 10 x budget) normally
    monkeypatch.setattr(check, "HANG_FACTOR", 0.5)
    hanging = load(f"cmd:{sys.executable} {ROOT / 'tests' / 'fixtures' / 'misbehaving_target.py'} hang")
    result = run_gate([hanging], Plan.of("quick", tmp_path / "r", ["properties"]))
    (stage,) = result.stages
    assert any("circuit breaker" in n for n in stage.notes), stage.notes
    assert stage.work.done == 2  # two hangs in a row, then nothing more is sent
    assert {f.invariant for f in stage.findings} == {"H7"}, stage.findings
    hanging.close()


def test_no_target_process_outlives_the_command(tmp_path, problem_file):
    marker = f"assigncheck-hostile-{os.getpid()}"
    script = tmp_path / "t.sh"  # a target that starts a grandchild, then leaves without answering
    script.write_text(f"#!/bin/sh\n{sys.executable} -c 'import time; time.sleep(300)' {marker} >/dev/null &\n"
                      "exit 0\n")
    script.chmod(0o755)
    run = subprocess.run([sys.executable, "-m", "assigncheck.ci", "assign", "--target", f"cmd:{script}",
                          problem_file], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
    assert left == [], left


@pytest.mark.slow  # it waits out the 30 s hang limit
def test_the_start_up_probe_holds_a_half_answer_to_the_documented_hang_limit(tmp_path, capsys):
    from assigncheck.run.calls import HANG_MIN_S

    err = _one_line_exit_2(capsys, ["gate", "--target", f"cmd:{sys.executable} {MISBEHAVING} half", "--stages",
                                    "properties", "--report-dir", str(tmp_path / "r")])
    assert f"no answer within {HANG_MIN_S:g} s" in err, err


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


@pytest.mark.parametrize("verb", ["assign", "replay", "gate", "fuzz"])
def test_nothing_a_target_starts_outlives_the_command(verb, tmp_path, problem_file):
    pids = tmp_path / "pids"
    target = f"cmd:{sys.executable} {MISBEHAVING} escape {pids}"
    argv = {"assign": ["assign", "--target", target, problem_file],
            "replay": ["replay", str(REPRODUCER), "--target", target],
            "gate": ["gate", "--target", target, "--stages", "scale", "--report-dir", str(tmp_path / "r")],
            "fuzz": ["fuzz", "--target", target, "--seconds", "3", "--out", str(tmp_path / "f")]}[verb]
    run = subprocess.run([sys.executable, "-m", "assigncheck.ci", *argv], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600)
    assert "Traceback" not in run.stderr, run.stderr
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) >= 2  # a child in the target's process group and a daemon in a session of its own
    assert [p for p in started if _alive(p)] == []


@pytest.mark.slow  # a properties stage and its replays over 1 MiB answers: half a minute
def test_a_huge_member_id_from_a_target_is_cut_in_every_report(tmp_path, capsys):
    from assigncheck.formats.bounded import MAX_CHARS

    size = 1 << 20  # a 1 MiB member id in every answer
    code = main(["gate", "--target", f"cmd:{sys.executable} {MISBEHAVING} long-name {size}", "--stages",
                 "properties", "--report-dir", str(tmp_path / "r")])
    out = capsys.readouterr().out
    assert code == 1  # an answer naming a member that is not in the group: H1, confirmed
    assert "x" * MAX_CHARS not in out and "characters, cut]" in out
    reports = [tmp_path / "r" / name for name in ("report.json", "junit.xml", "summary.md", "report.html")]
    for path in [*reports, *(tmp_path / "r" / "reproducers").glob("*.json")]:
        text = path.read_text()
        assert len(text) < size / 4, (path.name, len(text))
        assert "x" * MAX_CHARS not in text, path.name
    assert all("characters, cut]" in p.read_text() for p in reports)  # and each says so
    assert f"{size:,} characters, cut]" in reports[0].read_text()  # the finding's member id


def test_sigterm_mid_fuzz_stops_the_gate_like_ctrl_c(tmp_path):
    """What a CI runner sends on cancel or timeout: exit 143, the previous reports as they were, no work
    directory, no fuzz job and nothing its target started left running."""
    import signal
    import time

    reports, pids = tmp_path / "r", tmp_path / "pids"
    reports.mkdir()
    (reports / "report.json").write_text('{"previous": true}\n')
    gate = subprocess.Popen([sys.executable, "-m", "assigncheck.ci", "gate", "--target",
                             f"cmd:{sys.executable} {MISBEHAVING} escape {pids}", "--stages", "fuzz",
                             "--report-dir", str(reports)], cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        while gate.poll() is None and not list(reports.glob(".gate-run-*/fuzz/corpus/*/*")):
            time.sleep(0.2)  # until the fuzz jobs write their corpus
        assert gate.poll() is None, gate.stderr.read()  # type: ignore[union-attr]
        jobs = subprocess.run(["pgrep", "-f", f"assigncheck.fuzz.runner.*{reports}"], capture_output=True,
                              text=True).stdout.split()
        assert jobs
        gate.send_signal(signal.SIGTERM)
        assert gate.wait(timeout=120) == 143, gate.stderr.read()  # type: ignore[union-attr]
    finally:
        gate.kill()
    err = gate.stderr.read()  # type: ignore[union-attr]
    assert err.strip().splitlines()[-1] == "assigncheck: terminated" and "Traceback" not in err, err
    assert sorted(p.name for p in reports.iterdir()) == ["report.json"]
    assert (reports / "report.json").read_text() == '{"previous": true}\n'
    started = [int(p) for p in pids.read_text().split()]
    assert [p for p in map(int, jobs + started) if _alive(p)] == []


def test_a_gate_writes_nothing_outside_its_report_directory_and_the_cache(tmp_path):
    """hypothesis' files (`./.hypothesis`), numba's machine code (the package's `__pycache__`) and matplotlib's font
    list (`$XDG_CACHE_HOME/matplotlib`) go to `$XDG_CACHE_HOME/assigncheck`; the working directory gets the report
    directory only."""
    package = PACKAGE / "impl"
    compiled = {p: p.stat().st_mtime_ns for p in package.rglob("*.nb[ic]")}
    cwd, cache = tmp_path / "work", tmp_path / "cache"
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "HYPOTHESIS_STORAGE_DIRECTORY", "MPLCONFIGDIR")}
    run = subprocess.run([sys.executable, "-m", "assigncheck.ci", "gate", "--target", "sticky", "--stages",
                          "properties", "--report-dir", "r"], cwd=cwd, env={**env, "XDG_CACHE_HOME": str(cache)},
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert [p.name for p in cwd.iterdir()] == ["r"]
    assert {p: p.stat().st_mtime_ns for p in package.rglob("*.nb[ic]")} == compiled
    assert list((cache / "assigncheck" / "numba").rglob("*.nbi"))  # numba's cache went where it was sent
    assert (cache / "assigncheck" / "hypothesis").is_dir()
    assert [p.name for p in cache.iterdir()] == ["assigncheck"]  # no $XDG_CACHE_HOME/matplotlib
    assert (cache / "assigncheck" / "matplotlib").is_dir()  # the report page's plots were made


def test_an_unwritable_cache_costs_matplotlib_no_warning(tmp_path):
    """A cache that cannot be written (here a file where the directory would be: unwritable even for root):
    matplotlib's font list is kept in a temporary directory, removed at exit, without matplotlib's warning lines."""
    blocked = tmp_path / "cache"
    blocked.write_text("not a directory")
    code = ("import io\n"
            "from assigncheck.run.cache import matplotlib_dir\n"
            "where = matplotlib_dir()\n"
            "import matplotlib\n"
            "matplotlib.use('Agg')\n"
            "import matplotlib.pyplot as plt\n"
            "plt.plot([1, 2], [3, 4])\n"
            "plt.savefig(io.BytesIO(), format='png')\n"
            "print(where)\n")
    env = {k: v for k, v in os.environ.items() if k != "MPLCONFIGDIR"}
    run = subprocess.run([sys.executable, "-c", code], env={**env, "XDG_CACHE_HOME": str(blocked)},
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert not Path(run.stdout.strip()).exists()  # the temporary directory went at exit
