"""Measure the harness on the zoo: every entry through every gate stage, timed, plus the mutation score.

Each (entry, technique) cell runs the real gate, `ci.pipeline.run_gate([target], Plan.of("quick", dir, [stage]))`,
and records: caught or not, the stage's wall time (time to the first counterexample, minimization
included; the budget when nothing is found), the invariant, and the size of the reproducer the stage
wrote (members, partitions). A catch counts only if the unbroken assignor (`BREAKS`) passes on that
reproducer; otherwise it is a harness false positive or a bug of the built-in, listed as such. The
"quick gate" column is the gate as a whole: its stages in order, so its time is the sum of the stage
times up to the first stage that catches. The unbroken built-ins run through the same stages as
controls. Results: `RESULTS.md` (Markdown table) and `results.json` beside this file, and for a run over the
whole zoo with its controls, the results file `benchmarks/results/zoo.json` (`benchmarks.record`) the docs'
tables are rendered from. About 15-25 minutes on 2 cores.

    python -m benchmarks.zoo.measure [--stages properties,proofs] [--only kafka_14639] [--mutation]
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assigncheck.ci.pipeline import STAGES, Plan, run_gate
from assigncheck.formats.documents import load_problem, write_atomic
from assigncheck.run.assignor_check import check_assignor
from assigncheck.spec.model import Problem
from assigncheck.targets.registry import get, load_target
from benchmarks import record

from . import ZOO, target_spec

HERE = Path(__file__).resolve().parent
GOAL_MEDIAN_S = 30.0
GOAL_MUTATION_SCORE = 0.95


def bug_title(module: str) -> str:
    doc = importlib.import_module(f"benchmarks.zoo.{module}").__doc__ or ""
    return doc.split(":")[0].split(" (")[0].strip()


def expected_invariants(module: str) -> list[str]:
    doc = importlib.import_module(f"benchmarks.zoo.{module}").__doc__ or ""
    return [s.rstrip(".") for s in re.findall(r"Expected(?: finding)?:\s+([\w.]+)", doc)]


def reproducer_size(path: str | None) -> tuple[int | None, int | None]:
    if not path:
        return None, None
    problem = load_problem(path)
    if not isinstance(problem, Problem):
        return None, None
    return len(problem.members), problem.partition_count


def baseline_passes(base: str, path: str | None) -> bool | None:
    """Whether the unbroken assignor passes on a reproducer (None: no reproducer to judge)."""
    if not path:
        return None
    _, report = check_assignor(get(base), load_problem(path))
    return report.ok


def run_stage(target: Any, stage: str, report_dir: Path, base: str | None, seed: int = 0,
              expected: list[str] | None = None) -> dict[str, Any]:
    """One gate stage on one target, timed. The finding that counts is a confirmed one of an expected
    invariant when there is one (a stage keeps going and may find other things first)."""
    started = time.monotonic()
    try:
        result = run_gate([target], Plan.of("quick", report_dir, [stage]), seed=seed)
    except ModuleNotFoundError as e:
        return {"stage": stage, "available": False, "error": str(e)}
    seconds = time.monotonic() - started
    mine = [s for s in result.stages if s.target in (target.name, "all")]
    # A catch is a confirmed finding: its reproducer replayed alone in a fresh process (findings.confirm.confirm).
    findings = [f for s in mine for f in s.findings if f.target == target.name and f.fails and f.reproducer]
    errors = [s.error for s in mine if s.error]
    first = next((f for f in findings if f.invariant in (expected or ())), findings[0] if findings else None)
    members, partitions = reproducer_size(first.reproducer if first else None)
    clean = baseline_passes(base, first.reproducer if first else None) if base else None
    return {
        "stage": stage,
        "available": True,
        "caught": bool(findings) and clean is not False,
        "found": bool(findings),
        "unconfirmed": sum(not f.fails for s in mine for f in s.findings if f.target == target.name),
        "baseline_passes_reproducer": clean,
        "seconds": round(seconds, 2),
        "invariant": first.invariant if first else None,
        "invariants": sorted({f.invariant for f in findings}),
        "message": first.message[:300] if first else None,
        "reproducer": first.reproducer if first else None,
        "members": members,
        "partitions": partitions,
        "error": errors[0] if errors else None,
        "stats": {k: v for s in mine for k, v in s.stats.items() if isinstance(v, int | float | str)},
    }


def whole_gate(cells: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The quick gate as a whole, from its stages in gate order."""
    elapsed = 0.0
    for stage in STAGES:
        cell = cells.get(stage)
        if not cell or not cell.get("available"):
            continue
        elapsed += cell["seconds"]
        if cell["caught"]:
            return {"caught": True, "seconds": round(elapsed, 2), "stage": stage, "invariant": cell["invariant"],
                    "members": cell["members"], "partitions": cell["partitions"]}
    return {"caught": False, "seconds": round(elapsed, 2), "stage": None, "invariant": None,
            "members": None, "partitions": None}


