"""Layouts of the speed tables: the built-ins against franz-go and Kafka's Java assignors, alone, stage by stage,
on small problems, in the fuzz stage, in Spark campaigns, and in Z3 proofs."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from benchmarks.figures.source import Missing, Source, table
from benchmarks.figures.text import number, span
from benchmarks.figures.text import table as markdown

Row = dict[str, Any]


def size(text: str) -> str:
    """`1000x10000 / 100 topics` as the docs write sizes: `1000 x 10,000 / 100 topics`, `5000 x 1 M`."""
    def one(m: re.Match[str]) -> str:
        a, b = int(m[1]), int(m[2])
        return f"{a} x {'1 M' if b == 1_000_000 else f'{b:,}'}"
    return re.sub(r"(\d+)x(\d+)", one, text)


def pick(rows: list[Row], **match: Any) -> Row:
    """The one row whose fields equal `match` (Missing otherwise: the benchmark no longer measures it)."""
    found = [r for r in rows if all(r.get(k) == v for k, v in match.items())]
    if not found:
        raise Missing(f"no row with {match}")
    return found[0]


def over_runs(source: Source, get: Callable[[list[Row]], float | None], digits: int | None = None,
              variant: str | None = None) -> str:
    """One figure, `get(rows)`, as the range over the kept runs."""
    return span((get(rows) for rows in source.rows(variant)), digits)


# ---- franz-go -------------------------------------------------------------------------------------------------

FRANZ_SCENARIOS = [
    ("1000x10000 / 100 topics, 1-20 each, fresh", "1000 x 10,000 / 100 topics, 1-20 each, fresh"),
    ("1000x10000 / 100 topics, 1-20 each, churn from our output", "the same, churn (10% re-subscribe, 5% leave) "
     "from our output"),
    ("1000x10000 / 100 topics, 1-20 each, churn from franz-go's output", "the same churn from franz-go's own output"),
    ("200x2000 / 100 topics, 1-20 each, fresh", "200 x 2000, fresh"),
    ("200x2000 / 100 topics, 1-20 each, churn from our output", "the same, churn from our output"),
    ("200x2000 / 100 topics, 1-20 each, churn from franz-go's output", "the same, churn from franz-go's output"),
    ("2100x2100 one topic, fresh", "2100 x 2100 one topic, fresh"),
    ("2100x2100 one topic, 1 leaves + 1 joins", "the same, 1 leaves + 1 joins"),
    ("5000x1000000 / 500 topics, 1-20 each, fresh", "5000 x 1 M / 500 topics, 1-20 each, fresh"),
    ("5000x1000000 / 500 topics, 1-20 each, churn from our output", "the same, churn from our output"),
    ("5000x1000000 / 500 topics, 1-20 each, churn from franz-go's output", "the same, churn from franz-go's output"),
]


def _franz_figure(source: Source, scenario: str, subject: str, field: str, sub: str | None) -> str:
    def get(rows: list[Row]) -> float | None:
        r = pick(rows, scenario=scenario, subject=subject)
        return r[field][sub] if sub else r[field]
    return over_runs(source, get, 2 if field.endswith("ratio") else None)


@table("bench_franz_go")
def franz_go(source: Source) -> list[str]:
    """Per scenario, each of ours against franz-go's balancer: min CPU ms of both and the ratios, over runs."""
    lines = []
    for scenario, said in FRANZ_SCENARIOS:
        every = [r for rows in source.rows(scenario=scenario) for r in rows]
        subjects = list(dict.fromkeys(r["subject"] for r in every))
        groups = [subjects]
        if "cooperative-sticky" in subjects and "sticky-constrained" in subjects:  # the cooperative pair apart
            subjects.remove("cooperative-sticky")
            groups.append(["cooperative-sticky"])
        for k, group in enumerate(groups):
            cells = [" / ".join(_franz_figure(source, scenario, subject, f, sub) for subject in group)
                     for f, sub in (("ours_cpu_ms", "min"), ("franz_cpu_ms", "min"), ("cpu_ratio", None),
                                    ("wall_ratio", None))]
            if len(set(cells[1].split(" / "))) == 1:  # one balancer of franz-go's for every one of ours
                cells[1] = cells[1].split(" / ")[0]
            name = said if k == 0 else "the same, cooperative"
            lines.append([name, " / ".join(f"`{s}`" for s in group), *cells])
    return markdown(["scenario", "ours", "ours ms", "franz-go ms", "ratio CPU", "ratio wall"], lines)


