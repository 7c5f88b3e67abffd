"""`assigncheck fuzz`'s driver: J libFuzzer subprocesses per target, one live status line, a summary.

Each job is `python -m assigncheck.fuzz.runner` with its own libFuzzer seed; all jobs of a target share
one corpus directory (libFuzzer names inputs by hash and reloads the others' finds). Status is parsed
from the jobs' stderr: the latest `#N ... cov: C ... exec/s: R` of each job, and `FINDING` lines.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from assigncheck.findings.reproducers import slug
from assigncheck.fuzz.runner import READY

STATUS = re.compile(r"^#(\d+)\s+\w+\s+cov: (\d+).*?exec/s: (\d+)")
FINDING = re.compile(r"^FINDING (new|known) (\S+) (.+)$")
PROMISES = re.compile(r"^PROMISES (.*)$")
# A job's time starts once it has loaded its target: its imports and kernels take seconds on an idle machine, and
# over a minute on a busy one whose numba cache is cold. A job not ready by then, or still running GRACE_S after
# its fuzzing time, is wedged and stopped (libFuzzer stops itself on time).
START_UP_S = 600.0
GRACE_S = 60.0


@dataclass
class JobState:
    execs: int = 0
    cov: int = 0
    rate: int = 0
    lines: list[str] = field(default_factory=list)  # the tail, for the error report of a failed job
    artifacts: list[str] = field(default_factory=list)  # libFuzzer's crash-/timeout- inputs
    promises: str | None = None  # what the job's target enforces, as it said itself
    ready_at: float | None = None  # when it said it had loaded its target (monotonic)


@dataclass
class TargetResult:
    target: str
    seconds: float
    execs: int
    cov: int
    findings: dict[str, str]  # path -> invariant
    failed_jobs: list[str]
    promises: str | None = None  # the promises the jobs enforced (as they reported them)

    @property
    def rate(self) -> float:
        return self.execs / self.seconds if self.seconds > 0 else 0.0


def _read(stream: TextIO, state: JobState, findings: dict[str, str], lock: threading.Lock) -> None:
    for line in stream:
        line = line.rstrip("\n")
        with lock:
            state.lines = (state.lines + [line])[-20:]
            m = STATUS.match(line)
            if m:
                state.execs, state.cov, state.rate = int(m[1]), int(m[2]), int(m[3])
            if line == READY:
                state.ready_at = time.monotonic()
            p = PROMISES.match(line)
            if p:
                state.promises = p[1]
            if "Test unit written to " in line:
                state.artifacts.append(line.split("Test unit written to ", 1)[1].strip())
            f = FINDING.match(line)
            if f:
                findings[f[3]] = f[2]


def _command(target: str, out: Path, corpus: Path, seeds: Path, seconds: float, seed: int, budget_s: float,
             engine: str, max_len: int, minimize_s: float, runs: int | None, cpu_factor: float | None) -> list[str]:
    return [sys.executable, "-m", "assigncheck.fuzz.runner", "--target", target, "--out", str(out),
            "--corpus", str(corpus), "--seeds", str(seeds), "--seconds", str(seconds), "--seed", str(seed),
            "--budget", str(budget_s), "--engine", engine, "--max-len", str(max_len),
            "--minimize-seconds", str(minimize_s), *(["--runs", str(runs)] if runs is not None else []),
            *(["--cpu-factor", repr(cpu_factor)] if cpu_factor is not None else [])]


@dataclass
class _Jobs:
    """The running jobs of one target and what their stderr said so far."""

    procs: list[subprocess.Popen[str]] = field(default_factory=list)
    states: list[JobState] = field(default_factory=list)
    readers: list[threading.Thread] = field(default_factory=list)
    findings: dict[str, str] = field(default_factory=dict)  # path -> invariant
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self, cmd: list[str]) -> None:
        # a session of its own: the job and anything it starts (a cmd: target) die with it
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace",
                                start_new_session=True)
        state = JobState()
        reader = threading.Thread(target=_read, args=(proc.stderr, state, self.findings, self.lock), daemon=True)
        reader.start()
        self.procs.append(proc)
        self.states.append(state)
        self.readers.append(reader)

    def running(self) -> int:
        return sum(p.poll() is None for p in self.procs)

    def line(self, target: str, elapsed: float, seconds: float) -> str:
        with self.lock:
            return (f"[{target}] {elapsed:5.0f}s/{seconds:.0f}s  jobs {self.running()}"
                    f"  execs {sum(s.execs for s in self.states):,}  exec/s {sum(s.rate for s in self.states):,}"
                    f"  cov {max(s.cov for s in self.states)}  findings {len(self.findings)}")

    def stop(self, signal_: int = signal.SIGTERM) -> None:
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal_)
                except ProcessLookupError:
                    pass

    def wait(self) -> None:
        for p in self.procs:
            p.wait()
        for reader in self.readers:  # every line, FINDING lines included, read to the end of each job's stderr
            reader.join()


def _deadline(jobs: _Jobs, start: float, seconds: float) -> float:
    """When the jobs are overdue: GRACE_S after the last one's fuzzing time, counted from when it was ready."""
    with jobs.lock:
        ready = [s.ready_at for s in jobs.states]
    began = max(r for r in ready if r is not None) if None not in ready else start + START_UP_S
    return began + seconds + GRACE_S