def measure_entry(module: str, stages: list[str], report_dir: Path, seed: int = 0) -> dict[str, Any]:
    target = load_target(target_spec(module))
    base = importlib.import_module(f"benchmarks.zoo.{module}").BREAKS
    cells = {}
    for stage in stages:
        print(f"zoo: {module} / {stage}", file=sys.stderr, flush=True)
        cells[stage] = run_stage(target, stage, report_dir / module, base, seed, expected_invariants(module))
    return {"module": module, "bug": bug_title(module), "target": target_spec(module), "breaks": base,
            "expected": expected_invariants(module), "techniques": cells, "gate": whole_gate(cells)}


def measure_control(name: str, stages: list[str], report_dir: Path, seed: int = 0) -> dict[str, Any]:
    cells = {}
    for stage in stages:
        print(f"zoo control: {name} / {stage}", file=sys.stderr, flush=True)
        cells[stage] = run_stage(get(name), stage, report_dir / f"control-{name}", None, seed)
    return {"target": name, "techniques": cells, "gate": whole_gate(cells)}


def summarize(entries: list[dict[str, Any]], stages: list[str]) -> dict[str, Any]:
    gate_times = [e["gate"]["seconds"] for e in entries if e["gate"]["caught"]]
    per_stage = {}
    for stage in stages:
        cells = [e["techniques"][stage] for e in entries if e["techniques"][stage].get("available")]
        times = [c["seconds"] for c in cells if c["caught"]]
        per_stage[stage] = {
            "available": bool(cells),
            "caught": sum(c["caught"] for c in cells),
            "of": len(cells),
            "median_seconds": round(statistics.median(times), 2) if times else None,
        }
    caught = sum(e["gate"]["caught"] for e in entries)
    median = round(statistics.median(gate_times), 2) if gate_times else None
    return {
        "entries": len(entries),
        "gate_caught": caught,
        "gate_median_seconds": median,
        "goal_all_caught": caught == len(entries),
        "goal_median": median is not None and median <= GOAL_MEDIAN_S,
        "escaped": [e["module"] for e in entries if not e["gate"]["caught"]],
        "per_stage": per_stage,
    }


def _cell_text(cell: dict[str, Any] | None) -> str:
    if not cell or cell.get("available") is False:
        return "n/a"
    if cell.get("caught"):
        size = f"{cell['members']}m/{cell['partitions']}p" if cell.get("members") is not None else "-"
        return f"**yes** {cell['seconds']:.1f}s {cell['invariant']} ({size})"
    if cell.get("found"):
        return f"no* {cell['seconds']:.1f}s ({cell['invariant']}, base fails too)"
    notes = [*(["stage error"] if cell.get("error") else []),
             *([f"{cell['unconfirmed']} unconfirmed"] if cell.get("unconfirmed") else [])]  # e.g. a harness failure
    return f"no {cell['seconds']:.1f}s" + (f" ({', '.join(notes)})" if notes else "")


