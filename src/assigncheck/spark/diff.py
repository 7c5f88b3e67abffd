"""Differential campaigns, the driver: plan shards, run them on Spark executors (or in this process), aggregate.

Layout of a campaign directory::

    campaign.json                  the parameters (manifest); resuming with other parameters is an InputError
    rows/part-SSSSSS-<id>.parquet  one committed file per shard (see diff_shards.run_shard)
    summary.json                   the aggregate the gate's reports read (see diff_summary)
    reproducers/*.json             a few problem files per (target, invariant) that broke

The driver holds only shard ids and per-shard counts, so its memory does not grow with the instance count;
rows live in Parquet and large campaigns are aggregated by Spark SQL. `executor="plain"` runs the same shard
function in this process (the fallback for runs too small to pay for a JVM). Spark starts only when a shard
is left to run or a summary is too large for the driver, so resuming a finished campaign starts no JVM.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assigncheck.formats.documents import open_manifest, parse_json, problem_from_json, write_atomic
from assigncheck.spark.diff_shards import NO_LIMITS, CampaignSpec, Limits, ShardResult, run_shards
from assigncheck.spark.diff_summary import (
    EXAMPLES_PER_INVARIANT,
    PLAIN_AGGREGATE_ROWS,
    aggregate_plain,
    aggregate_spark,
    committed_rows,
    shard_files,
)
from assigncheck.spec.errors import InputError

MANIFEST = "campaign.json"
SUMMARY = "summary.json"
SPARK_LOG = "spark.log"  # the JVM's own output: its start-up lines, Spark's log, the Python workers' stderr
PLAIN_THRESHOLD = 2000  # rows below which `auto` skips Spark: a JVM start costs more than the checks
_FLAGS = {"targets": "--target", "profile": "--profile", "seed": "--seed", "instances": "--instances",
          "shards": "--shards"}


def open_campaign(spec: CampaignSpec, out: str | Path) -> Path:
    """Create the campaign directory and its manifest, or check that an existing one is the same campaign."""
    root = Path(out).resolve()
    open_manifest(root / MANIFEST, {"kind": "campaign-manifest", "campaign_id": spec.campaign_id,
                                    "campaign": spec.to_json()}, _FLAGS)
    return root


def finished_shards(spec: CampaignSpec, root: Path) -> set[int]:
    """Shards whose file is committed (temporary files of a killed run start with '.' and are ignored)."""
    pattern = re.compile(rf"part-(\d+)-{spec.campaign_id}\.parquet")
    done = set()
    for path in shard_files(spec, root):
        match = pattern.fullmatch(path.name)
        if match and int(match.group(1)) < spec.shards:
            done.add(int(match.group(1)))
    return done


def _warm(_: Any) -> int:
    """A start-up task: the imports every shard needs (pyarrow's pandas shim included), paid before the clock."""
    import ortools.graph.python.max_flow  # noqa: F401 - the oracle's solvers, which it imports only when it solves
    import ortools.graph.python.min_cost_flow  # noqa: F401
    import pyarrow as pa

    import assigncheck.run.assignor_check  # noqa: F401
    import assigncheck.spark.diff_shards  # noqa: F401

    return len(pa.array([0]))


def _start_spark(master: str | None, log: Path) -> Any:
    """The session, with its executors registered and one warm Python worker per core: the fixed cost of a
    campaign (seconds on a busy one-machine cluster), kept out of its rate. Spark's own output goes to `log`."""
    from assigncheck.spark.session import get_session

    session = get_session(master, log=log)
    sc = session.sparkContext
    slots = max(1, sc.defaultParallelism)
    sc.parallelize(range(slots), slots).map(_warm).count()
    return session


def _run_spark(session: Any, spec: CampaignSpec, root: Path, todo: list[int], limits: Limits) -> list[ShardResult]:
    # One partition per shard id: each task is one shard, so a retry redoes exactly one shard file.
    rdd = session.sparkContext.parallelize(todo, numSlices=len(todo))
    out = str(root)
    return rdd.mapPartitions(lambda shards: run_shards(spec, out, shards, limits)).collect()


def run_campaign(
    spec: CampaignSpec, out: str | Path, *, executor: str = "auto", master: str | None = None,
    examples: int = EXAMPLES_PER_INVARIANT, limits: Limits = NO_LIMITS,
) -> dict[str, Any]:
    """Run (or resume) a campaign and write its summary; returns the summary document. `limits` may cut the
    run short (a deadline, the circuit breaker); the summary's `unchecked` counts say by how much."""
    executor = _checked(spec, executor, master)
    root = open_campaign(spec, out)
    if executor == "auto":
        big = spec.instances * len(spec.targets) >= PLAIN_THRESHOLD
        executor = "spark" if master or big or _under_spark_submit() else "plain"
    done = finished_shards(spec, root)
    todo = [s for s in range(spec.shards) if s not in done and spec.shard_size(s) > 0]
    ran = _run(spec, root, todo, executor, master, limits)
    t0 = time.perf_counter()
    if executor == "spark" and committed_rows(spec, root) > PLAIN_AGGREGATE_ROWS:
        ran.session = ran.session or _session(master)
        summary, aggregator = aggregate_spark(ran.session, spec, root, examples), "spark-sql"
    else:
        summary, aggregator = aggregate_plain(spec, root, examples), "pyarrow"
    summary["run"] = ran.said(spec, executor, master, len(done), aggregator, time.perf_counter() - t0)
    for t in summary["targets"].values():
        t["unchecked"] = spec.instances - t["rows"]
    write_atomic(root / SUMMARY, json.dumps(summary, indent=1, sort_keys=True) + "\n")
    _write_reproducers(root, summary, limits.budget_s)
    return summary


def _checked(spec: CampaignSpec, executor: str, master: str | None) -> str:
    """The flags, each refused in one line before any work (a bad --master is not a JVM stack trace, a bad
    --target not a stack trace from an executor)."""
    from assigncheck.formats.reproducer import TargetRef
    from assigncheck.spark.session import check_master
    from assigncheck.spec.promises import problem_kind
    from assigncheck.targets.registry import load

    check_master(master)
    if executor not in ("auto", "spark", "plain"):
        raise InputError("--executor", f"must be auto, spark or plain, got {executor!r}")
    for target in spec.targets:  # each profile generates one kind of problem
        kind = problem_kind(load(TargetRef.parse(target)))
        if (kind == "streams") != (spec.profile == "streams"):
            raise InputError("--profile", f"{target} assigns {kind} problems: use "
                                          f"{'--profile streams' if kind == 'streams' else 'a consumer profile'}")
    return executor


def _under_spark_submit() -> bool:
    from assigncheck.spark.session import under_spark_submit

    return under_spark_submit()


def _session(master: str | None) -> Any:
    from assigncheck.spark.session import get_session

    return get_session(master)


@dataclass
class _Ran:
    """The shards this run ran: their results, the session that ran them (None: in this process), the times."""

    results: list[ShardResult]
    session: Any
    startup_seconds: float
    seconds: float

    def said(self, spec: CampaignSpec, executor: str, master: str | None, already_done: int, aggregator: str,
             aggregate_seconds: float) -> dict[str, Any]:
        """The summary's `run` section."""
        fresh = [r for r in self.results if not r.skipped]
        rows = sum(r.rows for r in fresh)
        return {
            "executor": executor if executor == "plain" else f"spark {_master(self.session, master)}",
            "shards_total": spec.shards,
            "shards_already_done": already_done,
            "shards_run": len(fresh),
            "rows_run": rows,
            "startup_seconds": round(self.startup_seconds, 3),
            "seconds": round(self.seconds, 3),
            "rows_per_second": round(rows / self.seconds, 1) if fresh and self.seconds > 0 else None,
            "cpu_seconds": round(sum(r.cpu_seconds for r in fresh), 3),
            "aggregator": aggregator,
            "aggregate_seconds": round(aggregate_seconds, 3),
        }


def _run(spec: CampaignSpec, root: Path, todo: list[int], executor: str, master: str | None, limits: Limits
         ) -> _Ran:
    """Run the shards left to do: on Spark (started only when a shard is left) or in this process."""
    session, startup_seconds = None, 0.0
    if todo and executor == "spark":
        t0 = time.perf_counter()
        session = _start_spark(master, root / SPARK_LOG)
        startup_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    if not todo:
        results: list[ShardResult] = []
    elif session is not None:
        results = _run_spark(session, spec, root, todo, limits)
    else:
        results = list(run_shards(spec, str(root), todo, limits))
    return _Ran(results, session, startup_seconds, time.perf_counter() - t0)


def _master(session: Any, master: str | None) -> str:
    """The master the shards ran on (spark-submit's own when run under it, where asking costs nothing)."""
    from assigncheck.spark.session import DEFAULT_MASTER, get_session, under_spark_submit

    if session is None and under_spark_submit():
        session = get_session(master)
    if session is not None:
        return str(session.sparkContext.master)
    return master or DEFAULT_MASTER


def _write_reproducers(root: Path, summary: dict[str, Any], budget_s: float) -> None:
    """A few raw reproducers per (target, invariant), each replayable alone (`assigncheck replay FILE`), named
    by their instance (`findings.reproducers`)."""
    from assigncheck.findings.reproducers import Reproducers
    from assigncheck.formats.reproducer import TargetRef
    from assigncheck.spec.violations import Violation

    for target, per_target in summary["targets"].items():
        filing = Reproducers(root / "reproducers", "campaign", TargetRef.parse(target), budget_s)
        for invariant, info in per_target["violations"].items():
            for ex in info["examples"]:
                message = next((m for m in ex["messages"] if m.startswith(f"{invariant}:")), "")
                filing.write(problem_from_json(parse_json(ex["reproducer"], "reproducer")),
                             Violation(invariant, message), seed=0, distinct=ex["instance"],
                             how=f"instance {ex['instance']}",
                             extra={"instance": ex["instance"], "campaign": summary["campaign_id"]})


def read_rows(spec: CampaignSpec, out: str | Path) -> list[dict[str, Any]]:
    """Every committed row of a campaign (for tests and small campaigns; large ones stay in Spark)."""
    import pyarrow.parquet as pq

    return [r for f in shard_files(spec, Path(out).resolve()) for r in pq.read_table(f).to_pylist()]