# ---- Kafka's Java assignors ---------------------------------------------------------------------------------

JAVA_SCENARIOS = [
    ("2100x2100 fresh", "2100 x 2100 one topic, fresh"),
    ("2100x2100 1 leaves + 1 joins", "2100 x 2100, 1 leaves + 1 joins"),
    ("2000x1000000 second round", "2000 x 1 M second round"),
    ("1000x10000 / 100 topics, 1-20 each, fresh", "1000 x 10,000 / 100 topics, 1-20 each, fresh"),
    ("1000x10000 / 100 topics, churn", "the same, churn"),
    ("2100x2100 range/roundrobin", "2100 x 2100"),
    ("1000x10000 / 100 topics range/roundrobin", "1000 x 10,000 / 100 topics"),
]


@table("bench_java")
def java(source: Source) -> list[str]:
    """Per scenario and assignor of ours, Kafka's classes beside it: median CPU ms and Kafka's over ours."""
    run = source.last()
    lines = []
    for scenario, said in JAVA_SCENARIOS:
        rows = [r for r in run["rows"] if r["scenario"] == scenario]
        if not rows:
            raise Missing(f"bench_java has no scenario {scenario!r}")
        for k, subject in enumerate(dict.fromkeys(r["subject"] for r in rows)):
            mine = [r for r in rows if r["subject"] == subject]
            lines.append([said if k == 0 else "the same", f"`{subject}`", number(mine[0]["ours_ms_median"]),
                          " / ".join(r["kafka_class"] for r in mine),
                          " / ".join(number(r["kafka_ms_median"]) for r in mine),
                          " / ".join(number(r["ratio"], 1 if r["ratio"] < 1000 else 0) for r in mine)])
    return markdown(["scenario", "ours", "ours ms", "Kafka's class", "Kafka ms", "ratio"], lines)


# ---- racks -----------------------------------------------------------------------------------------------------

@table("bench_racks_kafka")
def racks(source: Source) -> list[str]:
    """Rack mismatches summed over the groups, ours / Kafka's, fresh and after a leave and a join."""
    rows = source.last()["rows"]
    lines = []
    for subject in dict.fromkeys(r["subject"] for r in rows):
        fresh, later = (pick(rows, subject=subject, round=k) for k in ("fresh", "leave+join"))
        fewer, more = fresh["fewer"] + later["fewer"], fresh["more"] + later["more"]
        equal = fewer == more == 0 and all(r["ours_mismatches"] == r["kafka_mismatches"] for r in (fresh, later))
        lines.append([f"`{subject}` / {fresh['peer'].removeprefix('Kafka ')}",
                      f"{fresh['ours_mismatches']} / {fresh['kafka_mismatches']}",
                      f"{later['ours_mismatches']} / {later['kafka_mismatches']}",
                      "equal on every group" if equal else f"{fewer} / {more}"])
    return markdown(["ours / Kafka's", "fresh", "after leave + join", "ours fewer / more"], lines)


# ---- general sticky alone, and stage by stage ------------------------------------------------------------------

STICKY_SCENARIOS = [
    ("1000x10000 fresh", "1000 x 10,000 / 100 topics, 1-20 topics each, fresh"),
    ("1000x10000 churn", "the same, 10% re-subscribe + 5% leave (\"churn\")"),
    ("1000x10000 5% leave", "the same, 5% leave only"),
    ("1000x10000 5% join", "the same, 5% join only"),
    ("200x2000 fresh", "200 x 2000 / 100 topics, fresh"),
    ("200x2000 churn", "the same, churn"),
    ("5000x1000000 fresh", "5000 x 1 M / 500 topics, 1-20 topics each, fresh"),
    ("5000x1000000 churn", "the same, churn"),
    ("2100x2101 forcing general", "2100 x 2101, a second topic forcing the general path"),
    ("2100x2100 one topic", "2100 x 2100, one topic (equal subscriptions: the constrained path)"),
    ("2000x1000000 second round, one partition of every topic", "2000 x 1 M second round (500 topics; member i "
     "owns partition i of every topic)"),
]