def _per_module(mutation: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """module -> (killed, judged)."""
    out: dict[str, tuple[int, int]] = {}
    for r in mutation["rows"]:
        if r["status"] in ("killed", "survived"):
            k, n = out.get(r["module"], (0, 0))
            out[r["module"]] = (k + (r["status"] == "killed"), n + 1)
    return out


def markdown(doc: dict[str, Any]) -> str:
    stages = doc["stages"]
    head = ["bug", "entry", "breaks", "expected"] + stages + ["quick gate"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for e in doc["entries"]:
        row = [e["bug"], f"`{e['module']}`", e["breaks"], ", ".join(e["expected"])]
        row += [_cell_text(e["techniques"].get(s)) for s in stages]
        g = e["gate"]
        where = f" [{g['stage']}]" if g["stage"] else ""
        row.append(_cell_text({"available": True, "found": g["caught"], **g}) + where)
        lines.append("| " + " | ".join(row) + " |")
    for c in doc["controls"]:
        row = ["control (unbroken)", "-", c["target"], "-"] + [_cell_text(c["techniques"].get(s)) for s in stages]
        row.append("**FALSE POSITIVE**" if c["gate"]["caught"] else "passes")
        lines.append("| " + " | ".join(row) + " |")
    s = doc["summary"]
    out = [
        f"# Bug zoo results ({doc['generated']}, profile quick, seed {doc['seed']})",
        "",
        "Cells: caught, stage wall time (time to the first counterexample, minimization included; the "
        "stage budget when nothing is found), invariant, reproducer size (members m / partitions p). "
        "`no*`: the stage found something, but the unbroken assignor fails on that reproducer too. "
        "`n/a`: the stage module is not in the tree. Timings are on a shared 2-core machine (noisy).",
        "",
        *lines,
        "",
        f"Quick gate: caught {s['gate_caught']}/{s['entries']}; median time to counterexample "
        f"{s['gate_median_seconds']} s (goal <= {GOAL_MEDIAN_S:g} s)."
        + (f" Escaped: {', '.join(s['escaped'])}." if s["escaped"] else ""),
    ]
    for stage, p in s["per_stage"].items():
        if p["available"]:
            out.append(f"- {stage}: caught {p['caught']}/{p['of']}, median {p['median_seconds']} s")
    m = doc.get("mutation")
    if m:
        again = sum(r["seconds"] for r in m.get("rejudged_runs", []))
        out += ["", "## Mutation testing", "",
                f"{m['tool']}; modules {', '.join(m['modules'])}; stages {', '.join(m['stages'])}: "
                f"{m['killed']}/{m['mutants']} killed; {m.get('equivalent', 0)} survivors argued equivalent "
                f"(or in code deleted since), listed below with the argument: score {m['score']} without them "
                f"(goal >= {GOAL_MUTATION_SCORE}), {m.get('score_raw', m['score'])} with them. "
                f"{m['label_only_excluded']} mutants of the `name` label excluded; {m['seconds']} s"
                + (f" + {again:.0f} s judging survivors again" if again else "") + ".",
                "", "Per module: " + ", ".join(f"{mod} {k}/{n}" for mod, (k, n) in sorted(_per_module(m).items())), ""]
        if m["survivors"]:
            out += ["| module | # | line | mutation | argued |", "|---|---|---|---|---|"]
            out += [f"| {r['module']} | {r['index']} | {r['line']} | `{r['diff'][:150]}` | "
                    f"{r.get('equivalent', '**not argued**')} |" for r in m["survivors"][:120]]
            if len(m["survivors"]) > 120:
                out.append(f"\n({len(m['survivors']) - 120} more survivors in results.json)")
    return "\n".join(out) + "\n"


def measure_all(stages: list[str] | None = None, only: list[str] | None = None, controls: bool = True,
                mutation: dict[str, Any] | None = None, seed: int = 0, write: bool = True) -> dict[str, Any]:
    stages = stages or list(STAGES)
    run = record.begin()
    if mutation is None and (HERE / "results.json").exists():  # keep the last mutation run (it is slow)
        mutation = json.loads((HERE / "results.json").read_text()).get("mutation")
    modules = [m for m in ZOO if not only or m in only]
    report_dir = Path(tempfile.mkdtemp(prefix="zoo-reports-"))
    entries = [measure_entry(m, stages, report_dir, seed) for m in modules]
    bases = sorted({e["breaks"] for e in entries}) if controls else []
    doc = {
        "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "seed": seed,
        "stages": stages,
        "entries": entries,
        "controls": [measure_control(b, stages, report_dir, seed) for b in bases],
        "mutation": mutation,
        "report_dir": str(report_dir),
    }
    doc["summary"] = summarize(entries, stages)
    if write:
        write_atomic(HERE / "results.json", json.dumps(doc, indent=1) + "\n")
        write_atomic(HERE / "RESULTS.md", markdown(doc))
        if not only and controls:  # the whole zoo: the figures the docs report
            record.save("zoo", run.finish(figure_rows(doc), stages=stages, seed=seed))
    return doc


def figure_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The results file's rows: one per stage (the quick gate as a whole first), entry and control."""
    s = doc["summary"]
    rows: list[dict[str, Any]] = [{"kind": "stage", "stage": "quick gate", "caught": s["gate_caught"],
                                   "of": s["entries"], "median_s": s["gate_median_seconds"]}]
    rows += [{"kind": "stage", "stage": stage, "caught": p["caught"], "of": p["of"], "median_s": p["median_seconds"]}
             for stage, p in s["per_stage"].items() if p["available"]]
    rows += [{"kind": "entry", "entry": e["module"], "bug": e["bug"], "breaks": e["breaks"],
              "caught": e["gate"]["caught"], "stage": e["gate"]["stage"], "seconds": e["gate"]["seconds"],
              "missed_by": [st for st, c in e["techniques"].items() if c.get("available") and not c.get("caught")]}
             for e in doc["entries"]]
    rows += [{"kind": "control", "target": c["target"], "passes": not c["gate"]["caught"]} for c in doc["controls"]]
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.zoo.measure")
    parser.add_argument("--stages", default=",".join(STAGES))
    parser.add_argument("--only", default="", help="zoo modules, comma-separated")
    parser.add_argument("--no-controls", action="store_true")
    parser.add_argument("--mutation", action="store_true", help="also run benchmarks.mutation (slow)")
    parser.add_argument("--mutation-modules", default="")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--attach-mutation", default=None, metavar="FILE",
                        help="put a `python -m benchmarks.mutation --out FILE` result into the results files, "
                             "without measuring the zoo again")
    args = parser.parse_args()
    if args.attach_mutation:
        doc = json.loads((HERE / "results.json").read_text())
        doc["mutation"] = json.loads(Path(args.attach_mutation).read_text())
        write_atomic(HERE / "results.json", json.dumps(doc, indent=1) + "\n")
        write_atomic(HERE / "RESULTS.md", markdown(doc))
        print(markdown(doc))
        return 0
    mutation = None
    if args.mutation:
        from benchmarks import mutation as mut

        modules = [m for m in args.mutation_modules.split(",") if m] or list(mut.MODULES)
        mutation = mut.measure(modules)
    doc = measure_all([s for s in args.stages.split(",") if s], [m for m in args.only.split(",") if m],
                      not args.no_controls, mutation, args.seed)
    print(markdown(doc))
    return 0 if doc["summary"]["goal_all_caught"] else 1


if __name__ == "__main__":
    sys.exit(main())
