"""Differential campaigns: deterministic shards, atomic commits, resume after a kill, Spark == plain Python."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assigncheck.ci.cli import main as cli_main
from assigncheck.formats.documents import dumps, load_problem, problem_to_json
from assigncheck.generate.seeded import generate
from assigncheck.run.assignor_check import check_assignor
from assigncheck.spark.diff import SUMMARY, finished_shards, read_rows, run_campaign
from assigncheck.spark.diff_rows import parse_instance_id, regenerate
from assigncheck.spark.diff_shards import CampaignSpec, run_shard
from assigncheck.spark.diff_summary import aggregate_plain
from assigncheck.spec.errors import InputError
from assigncheck.spec.model import Assignment, Problem, iter_pairs
from assigncheck.spec.promises import Promises

CLEAN = "tests.spark.test_diff:ClaimsFirst"
BROKEN = "tests.spark.test_diff:DropsOnePartition"
TIMINGS = ("assign_seconds", "check_seconds")


class ClaimsFirst:
    """A test target that meets H1-H6 on every consumer problem by construction (and promises nothing
    more): each partition of a subscribed topic goes to the first subscribed member (by id) that claims it,
    else, when nobody subscribed claims it, to the first subscriber; a partition only unsubscribed
    members claim is withheld in a cooperative round (H5 allows it, H6 requires it)."""

    name = "claims-first"
    promises = Promises()

    def assign(self, problem: Problem) -> Assignment:
        out: dict[str, list[tuple[str, int]]] = {m.member_id: [] for m in problem.members}
        claims: dict[tuple[str, int], list[str]] = {}
        for m in problem.members:
            for tp in iter_pairs(m.owned):
                claims.setdefault(tp, []).append(m.member_id)
        for topic in problem.subscribed_topics():
            subscribers = sorted(m.member_id for m in problem.subscribers(topic))
            for i in range(problem.topics[topic]):
                claimants = sorted(set(claims.get((topic, i), ())))
                mine = [c for c in claimants if c in subscribers]
                if mine:
                    out[mine[0]].append((topic, i))
                elif not claimants or problem.protocol == "eager":
                    out[subscribers[0]].append((topic, i))
        return Assignment.of(out)


class DropsOnePartition(ClaimsFirst):
    """A planted bug for the campaign to find: one partition missing when the group has an odd size."""

    name = "drops-one-partition"

    def assign(self, problem: Problem) -> Assignment:
        lists = super().assign(problem).as_lists()
        if len(problem.members) % 2 == 1:
            for member in sorted(lists):
                for topic in sorted(lists[member]):
                    if lists[member][topic]:
                        lists[member][topic] = lists[member][topic][1:]
                        return Assignment.of(lists)
        return Assignment.of(lists)


class DiesOnce(ClaimsFirst):
    """ClaimsFirst, except that the first call in a Spark Python worker kills that worker (a lost executor), once
    per marker file named by ASSIGNCHECK_TEST_DIE_ONCE. The driver's calls (the start-up probe of every outside
    target) never die."""

    name = "dies-once"

    def assign(self, problem: Problem) -> Assignment:
        if "pyspark.worker" not in sys.modules:  # not a Spark worker: the driver
            return super().assign(problem)
        marker = Path(os.environ["ASSIGNCHECK_TEST_DIE_ONCE"])
        try:
            marker.touch(exist_ok=False)
        except FileExistsError:
            return super().assign(problem)
        os._exit(3)


def comparable(rows: list[dict]) -> list[tuple]:
    """Rows without their timings, sorted: what two runs of one campaign must agree on exactly."""
    return sorted(tuple((k, json.dumps(v, sort_keys=True)) for k, v in r.items() if k not in TIMINGS) for r in rows)


def small(instances: int = 48, shards: int = 6, targets: tuple[str, ...] = (CLEAN,), seed: int = 11) -> CampaignSpec:
    return CampaignSpec(targets, "small", seed, instances, shards)


def test_instance_ids_round_trip_and_bad_ones_name_the_field():
    assert parse_instance_id("small/7/3/42") == ("small", 7, 3, 42)
    for bad in ("small/7/3", "tiny/7/3/42", "small/x/3/42", "small/7/-3/42"):
        with pytest.raises(InputError) as e:
            parse_instance_id(bad)
        assert e.value.path == "instance"


def test_shards_split_the_instances_and_the_id_follows_every_parameter():
    spec = small(instances=103, shards=10)
    sizes = [spec.shard_size(s) for s in range(spec.shards)]
    assert sum(sizes) == 103 and max(sizes) - min(sizes) == 1
    others = [small(instances=104, shards=10), small(instances=103, shards=11), small(instances=103, seed=12),
              CampaignSpec(("range", "roundrobin"), "small", 11, 103, 10),
              CampaignSpec(("range",), "kafka-like", 11, 103, 10)]
    assert len({spec.campaign_id, *(o.campaign_id for o in others)}) == 1 + len(others)
    for field, kwargs in (("--profile", {"profile": "tiny"}), ("--shards", {"shards": 0}),
                          ("--instances", {"instances": -1}), ("--target", {"targets": ()})):
        with pytest.raises(InputError) as e:
            CampaignSpec(**{"targets": ("range",), "profile": "small", "seed": 0, "instances": 1, "shards": 1,
                            **kwargs})
        assert e.value.path == field


def test_rows_regenerate_from_their_instance_id_alone(tmp_path):
    spec = small(instances=24, shards=3, targets=(CLEAN, BROKEN))
    run_campaign(spec, tmp_path, executor="plain")
    rows = read_rows(spec, tmp_path)
    assert len(rows) == 24 * 2
    assert len({(r["instance"], r["target"]) for r in rows}) == len(rows)
    for r in rows:
        problem = regenerate(r["instance"])
        assert dumps(problem_to_json(problem)) == dumps(problem_to_json(generate("small", 11, r["shard"], r["k"])))
        assert r["members"] == len(problem.members) and r["partitions"] == problem.partition_count
        quality = dict(r["quality"])
        assert quality["balance_gap"] == quality["sum_squares"] - quality["optimal_sum_squares"]
        if "max_retained" in quality:
            assert quality["retained_gap"] == quality["max_retained"] - quality["retained"]
        if r["ok"]:
            assert r["reproducer"] is None and r["violated"] == []
        else:
            assert r["reproducer"] == dumps(problem_to_json(problem))
    assert any(not r["ok"] for r in rows if r["target"] == BROKEN), "the planted bug must show up"
    assert all(r["ok"] for r in rows if r["target"] == CLEAN)


def test_a_shard_is_committed_once_and_rerunning_it_changes_nothing(tmp_path):
    spec = small(instances=10, shards=2)
    first = run_shard(spec, str(tmp_path), 1)
    path = spec.shard_file(tmp_path, 1)
    content, mtime = path.read_bytes(), path.stat().st_mtime_ns
    again = run_shard(spec, str(tmp_path), 1)  # what a Spark task retry does
    assert not first.skipped and again.skipped and again.rows == first.rows == 5
    assert path.read_bytes() == content and path.stat().st_mtime_ns == mtime
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_resume_runs_only_the_missing_shards(tmp_path):
    spec = small(instances=30, shards=6)
    full = run_campaign(spec, tmp_path, executor="plain")
    before = comparable(read_rows(spec, tmp_path))
    assert full["run"]["shards_run"] == 6
    spec.shard_file(tmp_path, 2).unlink()
    spec.shard_file(tmp_path, 5).unlink()
    (tmp_path / "rows" / f".{spec.shard_file(tmp_path, 5).name}.999.tmp").write_bytes(b"torn")  # a killed write
    assert finished_shards(spec, tmp_path) == {0, 1, 3, 4}
    resumed = run_campaign(spec, tmp_path, executor="plain")
    assert (resumed["run"]["shards_run"], resumed["run"]["shards_already_done"]) == (2, 4)
    assert comparable(read_rows(spec, tmp_path)) == before
    again = run_campaign(spec, tmp_path, executor="plain")
    assert again["run"]["shards_run"] == 0 and again["targets"][CLEAN]["rows"] == 30


def test_resuming_with_other_parameters_is_an_input_error(tmp_path):
    run_campaign(small(instances=6, shards=2), tmp_path, executor="plain")
    with pytest.raises(InputError) as e:
        run_campaign(small(instances=6, shards=2, seed=12), tmp_path, executor="plain")
    assert e.value.path == "--seed"
    with pytest.raises(InputError) as e:
        run_campaign(small(instances=6, shards=3), tmp_path, executor="plain")
    assert e.value.path == "--shards"


def test_violations_are_summarised_with_reproducers_and_the_cli_exits_1(tmp_path, capsys):
    out = tmp_path / "c"
    code = cli_main(["campaign", "diff", "--target", CLEAN, "--target", BROKEN, "--profile", "small",
                     "--seed", "3", "--instances", "40", "--shards", "4", "--out", str(out), "--executor", "plain"])
    printed = capsys.readouterr().out
    assert code == 1
    summary = json.loads((out / SUMMARY).read_text())
    broken = summary["targets"][BROKEN]
    assert summary["targets"][CLEAN]["violating_rows"] == 0
    assert broken["violating_rows"] > 0 and "H5" in broken["violations"]
    assert broken["violations"]["H5"]["rows"] <= broken["violating_rows"]
    assert f"{BROKEN}: 40 rows, {broken['violating_rows']} violating rows" in printed
    files = sorted((out / "reproducers").glob("*.json"))
    assert files, "reproducer files are written"
    for f in files:  # each reproduces its violation alone
        problem = load_problem(f)
        _, report = check_assignor(DropsOnePartition(), problem)
        assert not report.ok
    assert cli_main(["replay", str(files[0]), "--target", BROKEN]) == 1  # the fuzz verb confirms it too
    assert cli_main(["replay", str(files[0]), "--target", CLEAN]) == 0
    assert set(summary["targets"][CLEAN]["quality"]) >= {"retained", "moves", "sum_squares"}
    clean = cli_main(["campaign", "diff", "--target", CLEAN, "--instances", "8", "--shards", "2",
                      "--out", str(tmp_path / "clean"), "--executor", "plain"])
    assert clean == 0


def test_show_row_prints_the_regenerated_problem(capsys):
    assert cli_main(["campaign", "show-row", "small/5/2/7"]) == 0
    assert json.loads(capsys.readouterr().out) == problem_to_json(generate("small", 5, 2, 7))
    assert cli_main(["campaign", "show-row", "small/5/2"]) == 2
    capsys.readouterr()
    assert cli_main(["campaign", "show-row", "churn/5/2/7"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["kind"] == "scenario" and doc["steps"]


def test_spark_and_plain_python_give_the_same_rows_and_summary(spark, tmp_path):
    spec = small(instances=60, shards=5, targets=(CLEAN, BROKEN))
    plain = run_campaign(spec, tmp_path / "plain", executor="plain")
    spark_summary = run_campaign(spec, tmp_path / "spark", executor="spark", master="local[2]")
    run = spark_summary["run"]
    # the session is one per process: local[2], or the local master an earlier test of this process started
    assert run["executor"].startswith("spark local[") and run["aggregator"] == "pyarrow"  # 120 rows: read in the driver
    assert run["startup_seconds"] > 0 and run["cpu_seconds"] > 0 and run["rows_run"] == 120
    assert comparable(read_rows(spec, tmp_path / "spark")) == comparable(read_rows(spec, tmp_path / "plain"))
    for target in spec.targets:
        s, p = spark_summary["targets"][target], plain["targets"][target]
        for key in ("rows", "violating_rows", "violations", "quality", "max_members", "max_partitions"):
            assert s[key] == p[key], (target, key)


@pytest.mark.slow  # two aggregations of one campaign: 20 s
def test_spark_sql_and_pyarrow_aggregate_the_same_summary(spark, tmp_path, monkeypatch):
    """Large campaigns are summarised by Spark SQL, small ones in the driver: both give the same document."""
    from assigncheck.spark import diff

    spec = small(instances=60, shards=5, targets=(CLEAN, BROKEN))
    monkeypatch.setattr(diff, "PLAIN_AGGREGATE_ROWS", 100)  # this campaign's 120 rows count as large
    by_sql = run_campaign(spec, tmp_path, executor="spark", master="local[2]")
    assert by_sql["run"]["aggregator"] == "spark-sql"
    by_arrow = aggregate_plain(spec, tmp_path)
    assert by_arrow["targets"][BROKEN]["violations"], "the planted bug's examples are compared too"
    for t in by_arrow["targets"].values():
        t["unchecked"] = 0  # run_campaign's own addition to each target
    assert {k: v for k, v in by_sql.items() if k != "run"} == by_arrow


_RESUME = """
import sys
from assigncheck.spark.diff import run_campaign
from assigncheck.spark.diff_shards import CampaignSpec
summary = run_campaign(CampaignSpec(({target!r},), "small", 11, 12, 3), {out!r}, executor="spark")
print(summary["run"]["shards_run"], summary["targets"][{target!r}]["rows"], "pyspark" in sys.modules)
"""


def test_resuming_a_finished_campaign_starts_no_spark(tmp_path):
    run_campaign(small(instances=12, shards=3), tmp_path, executor="plain")
    code = _RESUME.format(target=CLEAN, out=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.split() == ["0", "12", "False"]


def _kill_midway_then_resume(tmp_path: Path, subprocess_flags: list[str]) -> None:
    """Start `assigncheck campaign diff` in a subprocess, SIGKILL it (and its JVM and workers) once a few shards
    are committed, resume with Spark in this process, and compare with an uninterrupted run."""
    spec = small(instances=300, shards=30, targets=("range",), seed=21)
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "assigncheck.ci", "campaign", "diff", "--target", "range", "--profile", "small",
           "--seed", "21", "--instances", "300", "--shards", "30", "--out", str(out), *subprocess_flags]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while len(finished_shards(spec, out)) < 3 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    done = finished_shards(spec, out)
    assert 3 <= len(done) < spec.shards, f"the kill must land mid-campaign, {len(done)} shards were done"
    resumed = run_campaign(spec, out, executor="spark", master="local[2]")
    assert resumed["run"]["shards_already_done"] == len(done)
    assert resumed["run"]["shards_run"] == spec.shards - len(done)
    assert resumed["targets"]["range"]["rows"] == 300  # a torn temporary file of the killed run is not read
    rows = read_rows(spec, out)
    assert len(rows) == 300 and len({r["instance"] for r in rows}) == 300
    run_campaign(spec, tmp_path / "whole", executor="plain")
    assert comparable(rows) == comparable(read_rows(spec, tmp_path / "whole"))


def test_a_killed_campaign_resumes_with_no_lost_and_no_duplicated_rows(spark, tmp_path):
    _kill_midway_then_resume(tmp_path, ["--executor", "plain"])


@pytest.mark.slow
def test_a_killed_spark_campaign_resumes_with_no_lost_and_no_duplicated_rows(spark, tmp_path):
    _kill_midway_then_resume(tmp_path, ["--master", "local[1]"])


def test_an_unknown_target_is_one_line_and_exit_2(tmp_path, capsys):
    code = cli_main(["campaign", "diff", "--target", "no-such-assignor", "--instances", "4", "--out", str(tmp_path)])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--target" in err and "no-such-assignor" in err


@pytest.mark.slow
def test_spark_task_retries_do_not_duplicate_rows(spark, tmp_path):
    """A worker dies in the middle of a shard; Spark (`local[2,4]`: up to 4 attempts) retries the task."""
    spec = CampaignSpec(("tests.spark.test_diff:DiesOnce",), "small", 5, 40, 4)
    out = tmp_path / "retried"
    env = {**os.environ, "ASSIGNCHECK_TEST_DIE_ONCE": str(tmp_path / "died")}
    cmd = [sys.executable, "-m", "assigncheck.ci", "campaign", "diff", "--target", spec.targets[0],
           "--seed", "5", "--instances", "40", "--shards", "4", "--out", str(out), "--master", "local[2,4]"]
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    assert (tmp_path / "died").exists(), "a worker really died"
    rows = read_rows(spec, out)
    assert len(rows) == 40 and len({r["instance"] for r in rows}) == 40
    reference = small(instances=40, shards=4, seed=5)
    run_campaign(reference, tmp_path / "reference", executor="plain")
    strip = [{**r, "target": ""} for r in rows]
    assert comparable(strip) == comparable([{**r, "target": ""} for r in read_rows(reference, tmp_path / "reference")])


def test_churn_rows_check_every_rebalance_of_the_scenario(tmp_path):
    spec = CampaignSpec((CLEAN, BROKEN), "churn", 4, 8, 2)
    run_campaign(spec, tmp_path, executor="plain")
    rows = read_rows(spec, tmp_path)
    assert len(rows) == 16
    for r in rows:
        scenario = regenerate(r["instance"])
        quality = dict(r["quality"])
        assert quality["scenario_rounds"] >= 1 + len(scenario.steps)  # round 0, then one or more per step
        if not r["ok"]:  # the reproducer is the one rebalance that broke, a plain problem file
            assert json.loads(r["reproducer"])["kind"] == "consumer"
    assert all(r["ok"] for r in rows if r["target"] == CLEAN)
    assert any(not r["ok"] for r in rows if r["target"] == BROKEN)


class StreamsDropsTask:
    """`streams-sticky` with a planted bug: the first client (by id) loses one task when there are 5+ tasks."""

    name = "streams-drops-task"
    problem_kind = "streams"
    promises = Promises()

    def assign(self, problem):
        from assigncheck.impl.streams import assign_streams

        out = {c: list(iter_pairs(tasks)) for c, tasks in assign_streams(problem).by_member.items()}
        if problem.task_count >= 5 and out:
            first = min(out)
            out[first] = out[first][1:]
        return Assignment.of(out)


def test_the_streams_profile_campaign_passes_streams_sticky_and_finds_a_planted_bug(tmp_path):
    spec = CampaignSpec(("streams-sticky", "tests.spark.test_diff:StreamsDropsTask"), "streams", 3, 60, 2)
    summary = run_campaign(spec, tmp_path / "c", executor="plain")
    rows = read_rows(spec, tmp_path / "c")
    assert len(rows) == 120
    assert all(r["protocol"] == "streams" for r in rows)
    sticky = [r for r in rows if r["target"] == "streams-sticky"]
    assert all(r["ok"] for r in sticky), [r["messages"] for r in sticky if not r["ok"]]
    broken = summary["targets"]["tests.spark.test_diff:StreamsDropsTask"]
    assert broken["violating_rows"] > 0
    bad = next(r for r in rows if r["target"].endswith("StreamsDropsTask") and not r["ok"])
    assert "streams.active_once" in bad["violated"]
    assert str(regenerate(bad["instance"]).subtopologies) == str(generate("streams", 3, bad["shard"],
                                                                           bad["k"]).subtopologies)


def test_a_campaign_refuses_a_profile_of_the_other_problem_kind(tmp_path):
    with pytest.raises(InputError) as e:
        run_campaign(CampaignSpec(("streams-sticky",), "small", 1, 4, 1), tmp_path / "a", executor="plain")
    assert e.value.path == "--profile"
    with pytest.raises(InputError) as e:
        run_campaign(CampaignSpec(("range",), "streams", 1, 4, 1), tmp_path / "b", executor="plain")
    assert e.value.path == "--profile"
