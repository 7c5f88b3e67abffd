"""Mutation testing of `impl/` against the quick gate: the share of mutants the gate kills.

Mutants come from mutmut 3.8.1's own operators (`mutmut.mutation.file_mutation.create_mutations`); the
runner is ours. `mutmut run` cannot test this repository as laid out: it copies the sources into
`mutants/` and runs pytest there, but the editable install maps `assigncheck.impl` to the original
`impl/` folder (pyproject's `package-dir`), so the copied, mutated code is never imported and every
mutant would "survive". Here each mutant's source is compiled in place of `assigncheck.impl.<module>`
in `sys.modules` of a worker process, and the gate's own stages run on the built-in target that uses it:
`ci.pipeline.run_gate([target], Plan.of("quick", ..., [stage]))`, `properties` first, then `proofs` (when that
stage exists) for the mutants `properties` did not kill. A mutant is killed by any finding, a stage error
(the mutated module does not import) or by running past `MUTANT_TIMEOUT_S` (the worker is restarted).

    python -m benchmarks.mutation [--modules roundrobin,cooperative] [--limit N] [--out FILE]
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
import types
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# impl module -> the built-in assignor whose gate run judges it (in the order they are run)
MODULES: dict[str, str] = {
    "roundrobin": "roundrobin",
    "cooperative": "cooperative-sticky",
    "constrained_kip615": "sticky-constrained-4phase",
    "constrained": "sticky-constrained",
    "range": "range",
}
MUTANT_TIMEOUT_S = 90.0
# Other engineers edit impl/ while a run goes on: the parent snapshots each module's source once and the
# workers mutate that snapshot, so mutant numbers mean the same thing in every process.
SNAPSHOT_ENV = "ASSIGNCHECK_MUTATION_SNAPSHOT"
DECLARE_ENV = "ASSIGNCHECK_MUTATION_DECLARE"  # extra promises for the judged target (workers inherit it)
STAGES = ("properties", "proofs")
# Survivors argued equivalent (or in code deleted since), each with its one-line argument; matched by
# (module, diff), which stays stable when other lines move. The score leaves them out (the usual
# definition: killed / (mutants - equivalent)); `score_raw` keeps them in.
EQUIVALENT = Path(__file__).with_name("mutation_equivalent.json")


@dataclass(frozen=True)
class Mutant:
    module: str
    index: int
    line: int
    diff: str  # "- old line / + new line"
    label_only: bool  # the mutation only touches the class attribute `name` (a label, see RESULTS.md)


def _mutmut_ready() -> None:
    """mutmut reads its configuration once, from the working directory; give it one that names impl/."""
    import mutmut.configuration as configuration

    if configuration._config is not None:  # noqa: SLF001 - mutmut has no public setter
        return
    with tempfile.TemporaryDirectory() as d:
        Path(d, "setup.cfg").write_text("[mutmut]\nsource_paths=impl\n")
        old = os.getcwd()
        os.chdir(d)
        try:
            configuration.config()
        finally:
            os.chdir(old)


def source_path(module: str) -> Path:
    snapshot = os.environ.get(SNAPSHOT_ENV)
    return Path(snapshot, f"{module}.py") if snapshot else ROOT / "src" / "assigncheck" / "impl" / f"{module}.py"


def snapshot(modules: list[str]) -> Path:
    """Copy the modules' current sources aside and point this process (and its workers) at the copy."""
    folder = Path(tempfile.mkdtemp(prefix="mutation-src-"))
    for module in modules:
        (folder / f"{module}.py").write_bytes((ROOT / "src" / "assigncheck" / "impl" / f"{module}.py").read_bytes())
    os.environ[SNAPSHOT_ENV] = str(folder)
    _mutations.cache_clear()
    return folder


@cache
def _mutations(module: str) -> tuple[Any, list[Any]]:
    from mutmut.mutation.file_mutation import create_mutations

    _mutmut_ready()
    path = source_path(module)
    tree, mutations, _, _ = create_mutations(str(path), path.read_text())
    return tree, mutations


