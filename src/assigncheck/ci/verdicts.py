"""From a stage's raw failures to the gate's verdicts: collect, settle, confirm.

1. A stage offers each failing problem to a `Collector`, which keeps a few raw candidates per raw key
   (invariant and crash cause) and goes on: stages run to the end of their budget, whatever they find.
2. `settle` files each candidate through the one path every finding takes (`findings.reproducers`: minimized,
   one reproducer per signature) in the run's `reproducers/` directory.
3. `confirm` replays every reproducer from the file alone, in a fresh process (`assigncheck replay FILE
   --json`): only a finding that breaks the same invariant there fails the gate. Findings on problems no real
   group can produce are listed apart as unreachable, and neither kind fails the gate.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from assigncheck.ci.context import Context, stop_if_interrupted
from assigncheck.ci.results import Finding
from assigncheck.findings.reproducers import Judge, Reproducers
from assigncheck.findings.signature import raw_key, signature, telling, unreachable
from assigncheck.formats.documents import load_problem
from assigncheck.formats.json_input import load_json, parse_json
from assigncheck.formats.reproducer import Record, record_of
from assigncheck.spec.model import AnyProblem, Problem
from assigncheck.spec.promises import Assignor
from assigncheck.spec.violations import Violation

PER_KEY = 3  # raw candidates kept per raw key: other shapes of the same invariant may be other bugs


@dataclass(frozen=True)
class Candidate:
    problem: AnyProblem
    violation: Violation
    seed: int  # the check's seed (H8's shuffled listing)
    how: str = ""  # where it came from, for the note (hypothesis seed, campaign instance, ...)


class Collector:
    """Keeps raw failures worth minimizing: per raw key, up to PER_KEY problems, skipping one whose shape
    features contain those of a problem already kept (it most likely shows the same bug)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.kept: dict[str, list[Candidate]] = {}
        self.failing = 0  # problems offered with any violation

    def offer(self, problem: AnyProblem, violations: Sequence[Violation], seed: int, how: str = "") -> None:
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
            kept.append(Candidate(problem, v, seed, how))

    def candidates(self) -> list[Candidate]:
        return [c for kept in self.kept.values() for c in kept]


def check(target: Assignor, problem: AnyProblem, seed: int, budget_s: float, hang_s: float | None = None
          ) -> list[Violation]:
    from assigncheck.run.assignor_check import check_assignor

    stop_if_interrupted()  # minimization calls this in a loop

    return list(check_assignor(target, problem, seed=seed, budget_s=budget_s, hang_s=hang_s,
                               measure=False)[1].violations)


def reproducers(ctx: Context, stage: str, target: Assignor) -> Reproducers:
    """Where a stage files a target's findings in this run (`findings.reproducers`)."""
    return Reproducers.of(ctx.work_dir / "reproducers", stage, target, ctx.profile.budget_s)


def settle(stage: str, target: Assignor, candidates: Sequence[Candidate], ctx: Context, judge: Judge | None = None,
           extra: dict[str, Any] | None = None) -> list[Finding]:
    """File each candidate (minimized, one reproducer per signature), status "unconfirmed" until `confirm`
    has replayed it. `judge` gives the violations on a problem instead of `check`; `extra` goes into each
    reproducer's record (what replay needs besides the target, such as H8's two processes)."""
    filing = reproducers(ctx, stage, target)
    findings: list[Finding] = []
    for cand in candidates:
        def default(p: AnyProblem, seed: int = cand.seed) -> list[Violation]:
            return check(target, p, seed, ctx.profile.budget_s)

        filed = filing.file(cand.problem, cand.violation, judge or default, seed=cand.seed,
                            minimize_s=ctx.profile.minimize_s, how=cand.how, extra=extra)
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


