"""Layouts of the verdict tables: false alarms, the gate's own run and its scale stage, the fuzz stage on outside
targets, malformed input, the bug zoo and the mutation score."""

from __future__ import annotations

from typing import Any

from benchmarks.figures.source import Missing, Source, table
from benchmarks.figures.text import number, span
from benchmarks.figures.text import table as markdown

MACHINE = {"as-is": "as it is", "busy": "every core busy"}


def _load(run: dict[str, Any]) -> str:
    start, end = run["load"]["start"], run["load"]["end"]
    return f"load {start}" if start == end else f"load {start} at the start, {end} at the end"


@table("false_alarms")
def false_alarms(source: Source) -> list[str]:
    """One quick gate over the correct targets per machine state: its exit code, findings per status, time."""
    lines = []
    for variant in ("as-is", "busy"):
        run = source.last(variant)
        for r in run["rows"]:
            lines.append([f"{MACHINE[variant]} ({_load(run)})", r["exit_code"], r["confirmed"], r["unconfirmed"],
                          r["unreachable"], r["stage_errors"], f"{number(r['seconds'])} s"])
    return markdown(["machine", "exit code", "confirmed", "unconfirmed", "unreachable", "stage errors",
                     "gate wall time"], lines)


@table("false_alarms.work")
def false_alarms_work(source: Source) -> list[str]:
    """The smallest share of its nominal work each stage did over the targets, per machine state."""
    runs = {v: source.last(v) for v in ("as-is", "busy")}
    stages = list(dict.fromkeys(s for run in runs.values() for r in run["rows"] for s in r["work_min_fraction"]))
    lines = [[MACHINE[v], *(f"{r['work_min_fraction'][s]:.0%}" if s in r["work_min_fraction"] else "n/a"
                            for s in stages), len(r["short_stages"])]
             for v, run in runs.items() for r in run["rows"]]
    return markdown(["machine", *stages, "stages under one half"], lines)


@table("fuzz_share")
def fuzz_share(source: Source) -> list[str]:
    """The quick fuzz stage's execs (and seconds) per target, idle and with every core busy."""
    idle, busy = source.last("as-is"), source.last("busy")
    targets = list(dict.fromkeys(r["target"] for r in idle["rows"] + busy["rows"]))

    def cell(run: dict[str, Any], target: str) -> str:
        found = [r for r in run["rows"] if r["target"] == target]
        return f"{found[0]['execs']:,} of {found[0]['nominal']:,} ({number(found[0]['seconds'])} s)" if found else "n/a"
    return markdown(["target", f"as it is ({_load(idle)})", f"every core busy ({_load(busy)})"],
                    [[f"`{t}`", cell(idle, t), cell(busy, t)] for t in targets])


@table("malformed")
def malformed(source: Source) -> list[str]:
    """Malformed command lines: exit codes, tracebacks, hangs, stderr over one line, stray writes."""
    lines = []
    for variant, said in (("processes", "separate processes"), ("in-process", "in-process")):
        run = source.last(variant)
        r = run["rows"][0]
        codes = r["exit_codes"]
        lines.append([f"{r['cases']:,} {said} (seed {r['seed']}, {number(r['seconds'])} s)",
                      *(f"{codes.get(c, 0):,}" for c in ("0", "1", "2")),
                      sum(v for c, v in codes.items() if c not in ("0", "1", "2")), r["tracebacks"], r["hangs"],
                      r["stderr_over_one_line"], len(r["stray_paths_in_cwd"])])
    return markdown(["run", "exit 0", "exit 1", "exit 2", "other exit", "traceback", "hang",
                     "stderr over one line (exit 2)", "writes outside the output directory"], lines)


