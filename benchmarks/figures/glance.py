"""The README's *Results at a glance*: one line per results file, each saying its headline figure, the command
that measured it and the load."""

from __future__ import annotations

from typing import Any

from benchmarks.figures.source import Source, table
from benchmarks.figures.text import loads, number, span
from benchmarks.figures.text import table as markdown

GLANCE = ("gate", "false_alarms", "fuzz_share", "zoo", "mutation", "malformed", "bench_prove", "bench_java",
          "bench_franz_go", "bench_racks_kafka", "live", "bench_small")


def _by(source: Source, runs: list[dict[str, Any]], note: str = "") -> str:
    commands = " / ".join(dict.fromkeys(f"`{r['command']}`" for r in runs))
    count = f"{len(runs)} runs, " if len(runs) > 1 else ""
    named = len(runs) > 1
    carried = "".join("; " + (f"`{r['command']}` " if named else "") + f"measured at commit `{r['commit']}`, not re-run"
                      for r in runs if r.get("carried_from"))
    return f"{commands} ({count}{loads(runs)}{carried}{note})"


def _gate(s: Source) -> list[str]:
    run = s.last("")
    rows = run["rows"]
    work = []
    for stage in dict.fromkeys(r["stage"] for r in rows):
        mine = [r for r in rows if r["stage"] == stage and r["nominal"] and not r["skipped"]]
        if mine:
            work.append(f"{stage} {span(r['done'] for r in mine)} of {mine[0]['nominal']:,} {mine[0]['unit']}")
    found = sum(run["counts"].values())
    verdict = "passed" if run["exit_code"] == 0 else f"failed (exit {run['exit_code']})"
    return ["`make gate`", f"{verdict} in {number(run['gate_seconds'])} s over the {len(run['targets'])} built-ins, "
            f"{found} bugs of any status; per target: " + ", ".join(work), _by(s, [run])]


def _false_alarms(s: Source) -> list[str]:
    idle, busy = s.last("as-is"), s.last("busy")
    found = sum(r[k] for run in (idle, busy) for r in run["rows"] for k in ("confirmed", "unconfirmed", "unreachable"))
    least = min(f for r in busy["rows"] for f in r["work_min_fraction"].values())
    return ["false alarms on correct targets",
            f"{found} findings of any status in 2 quick gates over {idle['targets']} correct targets (the built-ins, "
            f"two `cmd:` references, Kafka's RangeAssignor over `java:`), one as the machine is and one with every "
            f"core busy (where the smallest share of a stage's work done was {least:.0%})", _by(s, [idle, busy])]


def _fuzz_share(s: Source) -> list[str]:
    idle, busy = s.last("as-is"), s.last("busy")
    rows = [r for run in (idle, busy) for r in run["rows"] if r["target"] != "range"]
    full = sum(r["execs"] >= r["nominal"] for r in rows)
    return ["fuzz stage on outside targets", f"{full} of {len(rows)} runs did all {rows[0]['nominal']:,} execs, on a "
            f"Python object and Python and Node.js `cmd:`/`cmd2:` programs, as the machine is and with every core busy "
            f"({span(r['seconds'] for r in rows)} s)", _by(s, [idle, busy])]


def _zoo(s: Source) -> list[str]:
    rows = s.last()["rows"]
    gate = next(r for r in rows if r["kind"] == "stage" and r["stage"] == "quick gate")
    stages = ", ".join(f"{r['stage']} {r['caught']}/{r['of']}" for r in rows
                       if r["kind"] == "stage" and r["stage"] != "quick gate")
    controls = [r for r in rows if r["kind"] == "control"]
    return ["bug zoo", f"{gate['of']} historical bugs re-planted: the quick gate confirms {gate['caught']}, median "
            f"{number(gate['median_s'])} s to the first confirmed counterexample ({stages}); "
            f"{sum(c['passes'] for c in controls)} of {len(controls)} unbroken controls pass", _by(s, [s.last()])]


def _mutation(s: Source) -> list[str]:
    run = s.last()
    return ["mutation score of `impl/`", f"{run['killed']} of {run['mutants']} mutants killed by the quick gate's "
            f"properties and proofs stages, the other {run['equivalent']} argued equivalent one by one", _by(s, [run])]


def _malformed(s: Source) -> list[str]:
    runs = [s.last("processes"), s.last("in-process")]
    rows = [r["rows"][0] for r in runs]
    cases = sum(r["cases"] for r in rows)
    bad = sum(r["bad_outcomes"] for r in rows)
    stray = sum(len(r["stray_paths_in_cwd"]) for r in rows)
    return ["malformed input", f"{cases:,} malformed command lines: {sum(r['tracebacks'] for r in rows)} tracebacks, "
            f"{sum(r['hangs'] for r in rows)} hangs, {bad} bad outcomes (exit 2 is one line), {stray} writes outside "
            f"the output directory", _by(s, runs)]


