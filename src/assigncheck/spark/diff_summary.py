"""The summary of a differential campaign from its committed shard files: per target, violations by invariant
with the first reproducers, quality distributions, time percentiles.

Two aggregators compute the same document: Spark SQL over the Parquet (the executors scan it, the driver gets
one row per group, so its memory does not grow with the campaign), and pyarrow in the driver, which loads the
columns of every row and is used for campaigns of up to `PLAIN_AGGREGATE_ROWS` rows, where a dozen Spark jobs
cost more than reading them (65 s against 1 s for 4,000 rows on a busy one-machine standalone cluster).
Quantiles are exact in pyarrow and `percentile_approx` in Spark SQL (exact too below 10,000 values per group).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from assigncheck.spark.diff_rows import ROW_SCHEMA
from assigncheck.spark.diff_shards import ROWS_DIR, CampaignSpec

EXAMPLES_PER_INVARIANT = 3
QUANTILES = (0.0, 0.5, 0.9, 0.99, 1.0)
PLAIN_AGGREGATE_ROWS = 50_000  # ~1 KB of Python objects per row in the driver


def shard_files(spec: CampaignSpec, root: Path) -> list[Path]:
    """The committed shard files (a glob: temporary files of a killed run start with '.' and do not match)."""
    return sorted((root / ROWS_DIR).glob(f"part-*-{spec.campaign_id}.parquet"))


def committed_rows(spec: CampaignSpec, root: Path) -> int:
    """Rows in the committed shard files, from their Parquet footers (no row is read)."""
    return sum(pq.read_metadata(f).num_rows for f in shard_files(spec, root))


def _header(spec: CampaignSpec) -> dict[str, Any]:
    return {"format": 1, "kind": "campaign-summary", "campaign_id": spec.campaign_id, "campaign": spec.to_json()}


def _rounded(values: Iterable[float | None]) -> list[float | None]:
    return [None if v is None else round(float(v), 6) for v in values]


# ---- aggregation with Spark SQL (the executors scan the Parquet; the driver gets one row per group) ------------


def aggregate_spark(session: Any, spec: CampaignSpec, root: Path, examples: int = EXAMPLES_PER_INVARIANT
                    ) -> dict[str, Any]:
    summary = _header(spec)
    summary["targets"] = {}
    if not shard_files(spec, root):
        return summary
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
    summary = _header(spec)
    acc: dict[str, dict[str, Any]] = {}
    rows = [r for f in shard_files(spec, root) for r in pq.read_table(f).to_pylist()]
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