def mutants(module: str) -> list[Mutant]:
    """Every mutant mutmut's operators make of `impl/<module>.py`, numbered in mutmut's order."""
    tree, mutations = _mutations(module)
    original = tree.code.splitlines(keepends=True)
    out = []
    for index, m in enumerate(mutations):
        changed = tree.deep_replace(m.original_node, m.mutated_node).code.splitlines(keepends=True)
        lines = [x.rstrip("\n") for x in difflib.unified_diff(original, changed, n=0)][2:]
        hunk = next((x for x in lines if x.startswith("@@")), "@@ -0 @@")
        line = int(hunk.split()[1].lstrip("-").split(",")[0])
        body = [x for x in lines if not x.startswith("@@")]
        label = all(x[1:].strip().startswith("name = ") for x in body)
        out.append(Mutant(module, index, line, " / ".join(x[0] + " " + x[1:].strip() for x in body), label))
    return out


def mutated_source(module: str, index: int) -> str:
    """Mutant `index` of the module's source; -1 is the unmutated source (the control run)."""
    tree, mutations = _mutations(module)
    if index == -1:
        return tree.code
    m = mutations[index]
    return tree.deep_replace(m.original_node, m.mutated_node).code


def _install(module: str, source: str) -> None:
    """Forget every impl module, then make `assigncheck.impl.<module>` the mutant (dependents import it)."""
    for name in [n for n in sys.modules if n == "assigncheck.impl" or n.startswith("assigncheck.impl.")]:
        del sys.modules[name]
    importlib.import_module("assigncheck.impl")
    name = f"assigncheck.impl.{module}"
    mod = types.ModuleType(name)
    mod.__file__ = str(ROOT / "src" / "assigncheck" / "impl" / f"{module}.py")
    mod.__package__ = "assigncheck.impl"
    sys.modules[name] = mod
    try:
        exec(compile(source, mod.__file__, "exec"), mod.__dict__)  # noqa: S102 - the mutant under test
    except BaseException:
        del sys.modules[name]
        raise


class Declared:
    """A built-in judged under promises it does not (yet) declare: `--declare fixpoint=true` projects the
    score a promise fix would give."""

    def __init__(self, inner: Any, promises: Any) -> None:
        self.name, self.promises, self._inner = inner.name, promises, inner

    def assign(self, problem: Any) -> Any:
        return self._inner.assign(problem)


def _declared(target: Any) -> Any:
    extra = os.environ.get(DECLARE_ENV)
    if not extra:
        return target
    from dataclasses import fields, replace

    from assigncheck.spec.promises import Promises

    parsed = Promises.parse(extra)
    given = {k.strip().split("=")[0].replace("-", "_") for k in extra.split(",")}
    return Declared(target, replace(target.promises, **{f.name: getattr(parsed, f.name) for f in fields(Promises)
                                                         if f.name in given}))


def judge(module: str, index: int, report_dir: Path, stages: tuple[str, ...] = STAGES) -> dict[str, Any]:
    """Run the gate's stages on the mutant until one kills it."""
    from assigncheck.ci.pipeline import Plan, run_gate

    started = time.monotonic()
    verdict: dict[str, Any] = {"module": module, "index": index, "status": "survived", "by": None, "invariant": None}
    try:
        _install(module, mutated_source(module, index))
        from assigncheck.targets import registry

        target = _declared(registry.get(MODULES[module]))
    except Exception as e:  # noqa: BLE001 - a mutant that breaks the import is killed by any gate run
        verdict.update(status="killed", by="import", invariant=f"{type(e).__name__}: {e}"[:200])
        verdict["seconds"] = round(time.monotonic() - started, 2)
        return verdict
    from assigncheck.spec.errors import InputError

    verdict["stages_run"] = []
    for stage in stages:
        try:
            result = run_gate([target], Plan.of("quick", report_dir, [stage]))
        except ModuleNotFoundError:
            continue  # that stage module is not in the tree (yet)
        except InputError as e:  # e.g. a mutated promise names no reference: the gate exits 2
            verdict.update(status="killed", by=stage, invariant=f"InputError: {e}"[:200])
            break
        verdict["stages_run"].append(stage)
        # The mutant lives in this process only: a fresh replay process loads the real module, so the gate
        # cannot confirm a finding on it. Any finding (or stage error) is the harness noticing the mutant.
        bad = [s for s in result.stages if s.findings or s.error]
        if bad:
            s = bad[0]
            verdict.update(status="killed", by=stage,
                           invariant=s.findings[0].invariant if s.findings else f"stage error: {s.error}"[:200])
            break
    verdict["seconds"] = round(time.monotonic() - started, 2)
    return verdict