def _warm(profile: Source, scenario: str) -> str:
    name = "2100x2100 fresh" if scenario == "2100x2100 one topic" else scenario
    try:
        return over_runs(profile, lambda rows: min((r["stages"]["whole assign"] for r in rows
                                                    if r["assignor"] == "sticky" and r["scenario"] == name),
                                                   default=None))
    except Missing:
        return ""


@table("bench_sticky", "bench_sticky", "profile_stages")
def sticky(source: Source, profile: Source) -> list[str]:
    """General `sticky`'s CPU ms per call over runs (a collection forced before each call), and warm (none)."""
    lines = []
    for scenario, said in STICKY_SCENARIOS:
        ms = over_runs(source, lambda rows, s=scenario: pick(rows, scenario=s, subject="sticky")["ms"])
        warm = _warm(profile, scenario) if not scenario.startswith("2000x") else ""
        lines.append([said, ms, warm if warm != "n/a" else ""])
    parse = over_runs(source, lambda rows: pick(rows, subject="parse_json + problem_from_json")["ms"])
    lines.append(["reading that problem (its JSON; `parse_json` + `problem_from_json`, the CLI's path)", parse, ""])
    return markdown(["scenario", "`sticky` CPU ms", "warm"], lines)


PROFILE_SCENARIOS = [
    ("200x2000 fresh", "200 x 2000, 100 topics, 1-20 each, fresh"),
    ("200x2000 churn", "the same after 10% re-subscribe, 5% leave"),
    ("1000x10000 fresh", "1000 x 10,000, 100 topics, 1-20 each, fresh"),
    ("1000x10000 churn", "the same after churn"),
    ("1000x10000 5% leave", "the same after 5% leave (nobody re-subscribes)"),
    ("1000x10000 5% join", "the same after 5% join"),
    ("5000x1000000 fresh", "5000 x 1 M, 500 topics, 1-20 each, fresh"),
    ("5000x1000000 churn", "the same after churn"),
]


@table("profile_stages")
def stages(source: Source) -> list[str]:
    """General `sticky`'s stages, CPU ms warm, the least over the kept runs."""
    def least(scenario: str, stage: str) -> str:
        values = [r["stages"][stage] for rows in source.rows(assignor="sticky", scenario=scenario) for r in rows]
        if not values:
            raise Missing(f"profile_stages has no sticky {scenario!r}")
        return number(min(values))
    lines = [[said, least(s, "valid claims"), least(s, "pair table (valid claims in it)"), least(s, "flow"),
              f"{least(s, 'its banded network: ours')} / {least(s, 'OR-Tools')}", least(s, "whole assign"),
              least(s, "numpy calls")] for s, said in PROFILE_SCENARIOS]
    return markdown(["scenario", "valid claims", "pair table", "flow", "its network: ours / OR-Tools",
                     "whole assign", "numpy calls"], lines)


@table("profile_stages.equal")
def equal_subscriptions(source: Source) -> list[str]:
    """The constrained path and the floors at 2100 x 2100, CPU ms warm, the range over the kept runs."""
    def get(assignor: str, scenario: str, stage: str) -> str:
        return over_runs(source, lambda rows: pick(rows, assignor=assignor, scenario=scenario)["stages"][stage])
    lines = [
        ["`sticky`, 2100 x 2100 one topic (the constrained path)", get("sticky", "2100x2100 fresh", "whole assign")],
        ["`sticky-constrained`, the same", get("sticky-constrained", "2100x2100 fresh", "whole assign")],
        ["its valid claims (`spec.ownership.valid_claims`), fresh / after 1 leaves + 1 joins",
         get("sticky-constrained", "2100x2100 fresh", "valid claims") + " / "
         + get("sticky-constrained", "2100x2100 1 leaves + 1 joins", "valid claims")],
        ["its compiled placement and output", get("sticky-constrained", "2100x2100 fresh",
                                                  "compiled placement and output")],
        ["the four-phase variant's layout (`ConstrainedLayout.of`)", get("sticky-constrained", "2100x2100 fresh",
                                                                         "four-phase variant's layout")],
        ["`sticky-constrained`, 1 leaves + 1 joins", get("sticky-constrained", "2100x2100 1 leaves + 1 joins",
                                                         "whole assign")],
        ["`cooperative-sticky`, 1 leaves + 1 joins", get("cooperative-sticky", "2100x2100 1 leaves + 1 joins",
                                                         "whole assign")],
        ["`roundrobin`, 2100 x 2100", get("roundrobin", "2100x2100 fresh", "whole assign")],
        ["`Assignment.from_rows`, 2100 members of one partition", get("Assignment.from_rows",
                                                                       "2100 members of one partition", "whole")],
        ["the Python floor: each member read once, ids sorted, one object each", get("sticky", "2100x2100 fresh",
                                                                                     "python floor")],
    ]
    return markdown(["call", "CPU ms, warm"], lines)


