"""Campaigns on a real standalone Spark cluster: a master and a worker started with pyspark's own `spark-class` on
127.0.0.1, campaigns run through the CLI with `--master spark://127.0.0.1:P` (one subprocess per campaign: a
Python process holds one SparkContext, and this one may hold the suite's local session).

Targets outside the installed packages reach the executors through the worker's PYTHONPATH, as a user's
package installed on a real cluster's workers would. Each Spark run costs a driver JVM and an executor JVM
(20-40 s on the shared 2-core machine), so the default suite runs one diff campaign; a lost shard's rerun and a
fuzz campaign are `slow`."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from assigncheck.ci.cli import main as cli_main
from assigncheck.spark.diff import read_rows, run_campaign
from assigncheck.spark.diff_shards import CampaignSpec
from assigncheck.spark.standalone import standalone_cluster
from tests.paths import ROOT

from .test_diff import comparable

PLANTED = "tests.fixtures.broken_assignors:SameGenerationBothKeep"  # keeps double claims: H4


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with standalone_cluster(tmp_path_factory.mktemp("cluster"), cores=2, pythonpath=(str(ROOT),)) as running:
        yield running
    assert running.members() == [], "the daemons, executors and Python workers are all gone"
    host, port = running.url.removeprefix("spark://").split(":")
    with pytest.raises(OSError):
        socket.create_connection((host, int(port)), timeout=2).close()


def _cli(args: list[str]) -> subprocess.CompletedProcess[str]:
    """The CLI as a user runs it, from the repository root; no SPARK_LOCAL_IP: a loopback master is enough."""
    return subprocess.run([sys.executable, "-m", "assigncheck.ci", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def _apps(cluster) -> list[Path]:
    """Applications the worker ran executors for (one directory each)."""
    return sorted((cluster.logs / "worker").glob("app-*"))


def _diff(cluster, out: Path, instances: int, shards: int) -> list[str]:
    return ["campaign", "diff", "--target", PLANTED, "--target", "range", "--profile", "small", "--seed", "3",
            "--instances", str(instances), "--shards", str(shards), "--out", str(out), "--master", cluster.url]


def _spec(out: Path) -> CampaignSpec:
    manifest = json.loads((out / "campaign.json").read_text())["campaign"]
    return CampaignSpec(**{**manifest, "targets": tuple(manifest["targets"])})


def _run(out: Path) -> dict:
    return json.loads((out / "summary.json").read_text())["run"]


@pytest.mark.slow  # a standalone master and worker: about a minute
def test_a_diff_campaign_on_the_cluster_gives_the_plain_rows_and_reproducers_and_resumes(cluster, tmp_path):
    out = tmp_path / "diff"
    apps = len(_apps(cluster))
    first = _cli(_diff(cluster, out, 120, 4))
    assert first.returncode == 1, first.stderr[-3000:]
    assert len(_apps(cluster)) == apps + 1, "the worker's executors ran the shards"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["executor"] == f"spark {cluster.url}" and summary["run"]["shards_run"] == 4
    spec = _spec(out)
    rows = read_rows(spec, out)
    assert len(rows) == 240 and len({(r["instance"], r["target"]) for r in rows}) == 240
    assert {t: sum(r["target"] == t for r in rows) for t in spec.targets} == {PLANTED: 120, "range": 120}
    assert summary["targets"]["range"]["violating_rows"] == 0
    assert "H4" in summary["targets"][PLANTED]["violations"]
    run_campaign(spec, tmp_path / "plain", executor="plain")
    assert comparable(rows) == comparable(read_rows(spec, tmp_path / "plain"))

    files = sorted((out / "reproducers").glob("*.json"))
    assert files and all(PLANTED in json.loads(f.read_text())["note"] for f in files)
    for f in files:  # each replays alone, from its file (target and promises travel in it)
        assert cli_main(["replay", str(f)]) == 1

    again = _cli(_diff(cluster, out, 120, 4))  # every shard is committed: nothing runs, and no Spark starts
    assert again.returncode == 1 and len(_apps(cluster)) == apps + 1
    assert (_run(out)["shards_run"], _run(out)["shards_already_done"]) == (0, 4)


@pytest.mark.slow
def test_a_lost_shard_and_only_it_reruns_on_the_cluster(cluster, tmp_path):
    out = tmp_path / "diff"
    assert _cli(_diff(cluster, out, 40, 4)).returncode == 1
    spec = _spec(out)
    rows = read_rows(spec, out)
    lost = spec.shard_file(out, 2)
    kept = {p: p.read_bytes() for p in lost.parent.glob("part-*") if p != lost}
    lost.unlink()
    apps = len(_apps(cluster))
    again = _cli(_diff(cluster, out, 40, 4))
    assert again.returncode == 1 and len(_apps(cluster)) == apps + 1, again.stderr[-3000:]
    assert (_run(out)["shards_run"], _run(out)["shards_already_done"]) == (1, 3)
    assert {p: p.read_bytes() for p in kept} == kept, "committed shards are not rewritten"
    assert lost.exists() and comparable(read_rows(spec, out)) == comparable(rows)


@pytest.mark.slow
def test_a_fuzz_campaign_on_the_cluster_finds_the_planted_bug_and_resumes(cluster, tmp_path):
    out = tmp_path / "fuzz"
    flags = ["campaign", "fuzz", "--target", PLANTED, "--rounds", "1", "--seconds", "3", "--tasks", "2",
             "--seed", "1", "--out", str(out), "--master", cluster.url]
    apps = len(_apps(cluster))
    first = _cli(flags)
    assert first.returncode == 1, first.stderr[-3000:]
    assert len(_apps(cluster)) == apps + 1, "the worker's executors ran the fuzz tasks"
    summary = json.loads((out / "summary.json").read_text())
    t = summary["targets"][PLANTED]
    assert t["tasks"] == 2 and t["failed_tasks"] == 0 and t["execs"] > 0
    assert "H4" in {f["invariant"] for f in t["findings"]}
    for f in t["findings"]:
        assert cli_main(["replay", f["reproducer"]]) == 1

    marker = out / "rounds" / "0" / "_DONE"
    done = marker.read_bytes(), marker.stat().st_mtime_ns
    again = _cli(flags)  # a finished campaign: no task runs, the summary is the same
    assert again.returncode == 1 and len(_apps(cluster)) == apps + 1
    assert (marker.read_bytes(), marker.stat().st_mtime_ns) == done
    assert json.loads((out / "summary.json").read_text()) == summary