def _no_shrinking() -> None:
    """A mutant is killed by the first failing example; shrinking it only makes the reproducer smaller, so
    the worker skips hypothesis's shrink phase (the verdict is the same, the run several times faster)."""
    from hypothesis import Phase, settings

    settings.register_profile("mutation", phases=[Phase.explicit, Phase.reuse, Phase.generate])
    settings.load_profile("mutation")


def _worker(module: str, indices: list[int], out: Path) -> None:
    _no_shrinking()
    report_dir = Path(tempfile.mkdtemp(prefix=f"mutation-{module}-"))
    with out.open("a") as f:
        for i in indices:
            f.write(json.dumps({"start": i}) + "\n")
            f.flush()
            f.write(json.dumps(judge(module, i, report_dir)) + "\n")
            f.flush()


def run_module(module: str, indices: list[int], log: Path, timeout_s: float = MUTANT_TIMEOUT_S) -> list[dict[str, Any]]:
    """Judge `indices` of one module in a worker process, restarting it past a mutant that hangs."""
    done: dict[int, dict[str, Any]] = {}
    todo = list(indices)
    while todo:
        log.write_text("")
        cmd = [sys.executable, "-m", "benchmarks.mutation", "--worker", module, ",".join(map(str, todo)),
               "--out", str(log)]
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        current, since = None, time.monotonic()
        while proc.poll() is None:
            time.sleep(0.5)
            for row in map(json.loads, filter(None, log.read_text().splitlines())):
                if "start" in row and row["start"] != current and row["start"] not in done:
                    current, since = row["start"], time.monotonic()
                elif "status" in row:
                    done[row["index"]] = row
            if current is not None and current not in done and time.monotonic() - since > timeout_s:
                proc.kill()
                proc.wait()
                done[current] = {"module": module, "index": current, "status": "killed", "by": "timeout",
                                 "invariant": f"no verdict within {timeout_s:g} s", "seconds": timeout_s}
        for row in map(json.loads, filter(None, log.read_text().splitlines())):
            if "status" in row:
                done[row["index"]] = row
        if proc.returncode not in (0, None) and current is not None and current not in done:
            done[current] = {"module": module, "index": current, "status": "killed", "by": "crash",
                             "invariant": f"worker exited {proc.returncode}", "seconds": 0.0}
        todo = [i for i in indices if i not in done]
    return [done[i] for i in indices]