# ---- one call, scenario by scenario -----------------------------------------------------------------------------

@table("one_call", "bench_java", "bench_franz_go", "bench_lag_streams", "bench_cooperative")
def one_call(java_: Source, franz: Source, lag: Source, coop: Source) -> list[str]:
    """The other assignors' CPU ms per call: `cooperative-sticky` and `lag` (general `sticky`: its own table)."""
    j = java_.last()["rows"]
    c = coop.last()["rows"]
    lines = [
        ["`cooperative-sticky`", "2100 x 2100 one topic, fresh / 1 leaves + 1 joins (alone)",
         f"{number(pick(c, scenario='2100x2100 fresh')['ms'])} / "
         f"{number(pick(c, scenario='2100x2100 1 leaves + 1 joins')['ms'])}"],
        ["", "the same beside Kafka's class (median)",
         f"{number(pick(j, scenario='2100x2100 fresh', subject='cooperative-sticky')['ours_ms_median'])} / "
         f"{number(pick(j, scenario='2100x2100 1 leaves + 1 joins', subject='cooperative-sticky')['ours_ms_median'])}"],
        ["", "200 x 2000 / 100 topics, after churn (beside franz-go, min)", over_runs(franz, lambda rows: min(
            r["ours_cpu_ms"]["min"] for r in rows if r["subject"] == "cooperative-sticky"
            and r["scenario"].startswith("200x2000")))],
    ]
    lines = [[*line, ""] for line in lines]
    lag_rows = lag.last()["rows"]
    for k, r in enumerate(x for x in lag_rows if x["scenario"].startswith("lag")):
        lines.append(["`lag`" if k == 0 else "", size(r["scenario"].removeprefix("lag ")) + " / 100 topics, 1-20 "
                      "topics each", number(r["ms"]), number(r["peer_ms"])])
    for k, r in enumerate(x for x in lag_rows if x["scenario"].startswith("streams")):
        lines.append(["`streams-sticky`" if k == 0 else "", r["scenario"].removeprefix("streams "), number(r["ms"]),
                      number(r["peer_ms"])])
    return markdown(["assignor", "scenario", "CPU ms", "the spec's reference, CPU ms"], lines)


# ---- small problems, the fuzz target, proofs, campaigns ---------------------------------------------------------

@table("bench_small")
def small(source: Source) -> list[str]:
    """Problems assigned and fully checked per CPU second, over the kept runs."""
    subjects = list(dict.fromkeys(r["subject"] for r in source.last()["rows"]))
    return markdown(["target", "problems checked per CPU second"],
                    [[s, over_runs(source, lambda rows, s=s: pick(rows, subject=s)["per_cpu_second"])]
                     for s in subjects])


@table("bench_fuzz")
def fuzz(source: Source) -> list[str]:
    """The fuzz target's cost per input: inputs per CPU second in process; a program's harness and own CPU."""
    rows = source.last()["rows"]
    lines = [[f"`{r['subject']}`", f"{r['per_cpu_second']:,} inputs per CPU second", ""]
             for r in rows if "per_cpu_second" in r]
    lines += [[f"`{re.sub(r'/[^ ]*/', '', r['subject'])}`", f"{number(r['harness_ms'])} ms",
               f"{number(r['program_ms'])} ms"]
              for r in rows if "harness_ms" in r]
    return markdown(["target", "harness CPU per input", "the program's own CPU per input"], lines)


