"""One row of a differential campaign: its schema, its instance id, and how it is computed (one target
checked on one generated instance). A pure function of (profile, seed, shard, k) and the target, so any row
can be rebuilt alone (`assigncheck campaign show-row`).
"""

from __future__ import annotations

import time
from typing import Any

import pyarrow as pa

from assigncheck.generate.seeded import PROFILES, generate
from assigncheck.run.breaker import HANG_CAUSES
from assigncheck.spec.errors import InputError
from assigncheck.spec.model import AnyProblem, StreamsProblem

MAX_MESSAGES = 5  # per row: enough to read what broke, bounded so a pathological row stays small

ROW_SCHEMA = pa.schema([
    ("instance", pa.string()),  # "profile/seed/shard/k": enough to regenerate the problem alone
    ("shard", pa.int32()),
    ("k", pa.int64()),
    ("target", pa.string()),
    ("members", pa.int32()),
    ("topics", pa.int32()),
    ("partitions", pa.int64()),
    ("protocol", pa.string()),
    ("ok", pa.bool_()),
    ("violated", pa.list_(pa.string())),  # sorted distinct invariant ids; absent = that invariant held
    ("raw_keys", pa.list_(pa.string())),  # sorted distinct "invariant|cause" (findings.signature.raw_key)
    ("messages", pa.list_(pa.string())),
    ("quality", pa.map_(pa.string(), pa.float64())),  # spec.assignment_check's quality measures, by name
    ("assign_seconds", pa.float64()),  # the target's first assign() call on this instance
    ("check_seconds", pa.float64()),  # the whole check (reruns for determinism, reference, oracle)
    ("reproducer", pa.string()),  # problem JSON (formats.documents) when the row has a violation
    ("promises", pa.string()),  # the promises the executor held the target to (`--promises` text)
])


def instance_id(profile: str, seed: int, shard: int, k: int) -> str:
    return f"{profile}/{seed}/{shard}/{k}"


def parse_instance_id(text: str) -> tuple[str, int, int, int]:
    """`small/7/3/42` -> ("small", 7, 3, 42); raises InputError naming the part that is wrong."""
    parts = text.split("/")
    if len(parts) != 4:
        raise InputError("instance", f"must look like PROFILE/SEED/SHARD/K, got {text!r}")
    profile, *numbers = parts
    if profile not in PROFILES:
        raise InputError("instance", f"profile must be one of {', '.join(PROFILES)}, got {profile!r}")
    if not all(n.isdigit() for n in numbers):
        raise InputError("instance", f"seed, shard and k must be whole numbers, got {text!r}")
    seed, shard, k = (int(n) for n in numbers)
    return profile, seed, shard, k


def regenerate(instance: str) -> Any:
    """The problem (a `Scenario` for churn) of one campaign row, rebuilt from its instance id alone."""
    profile, seed, shard, k = parse_instance_id(instance)
    return generate(profile, seed, shard, k)


def sizes(problem: AnyProblem) -> tuple[int, int, int, str]:
    """(members, topics, partitions, protocol); a streams problem counts clients, sub-topologies, tasks."""
    if isinstance(problem, StreamsProblem):
        return len(problem.clients), len(problem.subtopologies), problem.task_count, "streams"
    return len(problem.members), len(problem.topics), problem.partition_count, problem.protocol