def _judge_module(module: str, limit: int | None, every: int, log_dir: Path) -> list[dict[str, Any]]:
    all_mutants = mutants(module)
    control = run_module(module, [-1], log_dir / f"{module}-control.jsonl")[0]
    if control["status"] != "survived":  # the unmutated module already fails the gate: no verdict means much
        print(f"mutation {module}: the unmutated module fails the gate ({control['invariant']}); skipped",
              file=sys.stderr, flush=True)
        return [{**control, "status": "control-fails", "line": 0, "diff": "(unmutated)"}]
    chosen = [m for m in all_mutants if not m.label_only][::every][:limit]
    verdicts = run_module(module, [m.index for m in chosen], log_dir / f"{module}.jsonl")
    by_index = {m.index: m for m in all_mutants}
    rows = [{**v, "line": by_index[v["index"]].line, "diff": by_index[v["index"]].diff} for v in verdicts]
    rows += [{"module": module, "index": m.index, "status": "label", "by": None, "invariant": None,
              "seconds": 0.0, "line": m.line, "diff": m.diff} for m in all_mutants if m.label_only]
    print(f"mutation {module}: {sum(v['status'] == 'killed' for v in verdicts)}/{len(verdicts)} killed",
          file=sys.stderr, flush=True)
    return rows


