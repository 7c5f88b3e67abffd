"""Differential campaigns: plan shards on the driver, run them on executors, aggregate with Spark SQL.

Layout of a campaign directory::

    campaign.json                  the parameters (manifest); resuming with other parameters is an InputError
    rows/part-SSSSSS-<id>.parquet  one committed file per shard (see campaign_rows.run_shard)
    summary.json                   the aggregate the gate's reports read
    reproducers/*.json             a few problem files per (target, invariant) that broke

The driver holds only shard ids and per-shard counts, so its memory does not grow with the instance count;
rows live in Parquet and are aggregated by Spark SQL. `executor="plain"` runs the same shard function in this
process (the speedup baseline, and the fallback for runs too small to pay for a JVM).
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from assigncheck.spec.errors import InputError
from assigncheck.spec.json_format import open_manifest, parse_json, write_atomic

from .campaign_rows import NO_LIMITS, ROWS_DIR, CampaignSpec, Limits, ShardResult, run_shards

MANIFEST = "campaign.json"
SUMMARY = "summary.json"
EXAMPLES_PER_INVARIANT = 3
QUANTILES = (0.0, 0.5, 0.9, 0.99, 1.0)
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
    for path in (root / ROWS_DIR).glob("part-*.parquet"):
        match = pattern.fullmatch(path.name)
        if match and int(match.group(1)) < spec.shards:
            done.add(int(match.group(1)))
    return done


def _run_spark(spec: CampaignSpec, root: Path, todo: list[int], master: str | None, limits: Limits
               ) -> list[ShardResult]:
    from .spark import get_session

    sc = get_session(master).sparkContext
    # One partition per shard id: each task is one shard, so a retry redoes exactly one shard file.
    rdd = sc.parallelize(todo, numSlices=len(todo))
    out = str(root)
    return rdd.mapPartitions(lambda shards: run_shards(spec, out, shards, limits)).collect()


def run_campaign(
    spec: CampaignSpec, out: str | Path, *, executor: str = "auto", master: str | None = None,
    examples: int = EXAMPLES_PER_INVARIANT, limits: Limits = NO_LIMITS,
) -> dict[str, Any]:
    """Run (or resume) a campaign and write its summary; returns the summary document. `limits` may cut the
    run short (a deadline, the circuit breaker); the summary's `unchecked` counts say by how much."""
    from assigncheck.impl.registry import load
    from assigncheck.spec.reproducer import TargetRef

    from .spark import under_spark_submit

    for target in spec.targets:  # a bad --target is an InputError here, not a stack trace from an executor
        load(TargetRef.parse(target))
    root = open_campaign(spec, out)
    if executor == "auto":
        big = spec.instances * len(spec.targets) >= PLAIN_THRESHOLD
        executor = "spark" if master or big or under_spark_submit() else "plain"
    if executor not in ("spark", "plain"):
        raise InputError("--executor", f"must be auto, spark or plain, got {executor!r}")
    done = finished_shards(spec, root)
    todo = [s for s in range(spec.shards) if s not in done and spec.shard_size(s) > 0]
    t0 = time.perf_counter()
    if not todo:
        results: list[ShardResult] = []
    elif executor == "spark":
        results = _run_spark(spec, root, todo, master, limits)
    else:
        results = list(run_shards(spec, str(root), todo, limits))
    run_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    if executor == "spark":
        from .spark import get_session

        summary = aggregate_spark(get_session(master), spec, root, examples)
    else:
        summary = aggregate_plain(spec, root, examples)
    aggregate_seconds = time.perf_counter() - t0
    fresh = [r for r in results if not r.skipped]
    summary["run"] = {
        "executor": executor if executor == "plain" else f"spark {_master(master)}",
        "shards_total": spec.shards,
        "shards_already_done": len(done),
        "shards_run": len(fresh),
        "rows_run": sum(r.rows for r in fresh),
        "seconds": round(run_seconds, 3),
        "rows_per_second": round(sum(r.rows for r in fresh) / run_seconds, 1) if fresh and run_seconds > 0 else None,
        "aggregate_seconds": round(aggregate_seconds, 3),
    }
    for t in summary["targets"].values():
        t["unchecked"] = spec.instances - t["rows"]
    write_atomic(root / SUMMARY, json.dumps(summary, indent=1, sort_keys=True) + "\n")
    _write_reproducers(root, summary, limits.budget_s)
    return summary


def _master(master: str | None) -> str:
    from .spark import get_session

    return str(get_session(master).sparkContext.master)