def replay_in_fresh_process(path: str, timeout_s: float) -> tuple[int, dict[str, Any] | None, str]:
    """`assigncheck replay FILE --json` in a new interpreter: (exit code, its JSON answer, its stderr). The
    replay runs in a session of its own and is killed with everything it started on any interruption."""
    proc = subprocess.Popen([sys.executable, "-m", "assigncheck.ci", "replay", path, "--json"], cwd=os.getcwd(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    _REPLAYS.add(proc)
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill(proc)
        proc.communicate()
        return -1, None, f"replay did not finish within {timeout_s:g} s"
    finally:
        _REPLAYS.discard(proc)
    try:
        answer = parse_json(out.strip().splitlines()[-1], "replay --json") if out.strip() else None
    except (ValueError, IndexError):
        answer = None
    return proc.returncode, answer, err.strip()[-300:]


H8_TRIES = 5  # a nondeterministic target may agree with itself a few times in a row


def reproduces(target: Assignor, problem: AnyProblem, invariant: str | None, seed: int, budget_s: float,
               hang_s: float | None = None) -> tuple[list[Violation], list[Violation], int]:
    """Check `problem` again: (every violation, those of `invariant` (all when None), tries). Nondeterminism
    (H8) shows when two runs of one input differ, which may take a few tries."""
    from assigncheck.spec.violations import judged_as

    wanted = judged_as(invariant) if invariant else None
    tries = H8_TRIES if wanted == "H8" else 1
    violations: list[Violation] = []
    attempt = 0
    while attempt < tries and not any(wanted in (None, v.invariant) for v in violations):
        attempt += 1
        violations = check(target, problem, seed, budget_s, hang_s)
    return violations, [v for v in violations if wanted in (None, v.invariant)], attempt


def size(problem: AnyProblem) -> int:
    """Members + partitions (Streams: clients + tasks): which of a bug's reproducers is the smallest."""
    if isinstance(problem, Problem):
        return len(problem.members) + sum(problem.topics.values())
    return len(problem.clients) + sum(problem.subtopologies.values())


def also(problem: AnyProblem, violations: Sequence[Violation], matching: Sequence[Violation]
         ) -> tuple[tuple[str, str], ...]:
    """(invariant, signature) of each other violation the replay saw on the partitions the finding's own
    violation names: what `results.bugs` lists as consequences of one bug."""
    mine = {p for v in matching for p in v.partitions}
    return tuple(dict.fromkeys((v.invariant, signature(v, problem)) for v in violations
                               if v not in matching and mine.intersection(v.partitions)))


def _violation(doc: dict[str, Any]) -> Violation:
    """A violation as `assigncheck replay --json` printed it."""
    return Violation(doc["invariant"], doc["message"], tuple(doc.get("members", ())),
                     tuple((t, i) for t, i in doc.get("partitions", ())), doc.get("cause", ""))


def confirm(findings: Sequence[Finding], target_of: Callable[[Finding], Assignor | None], ctx: Context,
            timeout_s: float) -> list[Finding]:
    """Each finding with its status: unreachable (its problem), confirmed (replayed in a fresh process) or
    unconfirmed (did not replay; `why` says what replay said). A target no other process can load (a Python
    object handed to the pytest plugin) is replayed from the file in this process instead, and says so."""

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
        if target is not None and not loadable(target):
            assert record is not None
            budget = record.budget_s or ctx.profile.budget_s
            if "scale" in record.extra:  # a timing finding: timed again (run.scale)
                from assigncheck.run.scale import retime

                violations = matching = retime(target, problem, record.extra["scale"], budget, record.hang_s)[0]
            else:
                violations, matching, _ = reproduces(target, problem, record.invariant, record.seed, budget,
                                                     record.hang_s)
            where = "replayed from the file in the gate's process (the target cannot be loaded by another)"
            return replace(f, status="confirmed" if matching else "unconfirmed",
                           why="" if matching else f"{where}: no longer reproduces",
                           also=also(problem, violations, matching))
        code, answer, err = replay_in_fresh_process(path, timeout_s)
        if code == 1:
            seen = [(_violation(v), bool(v.get("matches"))) for v in (answer or {}).get("violations", ())]
            return replace(f, status="confirmed", why="",
                           also=also(problem, [v for v, _ in seen], [v for v, m in seen if m]))
        said = (answer or {}).get("summary") or err or f"exit code {code}"
        return replace(f, status="unconfirmed", why=f"replay from the file alone: {said}")

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
