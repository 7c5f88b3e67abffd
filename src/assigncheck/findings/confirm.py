"""From a stage's raw failures to the gate's verdicts: collect, settle, confirm.

1. A stage offers each failing problem to a `Collector`, which keeps a few raw candidates per raw key
   (invariant and crash cause) and goes on: stages run to the end of their budget, whatever they find.
2. `settle` files each candidate through the one path every finding takes (`findings.reproducers`: minimized,
   one reproducer per signature) in the run's reproducer directory (`Filing`).
3. `confirm` replays every reproducer REPLAYS (N) times from the file alone, in a fresh process (`assigncheck replay
   FILE --json --times N`: one process per finding, each replay loading the target afresh, so a `cmd:` or `java:`
   target's program starts again every time) and records in how many it failed (k of N): a finding that breaks the
   same invariant in any of them is confirmed (flaky when k < N) and fails the gate; one that fails in none is
   unconfirmed. A timing finding (the scale stage's) is replayed once (TIMED_REPLAYS): its replay is itself the
   minimum of three timed calls, each on a fresh copy of its problem. The replay process judges with the run's CPU
   factor (`run.calibration`), so a timing verdict and its confirmation use one budget. A target no other process
   can load is replayed from the file in this process instead, by the same dispatch (`findings.replay`). Findings on
   problems no real group can produce are listed apart as unreachable, and neither kind fails the gate.

The run's directory and the profile's budgets come in a `Filing` (the gate builds it from its context), so
this module knows nothing of the gate that calls it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from assigncheck.findings.finding import Finding
from assigncheck.findings.replay import On, Reproducer, Seen, check, kind_of, replay_times
from assigncheck.findings.reproducers import Judge, Reproducers
from assigncheck.findings.signature import raw_key, signature, telling, unreachable
from assigncheck.formats.documents import load_problem
from assigncheck.formats.json_input import load_json, parse_json
from assigncheck.formats.reproducer import Record, record_of
from assigncheck.spec.model import AnyProblem, Problem
from assigncheck.spec.promises import Assignor
from assigncheck.spec.violations import Violation

PER_KEY = 3  # raw candidates kept per raw key: other shapes of the same invariant may be other bugs
REPLAYS = 5  # N: replays of each reproducer by confirmation (a flaky target may pass a few in a row)
# N for a timing finding: its one replay already times three calls, each over the budget, so five would cost a
# slow target's CPU five times over (minutes, at the hang limit) to say what the first one said
TIMED_REPLAYS = 1


@dataclass(frozen=True)
class Filing:
    """Where a run files its findings' reproducers, and the budgets it files and confirms them with."""

    directory: Path  # the run's reproducer directory
    budget_s: float  # H7: CPU seconds one assign call may take (a file that records none is replayed with it)
    minimize_s: float  # per distinct failure
    max_candidates: int  # distinct raw failures a stage minimizes per target (its `Collector`'s cap)
    factor: float | None = None  # the CPU factor budget_s was scaled by (`run.calibration`; None: absolute)


@dataclass(frozen=True)
class Candidate:
    problem: AnyProblem
    violation: Violation
    seed: int  # the check's seed (H8's shuffled listing)
    how: str = ""  # where it came from, for the note (hypothesis seed, campaign instance, ...)
    extra: dict[str, Any] | None = None  # what its reproducer's record needs besides (H8's two processes)


class Collector:
    """Keeps raw failures worth minimizing: per raw key, up to PER_KEY problems, skipping one whose shape
    features contain those of a problem already kept (it most likely shows the same bug)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.kept: dict[str, list[Candidate]] = {}
        self.failing = 0  # problems offered with any violation

    def offer(self, problem: AnyProblem, violations: Sequence[Violation], seed: int, how: str = "",
              extra: dict[str, Any] | None = None) -> None:
        if violations:
            self.failing += 1
        for v in violations:
            key = raw_key(v)
            kept = self.kept.setdefault(key, []) if key in self.kept or len(self.kept) < self.cap else None
            if kept is None or len(kept) >= PER_KEY:
                continue
            mine = telling(problem)
            if any(telling(c.problem) <= mine for c in kept):
                continue
            kept.append(Candidate(problem, v, seed, how, extra))

    def candidates(self) -> list[Candidate]:
        return [c for kept in self.kept.values() for c in kept]


def reproducers(filing: Filing, stage: str, target: Assignor) -> Reproducers:
    """Where a stage files a target's findings in this run (`findings.reproducers`)."""
    return Reproducers.of(filing.directory, stage, target, filing.budget_s, factor=filing.factor)


