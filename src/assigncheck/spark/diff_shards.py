"""The one function a Spark task (or the plain executor) runs per shard of a differential campaign: generate
the shard's instances, check every target on each (`diff_rows.check_row`), commit one Parquet file.

Everything here is a pure function of the campaign parameters and the shard number, so a retried task or a
resumed campaign writes the same file under the same name: rows can be neither lost nor duplicated.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from assigncheck.generate.seeded import PROFILES, generate
from assigncheck.run.breaker import HANGS_IN_A_ROW, Breaker
from assigncheck.run.gc import freeze_loaded
from assigncheck.spark.diff_rows import ROW_SCHEMA, check_row, hung, instance_id, loaded_target
from assigncheck.spec.errors import InputError

ROWS_DIR = "rows"


@dataclass(frozen=True)
class CampaignSpec:
    """The parameters that define a campaign; its id is a pure function of them."""

    targets: tuple[str, ...]
    profile: str
    seed: int
    instances: int
    shards: int

    def __post_init__(self) -> None:
        if not self.targets:
            raise InputError("--target", "name at least one target")
        if self.profile not in PROFILES:
            raise InputError("--profile", f"must be one of {', '.join(PROFILES)}, got {self.profile!r}")
        if self.instances < 0:
            raise InputError("--instances", f"must be >= 0, got {self.instances}")
        if self.shards < 1:
            raise InputError("--shards", f"must be >= 1, got {self.shards}")
        if self.seed < 0:
            raise InputError("--seed", f"must be >= 0, got {self.seed}")

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "targets": list(self.targets)}

    @property
    def campaign_id(self) -> str:
        import hashlib
        import json

        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def shard_size(self, shard: int) -> int:
        """Instances of `shard`: N // K each, the first N % K shards one more."""
        base, extra = divmod(self.instances, self.shards)
        return base + (1 if shard < extra else 0)

    def shard_file(self, out: str | os.PathLike[str], shard: int) -> Path:
        """The one committed file of a shard: a pure function of (campaign id, shard)."""
        return Path(out) / ROWS_DIR / f"part-{shard:06d}-{self.campaign_id}.parquet"


@dataclass(frozen=True)
class Limits:
    """How a run may cut a campaign short (never part of its id): H7's CPU budget per call, a wall-clock
    deadline (seconds since the epoch, shared by every process), and the circuit breaker: after this many hangs
    in a row a shard stops sending instances to that target. Instances left out are simply not in the rows."""

    budget_s: float = 10.0
    deadline: float | None = None
    hangs_in_a_row: int = HANGS_IN_A_ROW


NO_LIMITS = Limits()


def shard_rows(spec: CampaignSpec, shard: int, limits: Limits = NO_LIMITS) -> Iterator[dict[str, Any]]:
    """Every row of one shard, in (k, target) order; instance k comes from (seed, shard, k) alone. Past the
    deadline, or for a target whose circuit breaker opened, instances are left out (see `Limits`)."""
    breakers = {target: Breaker(limits.hangs_in_a_row) for target in spec.targets}
    for k in range(spec.shard_size(shard)):
        if limits.deadline is not None and time.time() > limits.deadline:
            return
        instance = generate(spec.profile, spec.seed, shard, k)
        name = instance_id(spec.profile, spec.seed, shard, k)
        for target in spec.targets:
            if breakers[target].open:
                continue
            row = check_row(target, instance, name, shard, k, limits.budget_s)
            breakers[target].count(hung(row))
            yield row


def _write_parquet_atomic(table: pa.Table, path: Path) -> None:
    """Commit = rename: readers (and a resumed campaign) see the whole file or none. The temporary name
    starts with a dot, so Spark and the resume scan both ignore a leftover from a killed run."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            pq.write_table(table, f, compression="zstd")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@dataclass(frozen=True)
class ShardResult:
    shard: int
    rows: int
    violating: int
    seconds: float
    skipped: bool  # already committed (a task retry, or a race with another run)
    cpu_seconds: float = 0.0  # of the process that ran it: the rate's measure that other load cannot inflate


def run_shard(spec: CampaignSpec, out: str, shard: int, limits: Limits = NO_LIMITS) -> ShardResult:
    """Generate, check and commit one shard. Idempotent: an existing committed file is left as it is."""
    path = spec.shard_file(out, shard)
    if path.exists():
        meta = pq.read_metadata(path)
        return ShardResult(shard, meta.num_rows, -1, 0.0, True)
    t0, cpu0 = time.perf_counter(), time.process_time()
    rows = list(shard_rows(spec, shard, limits))
    table = pa.Table.from_pylist(rows, schema=ROW_SCHEMA)
    _write_parquet_atomic(table, path)
    violating = sum(1 for r in rows if not r["ok"])
    return ShardResult(shard, len(rows), violating, time.perf_counter() - t0, False, time.process_time() - cpu0)


def run_shards(spec: CampaignSpec, out: str, shards: Sequence[int] | Iterator[int],
               limits: Limits = NO_LIMITS) -> Iterator[ShardResult]:
    """The body of a Spark `mapPartitions` task, and of the plain executor: shard ids in, results out."""
    for target in spec.targets:  # loaded first, then frozen: a worker keeps them for its next tasks
        loaded_target(target)
    freeze_loaded()
    for shard in shards:
        yield run_shard(spec, out, int(shard), limits)
