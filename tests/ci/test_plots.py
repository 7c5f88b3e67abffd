"""The HTML report's plots mean what they say: quality over valid outputs only, sampling stated, each campaign
target's own time (real matplotlib; the page's layout in a real browser: tests/ci/test_report_page.py)."""

import pytest

from assigncheck.ci import plots
from assigncheck.ci.results import GateResult, StageResult
from assigncheck.ci.stages.campaign import PLOT_ROWS, plot_rows


def _row(target, k, violated=(), withheld=0.0, sum_squares=12.0, retained=3.0):
    """A campaign row as read from its Parquet file (spark/diff_rows.py's schema)."""
    quality = {"sum_squares": sum_squares, "optimal_sum_squares": 10.0, "retained": retained, "max_retained": 4.0,
               "withheld": withheld}
    return {"instance": f"small/0/0/{k}", "target": target, "members": 3, "partitions": 6 + k % 5,
            "violated": list(violated), "quality": sorted(quality.items()), "assign_seconds": 0.001}


def test_an_invalid_output_is_not_plotted_against_the_optimum():
    rows = [_row("range", 0), _row("range", 1, violated=("H5",), sum_squares=2.0, retained=9.0),  # drops partitions
            _row("range", 2, violated=("balance.perfect",), sum_squares=18.0),  # a valid, unbalanced output
            _row("range", 3, withheld=2.0, sum_squares=4.0),  # a cooperative round withholding two partitions
            _row("range", 4, violated=("H7",))]
    plotted, _ = plot_rows(rows, "range", "range", seed=0)
    assert [r["valid"] for r in plotted] == [True, False, True, False, False]
    assert plots.balance_values(plotted) == {"range": [2.0, 8.0]}
    assert plots.retention_values(plotted) == {"range": [0.75, 0.75]}
    assert all(v >= 0 for v in plots.balance_values(plotted)["range"])


def test_plot_rows_are_a_seeded_sample_of_each_target_that_says_so():
    rows = [_row(t, k) for k in range(PLOT_ROWS + 700) for t in ("cmd:a", "cmd:b")]
    plotted, said = plot_rows(rows, "cmd:a", "a", seed=3)
    assert said == {"rows": PLOT_ROWS, "of": PLOT_ROWS + 700, "seed": 3} and len(plotted) == PLOT_ROWS
    assert {r["target"] for r in plotted} == {"a"}
    assert plot_rows(rows, "cmd:a", "a", seed=3)[0] == plotted  # the seed decides which rows
    assert plot_rows(rows, "cmd:a", "a", seed=4)[0] != plotted
    few, said = plot_rows(rows[:20], "cmd:b", "b", seed=3)
    assert len(few) == 10 and said == {"rows": 10, "of": 10, "seed": 3}


def _campaign(target, rows, of, seconds, seed=7):
    return StageResult("campaign", target, seconds, rows=rows, stats={
        "executor_seconds": seconds - 0.5, "campaign_seconds": 40.0,
        "plot_rows": {"rows": len(rows), "of": of, "seed": seed}})


def test_captions_state_the_sampling_what_is_left_out_and_the_campaign_time():
    rows = [{**r, "target": "range"} for r in plot_rows([_row("range", k) for k in range(4)], "range", "range", 0)[0]]
    rows[1] = {**rows[1], "valid": False, "sum_squares": 2.0}
    result = GateResult("quick", ("range", "sticky"), [
        StageResult("properties", "range", 12.0), StageResult("proofs", "range", stats={"skipped": "no model"}),
        _campaign("range", rows, 10_000, 11.5), _campaign("sticky", [{**r, "target": "sticky"} for r in rows],
                                                           10_000, 31.0)])
    assert plots.sampling(result) == "4 of 10,000 campaign rows per target, sampled by seed 7"
    made = {p.title: p for p in plots.plots(result)}
    assert set(made) == {"Time per stage", "Time vs size (campaign instances)", "Stickiness: retained vs the optimum",
                         "Balance: distance from the optimum"}
    balance = made["Balance: distance from the optimum"].caption
    assert balance.startswith("6 of 8 plotted rows: complete valid outputs only") and "seed 7" in balance
    assert "4 of 10,000 campaign rows per target" in made["Time vs size (campaign instances)"].caption
    assert "40.0 s of wall-clock time for all targets" in made["Time per stage"].caption
    for plot in made.values():
        assert plot.png.startswith(b"\x89PNG") and plot.size[0] > 300 and plot.size[1] > 200


def test_sampling_in_words():
    every = GateResult("quick", ("a",), [_campaign("a", [{}] * 5, 5, 1.0)])
    assert plots.sampling(every) == "every campaign row"
    mixed = GateResult("quick", ("a", "b"), [_campaign("a", [{}] * 5, 5, 1.0), _campaign("b", [{}] * 5, 9, 1.0)])
    assert plots.sampling(mixed) == "a: 5 of 5 rows; b: 5 of 9 rows, sampled by seed 7"
    assert plots.sampling(GateResult("quick", ("a",), [StageResult("properties", "a", 1.0)])) == ""


def test_labels_cut_in_the_middle_keep_two_long_names_apart():
    a, b = "sticky-constrained-" + "x" * 60 + "-one", "sticky-constrained-" + "x" * 60 + "-two"
    assert len(plots.label(a)) == plots.LABEL and plots.label(a) != plots.label(b)
    assert plots.label(a).startswith("sticky-constrained-") and plots.label(a).endswith("-one")
    assert plots.label("range") == "range"


@pytest.mark.slow  # a Spark campaign: over a minute on a busy machine
def test_each_campaign_target_gets_its_own_measured_time(tmp_path, spark):
    """Not the campaign's time split evenly: each target's rows' check time in the executors (read back from the
    campaign's own Parquet rows here), plus confirming its findings; the whole campaign's time is a stat."""
    from dataclasses import replace

    import pyarrow.parquet as pq

    from assigncheck.ci.context import PROFILES, Context
    from assigncheck.ci.stages import campaign
    from assigncheck.targets.registry import get, ref_of

    tiny = replace(PROFILES["quick"], campaign_instances=12, campaign_shards=2, campaign_s=300)
    targets = [get("range"), get("roundrobin")]
    results = list(campaign.run(targets, Context(tiny, tmp_path, seed=5)))
    rows = [r for f in sorted((tmp_path / "campaign" / "rows").glob("part-*.parquet"))
            for r in pq.read_table(f).to_pylist()]
    assert [r.target for r in results] == ["range", "roundrobin"] and all(r.ok for r in results)
    own = {t.name: sum(r["check_seconds"] for r in rows if r["target"] == ref_of(t).key()) for t in targets}
    for result in results:
        assert result.stats["executor_seconds"] == pytest.approx(own[result.target], abs=0.01)
        assert result.seconds >= own[result.target] - 0.01
        assert result.stats["campaign_seconds"] == results[0].stats["campaign_seconds"]
        assert result.stats["plot_rows"] == {"rows": 12, "of": 12, "seed": 5}
        assert len(result.rows) == 12 and all(r["valid"] for r in result.rows)  # correct built-ins
    assert results[0].seconds != results[1].seconds
    assert all(v >= 0 for vs in plots.balance_values([r for s in results for r in s.rows]).values() for v in vs)
