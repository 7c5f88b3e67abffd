"""Gate stage `campaign`: one Spark differential campaign over every consumer-group target at once, and one
over every Streams task assignor.

Consumer instances come from the `small` profile (every junk claim kind, cooperative rounds); Streams ones
from the `streams` profile (capacities, previous actives and standbys, junk task claims), where `streams-sticky`
is checked against the Streams invariants and, through its `exact` promise, the reference assignor. The
executors load each
target by its reference, promises included, and each row says which promises it was checked against. The
campaign belongs to this gate run (its own directory), has its own budget and a circuit breaker for hanging
targets. Each target's result carries its per-instance rows (size, time, quality) for the HTML report's plots.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Sequence
from typing import Any

from assigncheck.ci.context import Context, Progress
from assigncheck.ci.results import StageResult, Work
from assigncheck.ci.stages import guarded
from assigncheck.findings.confirm import Candidate, settle
from assigncheck.findings.reproducers import NOT_MINIMIZED
from assigncheck.findings.signature import raw_key
from assigncheck.formats.documents import problem_from_json
from assigncheck.formats.json_input import parse_json
from assigncheck.run.breaker import HANGS_IN_A_ROW
from assigncheck.spec.promises import Assignor, problem_kind
from assigncheck.spec.violations import Violation

PLOT_ROWS = 5000  # per target: enough points for the plots, bounded whatever the campaign size
_PLOTTED = ("retained", "max_retained", "sum_squares", "optimal_sum_squares")
# An output breaking one of these is no assignment of the problem (or none came back): the plots of its quality
# leave it out (one that drops partitions would "beat" the optimal balance).
_INVALID_OUTPUT = frozenset({"H1", "H2", "H3", "H4", "H5", "H6", "H7", "harness.error"})


def _plot_row(r: dict[str, Any], name: str) -> dict[str, Any]:
    quality = dict(r.get("quality") or [])
    valid = not _INVALID_OUTPUT.intersection(r["violated"]) and not quality.get("withheld")
    return {"target": name, "partitions": r["partitions"], "members": r["members"],
            "ms": None if r.get("assign_seconds") is None else r["assign_seconds"] * 1000,
            **{k: quality.get(k) for k in _PLOTTED}, "valid": valid}


def plot_rows(rows: list[dict[str, Any]], key: str, name: str, seed: int
              ) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """One target's rows for the plots: all of them, or PLOT_ROWS drawn by `seed` (in campaign order; the same
    instances for every target that checked them all), and how they were chosen (`stats["plot_rows"]`, which
    the plots state)."""
    mine = [r for r in rows if r["target"] == key]
    everyone = range(len(mine))
    keep = everyone if len(mine) <= PLOT_ROWS else sorted(random.Random(seed).sample(everyone, PLOT_ROWS))
    return [_plot_row(mine[i], name) for i in keep], {"rows": len(keep), "of": len(mine), "seed": seed}


def _candidates(target: Assignor, per: dict[str, Any], budget_s: float) -> list[Candidate]:
    """The campaign's example problems per raw key, each with the violation the target shows on it."""
    from assigncheck.findings.replay import check

    found = []
    for key, info in per.get("raw", {}).items():
        invariant, _, cause = key.partition("|")
        for ex in info["examples"]:
            problem = problem_from_json(parse_json(ex["reproducer"], "campaign row"))
            if cause in NOT_MINIMIZED:  # checking it again would wait out the hang limit: take the row's word
                found.append(Candidate(problem, Violation(invariant, "did not finish within the hang limit in the "
                                                          "campaign", cause=cause), 0, f"instance {ex['instance']}"))
                break
            violation = next((v for v in check(target, problem, 0, budget_s) if raw_key(v) == key), None)
            if violation is not None:  # one that does not recur on its own is not a candidate
                found.append(Candidate(problem, violation, 0, f"campaign instance {ex['instance']}"))
    return found


# With both kinds of target, the consumer campaign may use this share of the stage's budget; the Streams
# one (cheap checks, small problems) has the rest, and whatever the first left.
CONSUMER_SHARE = 0.75


def run(targets: Sequence[Assignor], ctx: Context) -> Iterator[StageResult]:
    """One campaign for the consumer-group targets and one for the Streams ones (each guarded as one: a
    campaign that breaks is one stage error, `all`)."""
    consumer = [t for t in targets if problem_kind(t) == "consumer"]
    streams = [t for t in targets if t not in consumer]
    detail = f"{ctx.profile.campaign_instances:,} instances × {len(targets)} target(s)"
    ctx.progress(Progress("campaign", "all", "started", detail))
    deadline = time.time() + ctx.profile.campaign_s
    if consumer:  # the `small` profile's consumer groups
        share = deadline - ctx.profile.campaign_s * (1 - CONSUMER_SHARE) if streams else deadline
        yield from guarded("campaign", "all", lambda: _campaign(consumer, "small", "campaign", share, ctx))
    if streams:  # the `streams` profile's task problems (reference vs fast through `exact`)
        yield from guarded("campaign", "all",
                           lambda: _campaign(streams, "streams", "campaign-streams", deadline, ctx))


def _campaign(targets: Sequence[Assignor], profile_name: str, directory: str, deadline: float,
              ctx: Context) -> list[StageResult]:
    from assigncheck.spark.diff import read_rows, run_campaign
    from assigncheck.spark.diff_shards import CampaignSpec, Limits
    from assigncheck.targets.registry import ref_of

    started = time.monotonic()
    keys = {ref_of(t).key(): t for t in targets}
    profile = ctx.profile
    spec = CampaignSpec(tuple(keys), profile_name, ctx.seed, profile.campaign_instances, profile.campaign_shards)
    limits = Limits(profile.budget_s, deadline, HANGS_IN_A_ROW)
    out = ctx.work_dir / directory
    summary = run_campaign(spec, out, executor="spark", master=ctx.master, limits=limits)
    rows = read_rows(spec, out)
    results = []
    for key, target in keys.items():
        confirming = time.monotonic()
        per = summary["targets"].get(key, {})
        result = StageResult("campaign", target.name, checked=("H1-H8+promises",) if profile_name != "streams"
                             else ("streams invariants+exact",))
        said = per.get("promises", [])
        result.promises = said[0] if len(said) == 1 else None
        if result.promises is not None and result.promises != target.promises.to_text():
            result.error = f"the executors enforced {result.promises!r}, not {target.promises.to_text()!r}"
        result.findings = settle("campaign", target, _candidates(target, per, profile.budget_s), ctx.filing)
        done = per.get("rows", 0)
        result.work = Work(done, spec.instances, "instances")
        if done < spec.instances:
            result.notes.append(f"{spec.instances - done} of {spec.instances} instances not checked "
                                f"(the stage's {profile.campaign_s:g} s budget, or the circuit breaker)")
        result.rows, sample = plot_rows(rows, key, target.name, ctx.seed)
        # The target's own time: its rows' checks in the executors (summed over their tasks) and confirming its
        # findings here. Spark's start-up and the instances' generation are shared: campaign_seconds says them.
        executor_s = per.get("check_seconds_total", 0.0)
        result.seconds = executor_s + time.monotonic() - confirming
        result.stats = {"profile": profile_name, "violating_instances": per.get("violating_rows", 0),
                        "assign_p50_ms": round((per.get("assign_seconds", {}).get("p50") or 0) * 1000, 2),
                        "executor_seconds": round(executor_s, 2), "plot_rows": sample}
        results.append(result)
    whole = round(time.monotonic() - started, 1)
    for result in results:
        if not result.skipped:
            result.stats["campaign_seconds"] = whole  # every target's campaign, wall-clock
    return results