class _Timed:
    """An assignor seen through a stopwatch: the check calls it several times; the first call is the time."""

    def __init__(self, inner: Any) -> None:
        self.name, self.promises, self._inner = inner.name, inner.promises, inner
        self.first_seconds: float | None = None
        if hasattr(inner, "assign_metered"):
            self.assign_metered = self._metered

    def assign(self, problem: AnyProblem) -> Any:
        t0 = time.perf_counter()
        try:
            return self._inner.assign(problem)
        finally:
            if self.first_seconds is None:
                self.first_seconds = time.perf_counter() - t0

    def _metered(self, problem: AnyProblem, **limits: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return self._inner.assign_metered(problem, **limits)
        finally:
            if self.first_seconds is None:
                self.first_seconds = time.perf_counter() - t0


_targets: dict[str, Any] = {}


def loaded_target(key: str) -> Any:
    """Load each target once per worker process, by its reference (promises included), the way every stage
    loads it (a `cmd:` target keeps its subprocess between rows)."""
    if key not in _targets:
        from assigncheck.formats.reproducer import TargetRef
        from assigncheck.targets.registry import load

        _targets[key] = load(TargetRef.parse(key))
    return _targets[key]



def _quality(report: Any) -> dict[str, float]:
    """The report's numeric measures (None = not computed, e.g. no oracle on a large problem: left out)."""
    out = {}
    for key, value in sorted(dict(report.quality).items()):
        if isinstance(value, bool | int | float) and value == value:  # NaN dropped
            out[str(key)] = float(value)
    # The distance to the optimum, per row: what the summary's distributions are most read for.
    if "max_retained" in out and "retained" in out:
        out["retained_gap"] = out["max_retained"] - out["retained"]
    if "optimal_sum_squares" in out and "sum_squares" in out:
        out["balance_gap"] = out["sum_squares"] - out["optimal_sum_squares"]
    return out


def _round_problems(assignor: Any, scenario: Any) -> list[AnyProblem]:
    """Every rebalance round's input a scenario reaches with this assignor (up to a crash, which the
    check of the last one then reports as H7)."""
    from assigncheck.generate.scenario import run_scenario_by_step

    reached: list[AnyProblem] = []

    def assign(problem: Any) -> Any:
        reached.append(problem)
        return assignor.assign(problem)

    try:
        run_scenario_by_step(assign, scenario)
    except Exception:  # noqa: BLE001 - the assignor crashed: check_assignor below reports it
        pass
    return reached or [scenario.initial]


def _check(assignor: Any, instance: Any, budget_s: float) -> tuple[list[Any], dict[str, float], AnyProblem | None]:
    """Violations, quality and the first violating problem of a problem, or of every round of a scenario."""
    from assigncheck.generate.scenario import Scenario
    from assigncheck.run.assignor_check import check_assignor

    problems = _round_problems(assignor, instance) if isinstance(instance, Scenario) else [instance]
    violations: list[Any] = []
    culprit: AnyProblem | None = None
    moves = 0.0
    quality: dict[str, float] = {}
    for problem in problems:
        _, report = check_assignor(assignor, problem, budget_s=budget_s)
        if report.violations and culprit is None:
            culprit = problem
        violations += report.violations
        quality = _quality(report)
        moves += quality.get("moves", 0.0)
    if isinstance(instance, Scenario):
        quality.update({"moves": moves, "scenario_rounds": float(len(problems))})
    return violations, quality, culprit


def check_row(spec_name: str, instance: Any, instance_name: str, shard: int, k: int,
              budget_s: float = 10.0) -> dict[str, Any]:
    """One row: `run.assignor_check.check_assignor` of one target on one generated instance (a problem, or each
    rebalance of a churn scenario), timed. A harness failure (the checker itself raising) becomes a
    `harness.error` violation with the reproducer, so one odd instance never kills a huge campaign."""
    from assigncheck.formats.documents import dumps, problem_to_json
    from assigncheck.generate.scenario import Scenario

    first = instance.initial if isinstance(instance, Scenario) else instance
    members, topics, partitions, protocol = sizes(first)
    from assigncheck.findings.signature import raw_key

    target = loaded_target(spec_name)
    timed = _Timed(target)
    t0 = time.perf_counter()
    try:
        violations, quality, culprit = _check(timed, instance, budget_s)
        invariants = sorted({v.invariant for v in violations})
        raw = sorted({raw_key(v) for v in violations})
        messages = [str(v) for v in violations[:MAX_MESSAGES]]
    except Exception as e:  # noqa: BLE001 - recorded as a finding, see docstring
        invariants, messages, quality = ["harness.error"], [f"harness.error: {type(e).__name__}: {e}"], {}
        raw = ["harness.error"]
        culprit = first
    check_seconds = time.perf_counter() - t0
    return {
        "instance": instance_name, "shard": shard, "k": k, "target": spec_name,
        "members": members, "topics": topics, "partitions": partitions, "protocol": protocol,
        "ok": not invariants, "violated": invariants, "raw_keys": raw, "messages": messages,
        "quality": sorted(quality.items()), "assign_seconds": timed.first_seconds, "check_seconds": check_seconds,
        "reproducer": dumps(problem_to_json(culprit or first)) if invariants else None,
        "promises": target.promises.to_text(),
    }


def hung(row: dict[str, Any]) -> bool:
    """Whether the row's call hit the hang limit (`run.breaker`)."""
    return any(key.startswith("H7|") and key.split("|", 1)[1] in HANG_CAUSES for key in row["raw_keys"])