@table("bench_prove")
def prove(source: Source) -> list[str]:
    """Per model, the largest bound proved within the budget (wall and CPU s), and the next rung's fate."""
    rows = source.last()["rows"]
    lines = []
    for model in dict.fromkeys(r["subject"] for r in rows if r["scenario"].startswith("prove")):
        mine = [r for r in rows if r["subject"] == model and r["scenario"].startswith("prove")]
        proved = [r for r in mine if r["proved"]]
        failed = [r for r in mine if not r["proved"]]
        best = proved[-1] if proved else None
        lines.append([f"`{model}`", f"{best['members']} members × {best['partitions']} partitions" if best else "none",
                      f"{number(best['wall_s'])} s ({number(best['cpu_s'])} s)" if best else "",
                      f"{failed[0]['members']} × {failed[0]['partitions']}" if failed else "every rung proved"])
    refute = pick(rows, subject="sticky-constrained:ceiling-for-all") if any(
        r["subject"] == "sticky-constrained:ceiling-for-all" for r in rows) else rows[0]
    lines.append([f"`{refute['subject']}` (planted bug)", f"refuted at {refute['shape']}",
                  f"{number(refute['hunt_cpu_s'])} s of CPU from the smallest shape", ""])
    budget = f"{next(r['budget_s'] for r in rows if 'budget_s' in r):g}"
    return markdown(["model", f"largest bound proved within {budget} s", "wall (CPU)", "next rung, not proved"],
                    lines)


@table("bench_campaign")
def campaign(source: Source) -> list[str]:
    """Spark `local[2]` against a 2-process pool and one process on the same shards; a standalone cluster."""
    rows = source.last()["rows"]
    first = next(r for r in rows if "executors" in r)
    names = {"spark": "Spark `local[2]`", "pool": "2-process pool (the same shard function, the same shards)",
             "plain": "1 plain process"}
    lines = [[names[k], f"{number(e['wall_s'])} s", f"{e['rows_per_s']:,}", f"{e['per_core']:,}",
              f"{e['per_cpu_s']:,}"] for k, e in first["executors"].items()]
    cli = next(r for r in rows if "CLI" in r["scenario"])
    lines.append([f"standalone master + 2-core worker, through the CLI ({cli['instances']:,} instances)",
                  f"{number(cli['ms'] / 1000)} s", f"{cli['rows_per_s']:,}", "", f"{cli['per_cpu_s']:,}"])
    out = markdown(["executor", "wall", "rows/s", "rows/s per core", "rows per CPU second"], lines)
    return [*out, "", f"{first['instances']:,} instances in {first['shards']} shards, target `range`, best of "
            f"{first['repeat']} rounds; Spark's per-core efficiency against the pool: {first['efficiency']:.2f}. "
            f"Start-up is not in the rates: {number(first['spark_startup_s'])} s for Spark, "
            f"{number(first['pool_startup_s'])} s for the pool, {number(cli['startup_s'])} s on the cluster."]


# ---- the other `make bench` modules: their rows as the console prints them ----------------------------------------

MET = {True: "yes", False: "**no**", None: ""}


def _plain(source: Source) -> list[str]:
    """A benchmark's rows as `make bench` prints them: the subject's ms, the peer's, the ratio, the goal."""
    def ratio(r: Row) -> str:
        if r["peer_ms"] is None:
            return ""
        return number(r["peer_ms"] / r["ms"]) if r["ms"] else number(r["speedup"])
    lines = [[size(r["scenario"]), f"`{r['subject']}`", number(r["ms"]), r["peer"] or "", number(r["peer_ms"])
              if r["peer_ms"] is not None else "", ratio(r), r["goal"], MET[r["ok"]]] for r in source.last()["rows"]]
    return markdown(["scenario", "subject", "CPU ms", "peer", "peer ms", "peer / subject", "goal", "met"], lines)


for _name in ("bench_check", "bench_oracle", "bench_constrained", "bench_range_roundrobin"):
    table(_name)(_plain)
