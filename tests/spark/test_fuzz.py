"""Fuzz campaigns: atheris jobs as Spark tasks, corpus merged and findings deduplicated across tasks and rounds."""

from __future__ import annotations

import json

import pytest

from assigncheck.ci.cli import main as cli_main
from assigncheck.formats.documents import load_problem
from assigncheck.run.assignor_check import check_assignor
from assigncheck.spark.fuzz import FuzzCampaign, run_fuzz_campaign, slug, task_seed
from assigncheck.spec.errors import InputError

from .test_diff import BROKEN, DropsOnePartition


def test_task_seeds_differ_per_task_round_and_target_and_are_stable():
    seeds = {task_seed(0, r, t, i) for r in range(3) for t in ("range", "sticky") for i in range(4)}
    assert len(seeds) == 24 and all(1 <= s < 2**31 for s in seeds)
    assert task_seed(0, 1, "range", 2) == task_seed(0, 1, "range", 2)
    assert slug("cmd:java -cp x Y") != slug("cmd:java -cp x Z") and "/" not in slug("cmd:a/b c")


def test_bad_parameters_name_the_flag(tmp_path):
    with pytest.raises(InputError) as e:
        FuzzCampaign(("range",), rounds=0, seconds=1)
    assert e.value.path == "--rounds"
    run_fuzz_campaign(FuzzCampaign(("codec:assignment",), 1, 1, 1), tmp_path, executor="plain")
    with pytest.raises(InputError) as e:
        run_fuzz_campaign(FuzzCampaign(("codec:assignment",), 1, 2, 1), tmp_path, executor="plain")
    assert e.value.path == "--seconds"


def test_a_planted_bug_is_found_minimized_and_deduplicated_across_tasks_and_rounds(spark, tmp_path, capsys):
    out = tmp_path / "fz"
    code = cli_main(["campaign", "fuzz", "--target", BROKEN, "--rounds", "2", "--seconds", "4", "--tasks", "2",
                     "--seed", "3", "--out", str(out), "--master", "local[2]"])
    assert code == 1
    summary = json.loads((out / "summary.json").read_text())
    t = summary["targets"][BROKEN]
    assert t["tasks"] == 4 and t["execs"] > 0 and t["corpus"] > 0
    files = [f["reproducer"] for f in t["findings"]]
    assert files and len(files) == len(set(files)), "each finding is reported once"
    assert "H5" in {f["invariant"] for f in t["findings"]}
    for f in files:
        problem = load_problem(f)
        _, report = check_assignor(DropsOnePartition(), problem)
        assert not report.ok
        assert len(problem.members) <= 3, "minimized"
    corpus = sorted((out / "corpus" / slug(BROKEN)).iterdir())
    assert len({p.read_bytes() for p in corpus}) == len(corpus), "the merged corpus has no duplicates"
    rounds = [json.loads((out / "rounds" / str(r) / "_DONE").read_text()) for r in range(2)]
    assert [len(r) for r in rounds] == [2, 2]
    assert len({task["seed"] for r in rounds for task in r}) == 4
    # Resuming a finished campaign runs nothing and reports the same.
    again = run_fuzz_campaign(FuzzCampaign((BROKEN,), 2, 4, 2, 3), out, master="local[2]")
    assert again == summary
    assert f"{BROKEN}: corpus {t['corpus']}" in capsys.readouterr().out


def test_an_unknown_fuzz_target_is_an_input_error(tmp_path):
    with pytest.raises(InputError) as e:
        run_fuzz_campaign(FuzzCampaign(("no.such.module:Nothing",), 1, 1, 1), tmp_path, executor="plain")
    assert e.value.path == "--target"
