"""Fuzz campaigns: atheris rounds sharded over Spark tasks, the corpus merged and findings triaged on the driver.

Each round, every target gets `tasks` tasks; a task is one libFuzzer run in a subprocess (libFuzzer exits the
process it runs in, so never inside a Spark worker) with its own seed, a slice of the target's merged corpus
and a time budget. Afterwards the driver merges the new corpus entries (content-addressed, so duplicates
vanish) and turns crash artifacts into minimized reproducers with `findings.reproducers` (deduplicated by signature).

Layout of the campaign directory::

    fuzz-campaign.json                       parameters; resuming with others is an InputError
    corpus/<target>/<sha1>                   the merged corpus, one file per distinct input
    rounds/<r>/<target>/<task>/{in,new,artifacts}/   what each task saw and produced
    rounds/<r>/_DONE                         the round's commit marker (a resumed campaign skips it)
    reproducers/*.json                       minimized findings (`findings.reproducers` file names)
    summary.json
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from assigncheck.findings.reproducers import slug
from assigncheck.formats.documents import load_json, open_manifest, write_atomic
from assigncheck.spec.errors import InputError

MANIFEST = "fuzz-campaign.json"
TASK_RUNNER = "assigncheck.fuzz.runner"  # `python -m` entry point of one fuzzing job (the fuzz engineer's)
ARTIFACT_PREFIXES = ("crash-", "timeout-", "oom-", "leak-", "slow-unit-")


@dataclass(frozen=True)
class FuzzCampaign:
    targets: tuple[str, ...]
    rounds: int
    seconds: int
    tasks: int = 2
    seed: int = 0

    def __post_init__(self) -> None:
        for name, value, lo in (("--rounds", self.rounds, 1), ("--seconds", self.seconds, 1),
                                ("--tasks", self.tasks, 1), ("--seed", self.seed, 0)):
            if value < lo:
                raise InputError(name, f"must be >= {lo}, got {value}")
        if not self.targets:
            raise InputError("--target", "name at least one target")

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "targets": list(self.targets)}


@dataclass(frozen=True)
class FuzzTask:
    target: str
    round: int
    index: int
    seed: int
    seconds: int
    workdir: str  # holds in/ (the corpus slice), new/ (what libFuzzer adds) and artifacts/


def task_seed(seed: int, round_: int, target: str, index: int) -> int:
    """A distinct libFuzzer seed per (campaign seed, round, target, task), stable across runs."""
    digest = hashlib.sha256(f"{seed}/{round_}/{target}/{index}".encode()).digest()
    return 1 + int.from_bytes(digest[:4], "big") % (2**31 - 2)


def _execs(stderr: str) -> int:
    """libFuzzer's count of executed inputs (`-print_final_stats=1`, else the last status line)."""
    match = re.search(r"stat::number_of_executed_units:\s*(\d+)", stderr)
    if match:
        return int(match.group(1))
    lines = re.findall(r"#(\d+)\s", stderr)
    return int(lines[-1]) if lines else 0


def run_task(task: FuzzTask) -> dict[str, Any]:
    """One `fuzz.runner` job in a subprocess (the body of a Spark task): it fuzzes `in/` as seeds, writes new
    corpus entries to `new/` and findings (minimized by `findings.reproducers` as it goes) to `findings/`."""
    work = Path(task.workdir)
    new, findings = work / "new", work / "findings"
    cmd = [sys.executable, "-m", TASK_RUNNER, "--target", task.target, "--out", str(findings), "--corpus", str(new),
           "--seeds", str(work / "in"), "--seconds", str(task.seconds), "--seed", str(task.seed)]
    t0 = time.perf_counter()
    try:  # the job stops itself after `seconds`; minimizing a finding may add up to a minute
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=task.seconds * 2 + 120)
        code, stderr = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired as e:
        code, stderr = -1, e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    return {
        "target": task.target, "round": task.round, "index": task.index, "seed": task.seed,
        "returncode": code, "execs": _execs(stderr), "seconds": round(time.perf_counter() - t0, 2),
        "new": len(list(new.iterdir())) if new.is_dir() else 0,
        "findings": sorted(p.name for p in findings.glob("*.json")) if findings.is_dir() else [],
        "artifacts": sorted(p.name for p in findings.iterdir() if p.name.startswith(ARTIFACT_PREFIXES))
        if findings.is_dir() else [],
        "stderr_tail": "" if code in (0, 77) else stderr[-2000:],
    }


def _open(campaign: FuzzCampaign, root: Path) -> None:
    params = campaign.to_json()
    open_manifest(root / MANIFEST, {"kind": "fuzz-campaign-manifest", "campaign": params},
                  {key: "--target" if key == "targets" else f"--{key}" for key in params})


def _seed_corpus(target: str, corpus: Path) -> None:
    """A target's first corpus: the regression vectors as decoder bytes (`fuzz.runner.build_seeds`)."""
    if corpus.exists():
        return
    from assigncheck.fuzz.harness import kind_of
    from assigncheck.fuzz.runner import VECTORS, build_seeds

    tmp = corpus.with_name(f".{corpus.name}.seeding")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if not target.startswith("codec:"):
        build_seeds(VECTORS, tmp, kind_of(target))
    tmp.rename(corpus)