def _write_reproducers(root: Path, summary: dict[str, Any], budget_s: float) -> None:
    """A few raw reproducers per (target, invariant), each replayable alone (`assigncheck replay FILE`)."""
    from assigncheck.spec.check import hang_limit
    from assigncheck.spec.reproducer import Record, TargetRef, save

    for target, per_target in summary["targets"].items():
        ref = TargetRef.parse(target)
        for invariant, info in per_target["violations"].items():
            for ex in info["examples"]:
                name = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{ref.spec}-{invariant}-{ex['instance']}")[:150]
                message = next((m for m in ex["messages"] if m.startswith(f"{invariant}:")), "")
                record = Record(ref, invariant, stage="campaign", seed=0, budget_s=budget_s,
                                hang_s=hang_limit(budget_s), message=message,
                                extra={"instance": ex["instance"], "campaign": summary["campaign_id"]})
                save(parse_json(ex["reproducer"], "reproducer"), record, root / "reproducers" / f"{name}.json",
                     f"assignor: {ref.spec}. campaign finding, instance {ex['instance']}: {message}")


def _header(spec: CampaignSpec) -> dict[str, Any]:
    return {"format": 1, "kind": "campaign-summary", "campaign_id": spec.campaign_id, "campaign": spec.to_json()}


def _rounded(values: Iterable[float | None]) -> list[float | None]:
    return [None if v is None else round(float(v), 6) for v in values]


# ---- aggregation with Spark SQL (the executors scan the Parquet; the driver gets one row per group) ------------


def aggregate_spark(session: Any, spec: CampaignSpec, root: Path, examples: int = EXAMPLES_PER_INVARIANT
                    ) -> dict[str, Any]:
    summary = _header(spec)
    summary["targets"] = {}
    if not finished_shards(spec, root):
        return summary
    from .campaign_rows import ROW_SCHEMA

    ddl = session.createDataFrame([], schema=_spark_schema(ROW_SCHEMA)).schema
    # A glob, not a list of files: the driver's plan does not grow with the shard count.
    pattern = str(root / ROWS_DIR / f"part-*-{spec.campaign_id}.parquet")
    session.read.schema(ddl).parquet(pattern).createOrReplaceTempView("rows")
    q = ", ".join(str(x) for x in QUANTILES)
    per_target = session.sql(f"""
        SELECT target, count(*) AS rows, count(DISTINCT shard) AS shards,
               sum(CASE WHEN ok THEN 0 ELSE 1 END) AS violating,
               percentile_approx(assign_seconds, array({q})) AS assign_q,
               percentile_approx(check_seconds, array({q})) AS check_q,
               sum(check_seconds) AS check_total,
               max(members) AS max_members, max(partitions) AS max_partitions
        FROM rows GROUP BY target ORDER BY target""").collect()
    for r in per_target:
        summary["targets"][r.target] = {
            "rows": r.rows, "violating_rows": r.violating, "violations": {}, "raw": {}, "promises": [],
            "quality": {},
            "assign_seconds": dict(zip(_qnames(), _rounded(r.assign_q or [None] * len(QUANTILES)))),
            "check_seconds": dict(zip(_qnames(), _rounded(r.check_q))),
            "check_seconds_total": round(r.check_total, 3),
            "max_members": r.max_members, "max_partitions": r.max_partitions,
        }
    counts = session.sql("""
        SELECT target, invariant, count(*) AS n FROM rows LATERAL VIEW explode(violated) v AS invariant
        GROUP BY target, invariant ORDER BY target, invariant""").collect()
    for r in counts:
        summary["targets"][r.target]["violations"][r.invariant] = {"rows": r.n, "examples": []}
    picked = session.sql(f"""
        SELECT target, invariant, instance, messages, reproducer FROM (
            SELECT target, invariant, instance, messages, reproducer,
                   row_number() OVER (PARTITION BY target, invariant ORDER BY shard, k) AS nth
            FROM rows LATERAL VIEW explode(violated) v AS invariant)
        WHERE nth <= {int(examples)} ORDER BY target, invariant, nth""").collect()
    for r in picked:
        summary["targets"][r.target]["violations"][r.invariant]["examples"].append(
            {"instance": r.instance, "messages": list(r.messages), "reproducer": r.reproducer})
    raw = session.sql(f"""
        SELECT target, raw_key, instance, reproducer, n FROM (
            SELECT target, raw_key, instance, reproducer,
                   row_number() OVER (PARTITION BY target, raw_key ORDER BY shard, k) AS nth,
                   count(*) OVER (PARTITION BY target, raw_key) AS n
            FROM rows LATERAL VIEW explode(raw_keys) v AS raw_key)
        WHERE nth <= {int(examples)} ORDER BY target, raw_key, nth""").collect()
    for r in raw:
        entry = summary["targets"][r.target]["raw"].setdefault(r.raw_key, {"rows": r.n, "examples": []})
        entry["examples"].append({"instance": r.instance, "reproducer": r.reproducer})
    for r in session.sql("SELECT DISTINCT target, promises FROM rows ORDER BY target, promises").collect():
        summary["targets"][r.target]["promises"].append(r.promises)
    quality = session.sql(f"""
        SELECT target, measure, count(*) AS n, avg(value) AS mean, percentile_approx(value, array({q})) AS qs
        FROM rows LATERAL VIEW explode(quality) qv AS measure, value
        GROUP BY target, measure ORDER BY target, measure""").collect()
    for r in quality:
        summary["targets"][r.target]["quality"][r.measure] = {
            "n": r.n, "mean": round(r.mean, 6), **dict(zip(_qnames(), _rounded(r.qs)))}
    return summary


