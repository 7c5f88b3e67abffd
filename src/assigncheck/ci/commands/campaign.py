"""`assigncheck campaign diff|fuzz|show-row`: Spark-sharded differential and fuzz campaigns, resumable.

Exit 0 nothing found, 1 a violation or finding, 2 bad input. Spark is imported only when a campaign needs it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from assigncheck.ci import flag_types
from assigncheck.generate.seeded import PROFILES


def register(subparsers: Any) -> None:
    from assigncheck.ci.target_flags import add_target_options

    parser = subparsers.add_parser("campaign", help="sharded differential and fuzz campaigns (Spark)",
                                   description=__doc__.splitlines()[0])
    verbs = parser.add_subparsers(dest="campaign_verb", required=True, parser_class=type(parser))

    diff = verbs.add_parser("diff", help="check targets on seeded generated instances, one Parquet file per shard")
    add_target_options(diff, required=True)
    diff.add_argument("--profile", default="small", choices=tuple(PROFILES))
    diff.add_argument("--seed", type=flag_types.int_in(0, flag_types.MAX_SEED), default=0)
    diff.add_argument("--instances", type=flag_types.int_in(0, flag_types.MAX_INSTANCES), required=True)
    diff.add_argument("--shards", type=flag_types.int_in(1, flag_types.MAX_SHARDS), default=None,
                      help="default: one per 5,000 instances, at least 4")
    diff.add_argument("--out", required=True, type=flag_types.nonempty,
                      help="campaign directory (rerun with the same flags to resume)")
    diff.add_argument("--master", default=None, type=flag_types.spark_master,
                      help="Spark master URL (default local[*]; spark://host:7077)")
    diff.add_argument("--executor", default="auto", choices=("auto", "spark", "plain"),
                      help="auto: plain Python below 2,000 rows unless --master is given")
    diff.set_defaults(run=run_diff)

    fuzz = verbs.add_parser("fuzz", help="atheris rounds sharded over Spark tasks, corpus merged between rounds")
    add_target_options(fuzz, required=True)
    fuzz.add_argument("--rounds", type=flag_types.int_in(1, 1000), default=2)
    fuzz.add_argument("--seconds", type=flag_types.int_in(1, int(flag_types.MAX_SECONDS)), default=30,
                      help="time budget of each task in a round")
    fuzz.add_argument("--tasks", type=flag_types.int_in(1, 1000), default=2, help="tasks per target per round")
    fuzz.add_argument("--seed", type=flag_types.int_in(0, flag_types.MAX_SEED), default=0)
    fuzz.add_argument("--out", required=True, type=flag_types.nonempty)
    fuzz.add_argument("--master", default=None, type=flag_types.spark_master,
                      help="Spark master URL (default local[*])")
    fuzz.add_argument("--executor", default="spark", choices=("spark", "plain"))
    fuzz.set_defaults(run=run_fuzz)

    show = verbs.add_parser("show-row", help="print the problem JSON of one campaign row, regenerated from its id")
    show.add_argument("instance", help="PROFILE/SEED/SHARD/K, as in a row's `instance` column")
    show.set_defaults(run=run_show_row)


def default_shards(instances: int) -> int:
    return max(4, -(-instances // 5000))


def run_diff(args: argparse.Namespace) -> int:
    from assigncheck.ci.engines import require

    require("a differential campaign", "pyarrow")
    if args.executor == "spark" or args.master:
        require("a campaign on Spark", "pyspark", flag="--executor")
    from assigncheck.spark.diff import run_campaign
    from assigncheck.spark.diff_shards import CampaignSpec
    from assigncheck.spark.session import check_master

    check_master(args.master)  # before the targets start: a bad URL is one line, whatever else is wrong
    shards = args.shards if args.shards is not None else default_shards(args.instances)
    flag_types.output_dir(args.out, "--out")  # before any target is loaded or Spark started
    spec = CampaignSpec(_target_keys(args), args.profile, args.seed, args.instances, shards)
    summary = run_campaign(spec, args.out, executor=args.executor, master=args.master)
    print_diff_summary(summary, args.out)
    return 1 if any(t["violating_rows"] for t in summary["targets"].values()) else 0


def _target_keys(args: argparse.Namespace) -> tuple[str, ...]:
    """The campaign's target references (promises, classpath), each checked to run before any shard starts."""
    from assigncheck.ci.target_flags import open_targets, refs_from_args

    refs = refs_from_args(args.target, args.promises, args.classpath, args.config, args.maven)
    for target in open_targets(refs):
        close = getattr(target, "close", None)
        if close is not None:
            close()
    return tuple(ref.key() for ref in refs)