def _watch(jobs: _Jobs, target: str, seconds: float, stop_on_finding: bool, status: TextIO) -> None:
    """Until the jobs end: one live status line (rich, on a terminal) or a line every 10 s; stop the jobs at
    the first finding if asked, or when they overrun (libFuzzer stops itself; this guards a wedged job)."""
    from rich.console import Console
    from rich.live import Live

    start = time.monotonic()
    console = Console(file=status, highlight=False)
    with Live(console=console, auto_refresh=False, transient=False) if console.is_terminal else nullcontext() as live:
        last = 0.0
        while jobs.running():
            time.sleep(0.5)
            now = time.monotonic()
            line = jobs.line(target, now - start, seconds)
            if live is not None:
                live.update(line, refresh=True)
            elif now - last >= 10:
                status.write(line + "\n")
                last = now
            if now > _deadline(jobs, start, seconds) or (stop_on_finding and jobs.findings):
                jobs.stop()


def fuzz_target(target: str, *, seconds: float, jobs: int, out: Path, seed: int, budget_s: float, engine: str,
                max_len: int, vectors: Path | None = None, stop_on_finding: bool = False, minimize_s: float = 20.0,
                runs: int | None = None, status: TextIO = sys.stderr, cpu_factor: float | None = None) -> TargetResult:
    """Fuzz one target with `jobs` processes for `seconds` (and at most `runs` inputs each); findings land in
    `out` as they are found, seeded with `vectors` (by default the package's regression vectors). With
    `stop_on_finding` the jobs are stopped once the first reproducer is written (and minimized). `cpu_factor`:
    what `budget_s` was scaled by (a gate run's calibration), recorded in each reproducer."""
    from assigncheck.fuzz.harness import kind_of
    from assigncheck.fuzz.runner import VECTORS, build_seeds

    kind = kind_of(target)
    seeds = out / "seeds" / kind
    build_seeds(vectors or VECTORS, seeds, kind)
    corpus = out / "corpus" / slug(target)
    corpus.mkdir(parents=True, exist_ok=True)
    running = _Jobs()
    start = time.monotonic()
    try:
        for j in range(jobs):
            running.start(_command(target, out, corpus, seeds, seconds, seed + j, budget_s, engine, max_len,
                                   minimize_s, runs, cpu_factor))
        _watch(running, target, seconds, stop_on_finding, status)
    except BaseException:  # Ctrl-C: no job outlives this process
        running.stop(signal.SIGKILL)
        running.wait()
        raise
    elapsed = time.monotonic() - start
    running.wait()
    # A job reports a raw reproducer another job may still be minimizing (and then remove): keep what exists.
    findings = {path: inv for path, inv in running.findings.items() if Path(path).exists()}
    stopped = stop_on_finding and findings
    failed = []
    for j, p in enumerate(running.procs):
        if p.returncode not in (0, None) and not stopped:  # 70: libFuzzer's -timeout; 77: an exception escaped
            state = running.states[j]
            saved = f", input saved as {', '.join(state.artifacts)}" if state.artifacts else ""
            failed.append(f"job {j} exited {p.returncode}{saved}: " + " | ".join(state.lines[-3:]))
    said = {s.promises for s in running.states if s.promises is not None}
    return TargetResult(target, elapsed, sum(s.execs for s in running.states), max(s.cov for s in running.states),
                        findings, failed, said.pop() if len(said) == 1 else None)