def _qnames() -> list[str]:
    return ["min" if x == 0 else "max" if x == 1 else f"p{round(x * 100)}" for x in QUANTILES]


def _spark_schema(schema: Any) -> Any:
    """The Spark schema of the row table (from the Arrow one), so every shard file is read the same way."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(schema)


# ---- the same aggregation without Spark (plain executor; small runs only: it loads the columns it needs) -------


def _quantiles(values: list[float]) -> list[float | None]:
    """Like Spark's percentile_approx when exact: the smallest value with at least q of the data at or below it."""
    if not values:
        return [None] * len(QUANTILES)
    ordered = sorted(values)
    n = len(ordered)
    return [ordered[min(n - 1, max(0, math.ceil(round(q * n, 9)) - 1))] for q in QUANTILES]


def aggregate_plain(spec: CampaignSpec, root: Path, examples: int = EXAMPLES_PER_INVARIANT) -> dict[str, Any]:
    import pyarrow.parquet as pq

    summary = _header(spec)
    acc: dict[str, dict[str, Any]] = {}
    files = sorted((root / ROWS_DIR).glob(f"part-*-{spec.campaign_id}.parquet"))
    rows = [r for f in files for r in pq.read_table(f).to_pylist()]
    rows.sort(key=lambda r: (r["target"], r["shard"], r["k"]))
    for r in rows:
        t = acc.setdefault(r["target"], {"rows": 0, "violating": 0, "assign": [], "check": [], "members": 0,
                                         "partitions": 0, "violations": {}, "raw": {}, "promises": set(),
                                         "quality": {}})
        t["promises"].add(r["promises"])
        for key in r["raw_keys"]:
            entry = t["raw"].setdefault(key, {"rows": 0, "examples": []})
            entry["rows"] += 1
            if len(entry["examples"]) < examples:
                entry["examples"].append({"instance": r["instance"], "reproducer": r["reproducer"]})
        t["rows"] += 1
        t["violating"] += 0 if r["ok"] else 1
        if r["assign_seconds"] is not None:
            t["assign"].append(r["assign_seconds"])
        t["check"].append(r["check_seconds"])
        t["members"] = max(t["members"], r["members"])
        t["partitions"] = max(t["partitions"], r["partitions"])
        for inv in r["violated"]:
            v = t["violations"].setdefault(inv, {"rows": 0, "examples": []})
            v["rows"] += 1
            if len(v["examples"]) < examples:
                v["examples"].append({"instance": r["instance"], "messages": r["messages"],
                                      "reproducer": r["reproducer"]})
        for measure, value in r["quality"]:
            t["quality"].setdefault(measure, []).append(value)
    summary["targets"] = {}
    for target in sorted(acc):
        t = acc[target]
        summary["targets"][target] = {
            "rows": t["rows"], "violating_rows": t["violating"],
            "violations": {k: t["violations"][k] for k in sorted(t["violations"])},
            "raw": {k: t["raw"][k] for k in sorted(t["raw"])}, "promises": sorted(t["promises"]),
            "quality": {m: {"n": len(vs), "mean": round(sum(vs) / len(vs), 6),
                            **dict(zip(_qnames(), _rounded(_quantiles(vs))))}
                        for m, vs in sorted(t["quality"].items())},
            "assign_seconds": dict(zip(_qnames(), _rounded(_quantiles(t["assign"])))),
            "check_seconds": dict(zip(_qnames(), _rounded(_quantiles(t["check"])))),
            "check_seconds_total": round(sum(t["check"]), 3),
            "max_members": t["members"], "max_partitions": t["partitions"],
        }
    return summary


def read_rows(spec: CampaignSpec, out: str | Path) -> list[dict[str, Any]]:
    """Every committed row of a campaign (for tests and small campaigns; large ones stay in Spark)."""
    import pyarrow.parquet as pq

    root = Path(out).resolve()
    files = sorted((root / ROWS_DIR).glob(f"part-*-{spec.campaign_id}.parquet"))
    return [r for f in files for r in pq.read_table(f).to_pylist()]