@table("malformed.limits")
def malformed_limits(source: Source) -> list[str]:
    """The separate-processes run's fixed cases at the limits, and its memory and disk figures."""
    r = source.last("processes")["rows"][0]
    lines = [[label, case["exit"], "n/a" if case["seconds"] is None else f"{number(case['seconds'])} s",
              f"{number(case['peak_rss_mib'])} MiB"]
             for label, case in r["worst_cases"].items()]
    peak = r["peak_rss_mib_random_cases"]
    lines.append([f"the {r['cases']:,} random cases (median / most)", "", f"slowest {number(r['slowest_case_s'])} s",
                  f"{number(peak['median'])} / {number(peak['max'])} MiB"])
    return markdown(["case", "exit", "time", "peak resident memory"], lines)


@table("zoo")
def zoo(source: Source) -> list[str]:
    """Per stage, the zoo entries caught and the median time to the first confirmed counterexample."""
    rows = source.last()["rows"]
    lines = [[r["stage"] if r["stage"] != "quick gate" else "the quick gate (stages in order)",
              f"{r['caught']} / {r['of']}", f"{number(r['median_s'])} s" if r["median_s"] is not None else "n/a"]
             for r in rows if r["kind"] == "stage"]
    missed = {st: [r["bug"] for r in rows if r["kind"] == "entry" and st in r["missed_by"]]
              for st in dict.fromkeys(st for r in rows if r["kind"] == "entry" for st in r["missed_by"])}
    controls = [r for r in rows if r["kind"] == "control"]
    out = markdown(["stage", "caught", "median time to the first confirmed counterexample (minimization included)"],
                   lines)
    entries = sum(1 for r in rows if r["kind"] == "entry")
    none = [st for st, bugs in missed.items() if len(bugs) == entries]
    said = "; ".join([*(f"{st} misses {', '.join(bugs)}" for st, bugs in missed.items() if st not in none),
                      *([f"{' and '.join(none)} catch none of them"] if none else [])])
    said = said or "every stage catches every bug"
    passing = sum(c["passes"] for c in controls)
    return [*out, "", f"{said}. Unbroken controls passing every stage: {passing} of {len(controls)}."]


@table("mutation")
def mutation(source: Source) -> list[str]:
    """Mutants of `impl/` killed by the quick gate's properties and proofs stages, per module."""
    run = source.last()
    lines = [[f"`{r['module']}`", f"{r['killed']} / {r['mutants']}", r["equivalent"]] for r in run["rows"]]
    lines.append(["all", f"{run['killed']} / {run['mutants']}", run["equivalent"]])
    return markdown(["module", "killed", "survivors argued equivalent"], lines)


# ---- the gate's own run ----------------------------------------------------------------------------------------

def _work(rows: list[dict[str, Any]], stage: str) -> str:
    mine = [r for r in rows if r["stage"] == stage and r["nominal"]]
    if not mine:
        return "n/a"
    done = [r["done"] for r in mine]
    full = all(r["done"] >= r["nominal"] for r in mine)
    units = mine[0]["unit"]
    return (f"{mine[0]['nominal']:,} {units} each" if full
            else f"{span(done)} of {mine[0]['nominal']:,} {units}")


@table("gate")
def gate(source: Source) -> list[str]:
    """`make gate`: the quick gate over every built-in; per stage, the work done against the nominal and time."""
    run = source.last("")
    rows = run["rows"]
    lines = []
    for stage in dict.fromkeys(r["stage"] for r in rows):
        mine = [r for r in rows if r["stage"] == stage]
        if all(r["skipped"] for r in mine):
            lines.append([f"`{stage}`", f"skipped: {mine[0]['skipped']}", "", "", ""])
            continue
        lines.append([f"`{stage}`", _work(rows, stage), span(r["seconds"] for r in mine) + " s",
                      sum(r["findings"] for r in mine), sum(1 for r in mine if r["error"])])
    counts = ", ".join(f"{v} {k}" for k, v in run["counts"].items())
    out = markdown(["stage", "work done per target", "seconds per target", "findings", "stage errors"], lines)
    return [*out, "", f"Exit code {run['exit_code']}, {number(run['gate_seconds'])} s for the "
            f"{len(run['targets'])} built-ins; bugs: {counts}; {run['warnings']} warnings."]