def settle(stage: str, target: Assignor, candidates: Sequence[Candidate], filing: Filing,
           judge: Callable[[Candidate], Judge] | None = None) -> list[Finding]:
    """File each candidate (minimized, one reproducer per signature, its `extra` in the record), status
    "unconfirmed" until `confirm` has replayed it. `judge` gives, per candidate, what tells the violations on a
    problem instead of `check` (H8 across processes: two processes started as the candidate's were)."""
    files = reproducers(filing, stage, target)
    findings: list[Finding] = []
    for cand in candidates:
        def default(p: AnyProblem, seed: int = cand.seed) -> list[Violation]:
            return check(target, p, seed, filing.budget_s)

        filed = files.file(cand.problem, cand.violation, judge(cand) if judge else default, seed=cand.seed,
                           minimize_s=filing.minimize_s, how=cand.how, extra=cand.extra)
        if filed.new:
            findings.append(Finding.of(stage, target.name, filed.violation, reproducer=str(filed.path),
                                       seed=cand.seed, signature=filed.signature))
    return findings


def from_files(stage: str, target_name: str, paths: Sequence[str]) -> list[Finding]:
    """Findings for reproducer files another process wrote (fuzz jobs), one per signature."""
    findings: list[Finding] = []
    seen: set[str] = set()
    for path in sorted(paths):
        try:
            record = record_of(load_json(path))
        except (OSError, ValueError):
            record = None
        if record is None:
            findings.append(Finding(stage, target_name, "harness.error", f"unreadable reproducer {path}",
                                    reproducer=path))
            continue
        if record.signature in seen:
            continue
        seen.add(record.signature)
        findings.append(Finding(stage, target_name, record.invariant, record.message, reproducer=path,
                                seed=record.seed, cause=record.cause, signature=record.signature))
    return findings


# ---- confirmation -----------------------------------------------------------------------------------------


def loadable(target: Assignor) -> bool:
    """Whether another process can load `target` from its reference (not a local object)."""
    from assigncheck.targets.registry import BUILTINS, TARGET_LOADERS, ref_of

    spec = ref_of(target).spec
    prefix, sep, rest = spec.partition(":")
    if spec in BUILTINS or prefix in TARGET_LOADERS:
        return True
    if not sep:
        return False
    import importlib

    try:
        module = importlib.import_module(prefix)
    except Exception:  # noqa: BLE001 - not importable: not loadable
        return False
    return hasattr(module, rest)


_REPLAYS: set[subprocess.Popen[str]] = set()  # replays running now, killed if the gate is interrupted