def print_diff_summary(summary: dict[str, Any], out: str) -> None:
    run = summary["run"]
    print(f"campaign {summary['campaign_id']} ({summary['campaign']['profile']}, seed {summary['campaign']['seed']}, "
          f"{summary['campaign']['instances']} instances, {run['shards_total']} shards) in {out}")
    rate = f", {run['rows_per_second']} rows/s" if run["rows_per_second"] else ""
    if run.get("startup_seconds"):
        rate += f" (after {run['startup_seconds']} s of Spark start-up)"
    print(f"  ran {run['shards_run']} shards ({run['rows_run']} rows) on {run['executor']} in {run['seconds']} s{rate};"
          f" {run['shards_already_done']} shards were already done")
    for target, t in summary["targets"].items():
        verdict = "ok" if not t["violating_rows"] else f"{t['violating_rows']} violating rows"
        p50, p99 = t["assign_seconds"]["p50"], t["assign_seconds"]["p99"]
        ms = "" if p50 is None else f", assign p50 {p50 * 1000:.2f} ms p99 {p99 * 1000:.2f} ms"
        print(f"  {target}: {t['rows']} rows, {verdict}{ms}")
        for invariant, v in t["violations"].items():
            first = v["examples"][0] if v["examples"] else None
            where = f" e.g. {first['instance']}: {first['messages'][0] if first['messages'] else ''}" if first else ""
            print(f"    {invariant}: {v['rows']} rows;{where}")
    print(f"  summary: {out}/summary.json")


def run_fuzz(args: argparse.Namespace) -> int:
    from assigncheck.ci.engines import require
    from assigncheck.spark.fuzz import FuzzCampaign, run_fuzz_campaign
    from assigncheck.spark.session import check_master

    require("a fuzz campaign", "atheris")
    if args.executor == "spark":
        require("a fuzz campaign on Spark", "pyspark", flag="--executor")
    check_master(args.master)
    flag_types.output_dir(args.out, "--out")
    campaign = FuzzCampaign(_target_keys(args), args.rounds, args.seconds, args.tasks, args.seed)
    summary = run_fuzz_campaign(campaign, args.out, executor=args.executor, master=args.master)
    print(f"fuzz campaign: {len(campaign.targets)} targets x {campaign.rounds} rounds x {campaign.tasks} tasks "
          f"x {campaign.seconds} s in {args.out}")
    for target, t in summary["targets"].items():
        print(f"  {target}: corpus {t['corpus']}, execs {t['execs']}, findings {len(t['findings'])}")
        for f in t["findings"]:
            print(f"    {f['invariant']}: {f['reproducer']}")
    return 1 if any(t["findings"] for t in summary["targets"].values()) else 0


def run_show_row(args: argparse.Namespace) -> int:
    from assigncheck.formats.documents import dumps, problem_to_json
    from assigncheck.generate.scenario import Scenario, scenario_to_json
    from assigncheck.spark.diff_rows import regenerate

    instance = regenerate(args.instance)
    doc = scenario_to_json(instance) if isinstance(instance, Scenario) else problem_to_json(instance)
    sys.stdout.write(dumps(doc, pretty=True) + "\n")
    return 0