def _growth(rows: list[dict[str, Any]]) -> str:
    """The growth exponents the stage measured, per series, over runs (`n/a` where every rung was too fast)."""
    said: dict[str, list[float]] = {}
    for r in rows:
        for part in (r.get("growth") or "").split("; "):
            series, _, value = part.rpartition(" ")
            if series and not part.startswith("n/a"):
                said.setdefault(series, []).append(float(value))
    return "; ".join(f"{series} {span(values, 2)}" for series, values in said.items()) or "n/a"


def _largest(row: dict[str, Any], members: int, partitions: int, topics: int, churned: bool) -> float | None:
    found = [r for r in row.get("ladder", []) if (r["members"], r["partitions"], r["topics"]) ==
             (members, partitions, topics) and ("churn" in r["series"]) == churned]
    return found[-1]["cpu_ms"] if found else None


@table("gate.scale")
def scale(source: Source) -> list[str]:
    """The scale stage alone: CPU ms per call at the ladder's two largest sizes, over the kept runs."""
    variant = "--stages scale"
    runs = source.runs(variant)
    targets = list(dict.fromkeys(r["target"] for r in runs[-1]["rows"] if r["stage"] == "scale"))
    lines = []
    for target in targets:
        def at(members: int, partitions: int, topics: int, churned: bool, target: str = target) -> str:
            return span(_largest(next(r for r in run["rows"] if r["target"] == target), members, partitions, topics,
                                 churned) for run in runs)
        mine = [next(r for r in run["rows"] if r["target"] == target) for run in runs]
        growth = _growth(mine)
        one, many = (2100, 2100, 1), (1000, 10_000, 100)
        lines.append([f"`{target}`", f"{at(*one, False)} / {at(*one, True)}", f"{at(*many, False)} / {at(*many, True)}",
                      growth or "n/a"])
    if not lines:
        raise Missing("gate.json's scale runs have no scale stage")
    stage_s = span(r["seconds"] for r in runs[-1]["rows"])
    return [*markdown(["target", "2,100 x 2,100 fresh / churn", "1,000 x 10,000 / 100 topics fresh / churn",
                       "growth exponent per series"], lines),
            "", f"The stage took {stage_s} s per target in the last run."]


JAVA = "java:org.apache.kafka.clients.consumer."
OUTSIDE = ("--stages scale " + " ".join(f"--target {JAVA}{c}" for c in (
    "StickyAssignor", "CooperativeStickyAssignor", "RangeAssignor", "RoundRobinAssignor"))
    + " --target kafka-python:sticky --target aiokafka:sticky --target kafka-python:range --target aiokafka:range")


def _rung(rung: dict[str, Any]) -> str:
    where = f"{rung['members']:,} x {rung['partitions']:,}" + (f" / {rung['topics']} topics" if rung["topics"] > 1
                                                              else " one topic")
    return f"{where} {'churned' if 'churn' in rung['series'] else 'fresh'}"


@table("gate.scale_outside", "gate")
def scale_outside(source: Source) -> list[str]:
    """The scale stage on Kafka's Java assignors and the Python clients' ones: the verdict, and where it fell."""
    run = source.last(OUTSIDE)
    lines = []
    for r in run["rows"]:
        ladder = r.get("ladder", [])
        over = [rung for rung in ladder if rung["over_budget"]]
        verdict = ", ".join(dict.fromkeys(f"{f['invariant']} ({f['status']})" for f in r["found"])) or (
            "pass" if r["ok"] else f"stage error: {r['error']}")
        if over:
            where = f"over the budget first at {_rung(over[0])}"
        elif ladder:
            top = max(ladder, key=lambda rung: rung["size"])
            where = f"{number(top['cpu_ms'])} ms at {_rung(top)}"
        else:
            where = "no rung climbed"
        name = r["target"].replace(JAVA, "Kafka's ")
        lines.append([f"`{name}`" if ":" in name else name, verdict, where, _growth([r])])
    return markdown(["target", "verdict", "where", "growth exponent per series"], lines)