def _prove(s: Source) -> list[str]:
    rows = [r for r in s.last()["rows"] if r.get("proved") and r["subject"] == "sticky-constrained"]
    best = rows[-1]
    return ["proofs", f"`sticky-constrained` proved at {best['members']} members x {best['partitions']} partitions "
            f"in {number(best['wall_s'])} s (every claim pattern, generations, ≤ 2 topics)", _by(s, [s.last()])]


def _java(s: Source) -> list[str]:
    rows = s.last()["rows"]

    def ratios(subject: str, *scenario_starts: str) -> str:
        return span(r["ratio"] for r in rows if r["subject"] == subject
                    and (not scenario_starts or r["scenario"].startswith(scenario_starts)))
    return ["speed vs Kafka's Java (Kafka's time over ours)",
            f"general `sticky` {ratios('sticky')}x faster than Kafka's StickyAssignor; `sticky-constrained` "
            f"{ratios('sticky-constrained', '2100x2100')}x at 2100 x 2100 and "
            f"{ratios('sticky-constrained', '2000x')}x on the 2000 x 1 M second round; `cooperative-sticky` "
            f"{ratios('cooperative-sticky')}x; `range` {ratios('range')}x; `roundrobin` {ratios('roundrobin')}x",
            _by(s, [s.last()])]


def _franz_go(s: Source) -> list[str]:
    runs = s.runs()
    rows = [r for run in runs for r in run["rows"]]
    sticky = [r["cpu_ratio"] for r in rows if r["subject"] in ("sticky", "sticky-constrained")]
    coop = [r["cpu_ratio"] for r in rows if r["subject"] == "cooperative-sticky"]
    slower = sum(v > 1 for v in sticky + coop)
    optimal = all(r["ok"] or r["cpu_ratio"] > 1 for r in rows)
    return ["speed vs franz-go (ours over franz-go, CPU)",
            f"general `sticky` and `sticky-constrained` at {span(sticky)} of franz-go's sticky balancer, "
            f"`cooperative-sticky` at {span(coop)} of its cooperative one, over {len(rows)} rows "
            f"({slower} above 1); " + ("every output of ours optimal, with the maximum retained" if optimal else
                                       "not every output of ours judged optimal: see the table"),
            _by(s, runs, ", the sides taking turns in processes of their own")]


def _racks(s: Source) -> list[str]:
    rows = s.last()["rows"]
    sticky = [r for r in rows if r["subject"] != "range"]
    groups = sum(r["groups"] for r in rows if r["round"] == "fresh")
    fewer = sum(r["fewer"] for r in sticky)
    more = sum(r["more"] for r in sticky)
    why = "where Kafka's output is less balanced than ours" if all(r["ok"] for r in sticky) else "see the table"
    equal = all(r["ours_mismatches"] == r["kafka_mismatches"] for r in rows if r["subject"] == "range")
    return ["racks vs Kafka", f"{groups} rack-aware groups, fresh and after a leave + join: fewer rack mismatches than "
            f"Kafka's sticky assignors in {fewer} of {sum(r['groups'] for r in sticky)} cases, more in {more}"
            + (f" ({why})" if more else "") + ("; range identical" if equal else ""),
            _by(s, [s.last()], "; seeded counts")]


def _live(s: Source) -> list[str]:
    run = s.last("")
    confirmed = [b.removesuffix(" (confirmed)") for b in run["bugs"] if "(confirmed)" in b]
    found = f"{len(confirmed)} confirmed findings ({'; '.join(confirmed)})" if confirmed else "no confirmed finding"
    return ["live groups", f"{run['pairs']} real client/protocol pairs on a real {run['broker']} broker, seed 0's "
            f"schedule of joins, leaves, crashes, static restarts, subscription changes, partitions added and slow "
            f"callbacks: {found}, {number(run['seconds'])} s for all (the client bugs live groups have found, on this "
            "and other schedules: *Live groups*)", _by(s, [run])]


def _small(s: Source) -> list[str]:
    runs = s.runs()
    rates = [r["per_cpu_second"] for run in runs for r in run["rows"]]
    return ["small problems", f"{span(rates)} assignments with the full check per CPU second over the built-ins "
            "(per target: *Small problems* in docs/RESULTS.md)", _by(s, runs)]


@table("glance", *GLANCE, said=False)
def glance(*sources: Source) -> list[str]:
    lines = [line(s) for line, s in zip((_gate, _false_alarms, _fuzz_share, _zoo, _mutation, _malformed, _prove,
                                         _java, _franz_go, _racks, _live, _small), sources, strict=True)]
    return markdown(["what", "figure", "measured by (load)"], lines)