def scored(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The summary of judged rows: kills, survivors (each marked with its equivalence argument when it has
    one in `EQUIVALENT`), the score without the equivalent ones and the raw score."""
    argued = {(e["module"], e["diff"]): e for e in json.loads(EQUIVALENT.read_text())} if EQUIVALENT.exists() else {}
    for r in rows:
        e = argued.get((r["module"], r.get("diff"))) if r["status"] == "survived" else None
        r.pop("equivalent", None)
        if e:
            r["equivalent"] = f"{e['kind']}: {e['why']}"
    judged = [r for r in rows if r["status"] in ("killed", "survived")]
    killed = sum(r["status"] == "killed" for r in judged)
    excluded = sum("equivalent" in r for r in judged)
    return {
        "mutants": len(judged),
        "killed": killed,
        "equivalent": excluded,
        "score": round(killed / (len(judged) - excluded), 4) if len(judged) > excluded else None,
        "score_raw": round(killed / len(judged), 4) if judged else None,
        "survivors": [r for r in rows if r["status"] == "survived"],
    }


SUMMARY = ("mutants", "killed", "equivalent", "score", "score_raw", "tool", "stages")


def figure_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The results file's rows: per module, the mutants judged, killed, and the survivors argued equivalent."""
    rows: dict[str, dict[str, Any]] = {}
    for r in result["rows"]:
        if r["status"] in ("killed", "survived"):
            m = rows.setdefault(r["module"], {"module": r["module"], "mutants": 0, "killed": 0, "equivalent": 0})
            m["mutants"] += 1
            m["killed"] += r["status"] == "killed"
            m["equivalent"] += "equivalent" in r
    return sorted(rows.values(), key=lambda m: m["module"])


def measure(modules: list[str], limit: int | None = None, every: int = 1, jobs: int = 1) -> dict[str, Any]:
    """The mutants of `modules` (every `every`-th, at most `limit` per module) judged by the quick gate,
    `jobs` modules at a time (one worker process each)."""
    from concurrent.futures import ThreadPoolExecutor

    started = time.monotonic()
    source = snapshot(modules)
    log_dir = Path(tempfile.mkdtemp(prefix="mutation-logs-"))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        parts = list(pool.map(lambda m: _judge_module(m, limit, every, log_dir), modules))
    rows = [r for part in parts for r in part]
    return {
        "generated": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "tool": "mutmut 3.8.1 operators (mutmut.mutation.file_mutation.create_mutations), own runner",
        "stages": list(STAGES),
        "sample": f"every {every}. non-label mutant" + (f", at most {limit} per module" if limit else ""),
        "modules": sorted({r["module"] for r in rows}),
        "source_snapshot": str(source),
        **scored(rows),
        "label_only_excluded": sum(r["status"] == "label" for r in rows),
        "seconds": round(time.monotonic() - started, 1),
        "controls_failing": [r["module"] for r in rows if r["status"] == "control-fails"],
        "rows": rows,
    }


def rejudge(previous: dict[str, Any], jobs: int = 1, modules: list[str] | None = None,
            only: set[tuple[str, int]] | None = None) -> dict[str, Any]:
    """Judge a previous run's survivors (all, or those in `only`: (module, index)) again on the same source
    snapshot, e.g. once more stages are in the tree or the spec changed; killed verdicts stand."""
    from concurrent.futures import ThreadPoolExecutor

    started = time.monotonic()
    os.environ[SNAPSHOT_ENV] = previous["source_snapshot"]
    _mutations.cache_clear()
    log_dir = Path(tempfile.mkdtemp(prefix="mutation-logs-"))
    survivors: dict[str, list[int]] = {}
    for r in previous["survivors"]:
        if (modules is None or r["module"] in modules) and (only is None or (r["module"], r["index"]) in only):
            survivors.setdefault(r["module"], []).append(r["index"])
    order = [m for m in (modules or sorted(survivors)) if m in survivors]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        parts = list(pool.map(lambda m: run_module(m, survivors[m], log_dir / f"{m}-again.jsonl"), order))
    again = {(v["module"], v["index"]): v for part in parts for v in part}
    rows = [{**r, **again.get((r["module"], r["index"]), {})} for r in previous["rows"]]
    runs = previous.get("rejudged_runs") or ([previous["rejudged"]] if "rejudged" in previous else [])
    runs = [*runs, {"survivors": sum(map(len, survivors.values())), "seconds": round(time.monotonic() - started, 1)}]
    kept = {k: v for k, v in previous.items() if k != "rejudged"}
    return {**kept, "rows": rows, **scored(rows), "rejudged_runs": runs,
            "generated": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mutation")
    parser.add_argument("--modules", default=",".join(MODULES))
    parser.add_argument("--limit", type=int, default=None, help="at most this many mutants per module")
    parser.add_argument("--every", type=int, default=1, help="judge every N-th mutant (a deterministic sample)")
    parser.add_argument("--jobs", type=int, default=1, help="modules judged at the same time")
    parser.add_argument("--declare", default="", help="judge under these extra promises, e.g. fixpoint=true")
    parser.add_argument("--rejudge", default=None, help="a previous --out file: judge its survivors again")
    parser.add_argument("--only", default="", help="with --rejudge: just these survivors, e.g. range#14,cooperative#62")
    parser.add_argument("--rescore", default=None, help="a previous --out file: apply the equivalence list again")
    parser.add_argument("--out", default=None)
    parser.add_argument("--worker", nargs=2, metavar=("MODULE", "INDICES"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        module, indices = args.worker
        _worker(module, [int(i) for i in indices.split(",")], Path(args.out))
        return 0
    from benchmarks import record

    started = record.begin()
    modules = [m for m in args.modules.split(",") if m]
    unknown = sorted(set(modules) - set(MODULES))
    if unknown:
        print(f"--modules: unknown {', '.join(unknown)}; known: {', '.join(MODULES)}", file=sys.stderr)
        return 2
    if args.declare:
        os.environ[DECLARE_ENV] = args.declare
    only = {(m, int(i)) for m, _, i in (x.partition("#") for x in args.only.split(",") if x)} or None
    if args.rescore:
        previous = json.loads(Path(args.rescore).read_text())
        result = {**previous, **scored(previous["rows"])}
    elif args.rejudge:
        result = rejudge(json.loads(Path(args.rejudge).read_text()), args.jobs, modules, only)
    else:
        result = measure(modules, args.limit, args.every, args.jobs)
    result["declared"] = args.declare or None
    if not args.limit and args.every == 1 and not args.declare and not only and set(modules) == set(MODULES):
        # every judged module of `impl/`, every mutant: the score the docs report
        record.save("mutation", started.finish(figure_rows(result), **{k: result[k] for k in SUMMARY}))
    text = json.dumps(result, indent=1) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    print(json.dumps({k: v for k, v in result.items() if k not in ("rows", "survivors")}))
    for s in result["survivors"]:
        argued = f"  [{s['equivalent']}]" if "equivalent" in s else ""
        print(f"SURVIVED {s['module']}#{s['index']} line {s['line']}: {s['diff']}{argued}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