def plan_round(campaign: FuzzCampaign, root: Path, round_: int) -> list[FuzzTask]:
    """Tasks of one round; task i of a target gets every `tasks`-th corpus entry starting at i."""
    tasks = []
    for target in campaign.targets:
        corpus = root / "corpus" / slug(target)
        _seed_corpus(target, corpus)
        entries = sorted(corpus.iterdir())
        for i in range(campaign.tasks):
            work = root / "rounds" / str(round_) / slug(target) / str(i)
            shutil.rmtree(work, ignore_errors=True)  # a half-done round from a killed run starts over
            (work / "in").mkdir(parents=True)
            for entry in entries[i::campaign.tasks]:
                shutil.copyfile(entry, work / "in" / entry.name)
            tasks.append(FuzzTask(target, round_, i, task_seed(campaign.seed, round_, target, i),
                                  campaign.seconds, str(work)))
    return tasks


def _merge(task: FuzzTask, corpus: Path) -> int:
    """Copy a task's new inputs into the target's corpus under their content hash; returns how many were new."""
    added = 0
    for path in sorted((Path(task.workdir) / "new").iterdir()):
        data = path.read_bytes()
        dest = corpus / hashlib.sha1(data).hexdigest()
        if not dest.exists():
            dest.write_bytes(data)
            added += 1
    return added


def _collect(task: FuzzTask, reproducers: Path) -> list[dict[str, Any]]:
    """Move a task's findings into the campaign's reproducers. File names carry the finding's signature
    (`findings.reproducers`), so a finding already there from another task or round is a duplicate and dropped.
    A libFuzzer artifact (the harness itself crashed or hung) is re-run here and recorded the same way."""
    from assigncheck.fuzz import harness

    found = []
    findings = Path(task.workdir) / "findings"
    for path in sorted(findings.glob("*.json")) if findings.is_dir() else []:
        dest = reproducers / path.name
        new = not dest.exists()
        if new:
            reproducers.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
        found.append({"file": dest.name, "new": new})
    for path in sorted(findings.iterdir()) if findings.is_dir() else []:
        if not path.name.startswith(ARTIFACT_PREFIXES):
            continue
        target = harness.load(task.target)
        data = path.read_bytes()
        if isinstance(target, harness.CodecTarget):
            violation = target.run(data)
            written = violation and target.file(violation, data, reproducers, seed=task.seed)
        else:
            for finding in target.run(data):
                recorded = target.file(finding, reproducers, seed=task.seed)
                if recorded.new:  # a known one is already listed
                    found.append({"file": recorded.path.name, "new": True})
            continue
        if written:
            found.append({"file": Path(written).name, "new": True})
    return found


def _execute(tasks: list[FuzzTask], executor: str, master: str | None, log: Path) -> list[dict[str, Any]]:
    if executor == "plain":
        return [run_task(t) for t in tasks]
    from assigncheck.spark.session import get_session

    # the first round that runs starts Spark (its own output into the campaign's log), a finished campaign never
    sc = get_session(master, log=log).sparkContext
    return sc.parallelize(tasks, numSlices=len(tasks)).map(run_task).collect()


def run_fuzz_campaign(campaign: FuzzCampaign, out: str | Path, *, executor: str = "spark",
                      master: str | None = None) -> dict[str, Any]:
    """Run (or resume) a fuzz campaign; returns and writes its summary. With `executor="spark"` the tasks of a
    round are Spark tasks on `master` (default local[*]); "plain" runs them one after another in this process."""
    from assigncheck.fuzz import harness
    from assigncheck.spark.session import check_master

    check_master(master)
    if executor not in ("spark", "plain"):
        raise InputError("--executor", f"must be spark or plain, got {executor!r}")
    for target in campaign.targets:  # a bad --target is an InputError here, not a stack trace from a task
        harness.load(target)
    root = Path(out).resolve()
    root.mkdir(parents=True, exist_ok=True)
    _open(campaign, root)
    reproducers = root / "reproducers"
    for round_ in range(campaign.rounds):
        marker = root / "rounds" / str(round_) / "_DONE"
        if marker.exists():
            continue
        tasks = plan_round(campaign, root, round_)
        results = _execute(tasks, executor, master, root / "spark.log")
        by_key = {(r["target"], r["index"]): r for r in results}
        for task in tasks:
            result = by_key[(task.target, task.index)]
            result["merged"] = _merge(task, root / "corpus" / slug(task.target))
            result["reproducers"] = _collect(task, reproducers)
        write_atomic(marker, json.dumps(sorted(results, key=lambda r: (r["target"], r["index"])), indent=1) + "\n")
    summary = _summary(campaign, root)
    write_atomic(root / "summary.json", json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return summary


def _invariant_of(path: Path) -> str:
    """The invariant a reproducer file names (a finding record, or a codec finding's field)."""
    from assigncheck.formats.reproducer import record_of

    doc = load_json(path)
    record = record_of(doc) if "invariant" not in doc else None
    return str(doc.get("invariant") or (record.invariant if record else "unknown"))


def _summary(campaign: FuzzCampaign, root: Path) -> dict[str, Any]:
    per_target: dict[str, dict[str, Any]] = {
        t: {"execs": 0, "corpus": len(list((root / "corpus" / slug(t)).iterdir())), "findings": [], "tasks": 0,
            "failed_tasks": 0}
        for t in campaign.targets}
    for round_ in range(campaign.rounds):
        for r in load_json(root / "rounds" / str(round_) / "_DONE"):
            t = per_target[r["target"]]
            t["execs"] += r["execs"]
            t["tasks"] += 1
            t["failed_tasks"] += 0 if r["returncode"] in (0, 77) else 1
            t["findings"] += [{"reproducer": str(root / "reproducers" / f["file"]), "round": r["round"],
                               "invariant": _invariant_of(root / "reproducers" / f["file"])}
                              for f in r["reproducers"] if f["new"]]
    return {"format": 1, "kind": "fuzz-campaign-summary", "campaign": campaign.to_json(), "targets": per_target}