def _kill(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the replay and everything it started (a cmd: target)
    except ProcessLookupError:
        pass


def replay_in_fresh_process(path: str, timeout_s: float, times: int = REPLAYS, factor: float | None = None
                            ) -> tuple[int, dict[str, Any] | None, str]:
    """`assigncheck replay FILE --json --times N` in a new interpreter, with the CPU factor `factor` when given:
    (exit code, its JSON answer, its stderr). The replay runs in a session of its own and is killed with
    everything it started on any interruption, or after `timeout_s` per replay. The caller wrote the file in this
    run, for the target its own command line named: it is replayed with `--trust`."""
    from assigncheck.run.calibration import ENV

    env = {**os.environ, **({ENV: repr(factor)} if factor is not None else {})}
    proc = subprocess.Popen([sys.executable, "-m", "assigncheck.ci", "replay", path, "--json", "--trust",
                             "--times", str(times)],
                            cwd=os.getcwd(), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    _REPLAYS.add(proc)
    try:
        out, err = proc.communicate(timeout=timeout_s * times)
    except subprocess.TimeoutExpired:
        _kill(proc)
        proc.communicate()
        return -1, None, f"{times} replays did not finish within {timeout_s * times:g} s"
    finally:
        _REPLAYS.discard(proc)
    try:
        answer = parse_json(out.strip().splitlines()[-1], "replay --json") if out.strip() else None
    except (ValueError, IndexError):
        answer = None
    return proc.returncode, answer, err.strip()[-300:]


def size(problem: AnyProblem) -> int:
    """Members + partitions (Streams: clients + tasks): which of a bug's reproducers is the smallest."""
    if isinstance(problem, Problem):
        return len(problem.members) + sum(problem.topics.values())
    return len(problem.clients) + sum(problem.subtopologies.values())


def also(problem: AnyProblem, violations: Sequence[Violation], matching: Sequence[Violation]
         ) -> tuple[tuple[str, str], ...]:
    """(invariant, signature) of each other violation the replays saw on the finding's problem, whatever
    partitions it names: what `findings.finding.bugs` lists a bug under, when it is of an earlier invariant."""
    return tuple(dict.fromkeys((v.invariant, signature(v, problem)) for v in violations if v not in matching))


def _output_text(output: Any) -> str:
    """The target's output a replay reported, as the finding keeps it (JSON text; empty when there is none)."""
    from assigncheck.formats.documents import dumps

    return dumps(output) if isinstance(output, dict) else ""


def confirm(findings: Sequence[Finding], target_of: Callable[[Finding], Assignor | None], filing: Filing,
            timeout_s: float) -> list[Finding]:
    """Each finding with its status: unreachable (its problem), confirmed (failed again in k >= 1 of N replays
    in a fresh process) or unconfirmed (in none; `why` says what replay said); k and N recorded. A target no
    other process can load (a Python object handed to the pytest plugin) is replayed from the file in this
    process instead, and says so. `timeout_s` bounds one replay."""

    def one(f: Finding) -> Finding:
        if f.reproducer is None:
            return f  # a finding about a declaration (promises), not about a problem: stays as the stage set it
        try:
            problem = load_problem(f.reproducer)
            record = record_of(load_json(f.reproducer))
        except Exception as e:  # noqa: BLE001 - an unreadable file cannot be confirmed
            return replace(f, status="unconfirmed", why=f"its reproducer cannot be read: {e}")
        return judged(replace(f, size=size(problem)), f.reproducer, problem, record)

    def judged(f: Finding, path: str, problem: AnyProblem, record: Record | None) -> Finding:
        target = target_of(f)
        why = unreachable(problem, target.promises if target is not None else None)
        if why:
            return replace(f, status="unreachable", why="; ".join(why))
        n = TIMED_REPLAYS if kind_of(record) == "scale" else REPLAYS
        if target is not None and not loadable(target):
            assert record is not None
            here = replay_times(Reproducer(path, kind_of(record), problem, record),
                                On(record.budget_s or filing.budget_s, target=target, hang_s=record.hang_s), n)
            where = "replayed from the file in the gate's process (the target cannot be loaded by another)"
            return counted(f, problem, here.reproduced or 0, n, [s.violation for s in here.violations],
                           here.matching, f"{where}: no longer reproduces", here.output)
        code, answer, err = replay_in_fresh_process(path, timeout_s, n, filing.factor)
        if code in (0, 1) and answer is not None:
            seen = [Seen.from_json(v) for v in answer.get("violations", ())]
            return counted(f, problem, int(answer.get("reproduced", code)), n, [s.violation for s in seen],
                           [s.violation for s in seen if s.matches], f"replay from the file alone: {answer['summary']}",
                           answer.get("output"))
        said = (answer or {}).get("summary") or err or f"exit code {code}"
        return replace(f, status="unconfirmed", why=f"replay from the file alone: {said}")

    def counted(f: Finding, problem: AnyProblem, k: int, n: int, violations: list[Violation],
                matching: list[Violation], why_not: str, output: Any) -> Finding:
        """The finding with k of N: confirmed when any replay failed again, with what the target gave then."""
        return replace(f, status="confirmed" if k else "unconfirmed", why="" if k else why_not, replays=n,
                       reproduced=k, also=also(problem, violations, matching), output=_output_text(output))

    pool = ThreadPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1)))
    futures = [pool.submit(one, f) for f in findings]
    try:
        return [f.result() for f in futures]
    except BaseException:  # Ctrl-C: stop every replay now rather than wait for them
        for proc in list(_REPLAYS):
            _kill(proc)
        raise
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


__all__ = ["Candidate", "Collector", "Filing", "PER_KEY", "REPLAYS", "TIMED_REPLAYS", "also", "confirm", "from_files",
           "loadable", "replay_in_fresh_process", "reproducers", "settle", "size"]
