"""Results files: what one benchmark measured, where and when, in `benchmarks/results/<name>.json`.

Every measuring command writes its figures through this module, so each file has the same frame: the command
that made a run, its date, the commit of the code it measured, the machine (cores, memory), the one-minute load
average at its start and end, and its rows (whatever that benchmark measures; `benchmarks.figures` knows how to
lay each file's rows out as the docs' tables). A file keeps the last `keep` runs of each variant (a variant is a
way of running the same benchmark, such as with every core kept busy), newest last, for the tables that report a
range over runs.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assigncheck.formats.documents import write_atomic

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results"


def command_line() -> str:
    """This process's command as a user types it: `python -m benchmarks bench_java`, not the venv's path."""
    argv = list(getattr(sys, "orig_argv", sys.argv))
    if argv and Path(argv[0]).name.startswith("python"):
        argv[0] = "python"
    return " ".join(argv)


def load_average() -> float:
    """The one-minute load average (`uptime`'s first figure), to one decimal."""
    return round(os.getloadavg()[0], 1)


def machine() -> dict[str, Any]:
    """Cores, memory and processor of this machine: what a figure measured here can be compared with."""
    memory_kib = 0
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory_kib = int(line.split()[1])
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:  # not Linux: the processor name from platform is what there is
        pass
    return {"cores": os.cpu_count(), "memory_gib": round(memory_kib / 2**20, 1), "processor": model,
            "python": platform.python_version()}


def commit() -> str:
    """The commit of the code measured (`git rev-parse --short HEAD`), with `+changes` when `src/` or `native/`
    differ from it: then the figures are of code no commit holds."""
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    changed = git("status", "--porcelain", "--untracked-files=no", "--", "src", "native")
    return f"{head}+changes" if changed else head


@dataclass(frozen=True)
class Run:
    """A run under way: what is known at its start."""

    command: str
    date: str
    commit: str
    machine: dict[str, Any]
    load_start: float
    started: float

    def finish(self, rows: list[dict[str, Any]], *, variant: str = "", **extra: Any) -> dict[str, Any]:
        """The run's record: the frame, the load now, the wall time since `begin`, the rows, and `extra`
        (figures of the run as a whole, such as a gate's exit code)."""
        return {"command": self.command, "date": self.date, "commit": self.commit, "machine": self.machine,
                "load": {"start": self.load_start, "end": load_average()},
                "seconds": round(time.monotonic() - self.started, 1), "variant": variant, **extra, "rows": rows}


def begin(command: str | None = None) -> Run:
    """Start a run: the command (this process's own unless given), the date, the commit, the load now."""
    return Run(command or command_line(), time.strftime("%Y-%m-%d", time.gmtime()), commit(), machine(),
               load_average(), time.monotonic())


def path_of(name: str, directory: Path = RESULTS) -> Path:
    return directory / f"{name}.json"


def read(name: str, directory: Path = RESULTS) -> dict[str, Any]:
    """The results file `name` (FileNotFoundError when it does not exist)."""
    doc: dict[str, Any] = json.loads(path_of(name, directory).read_text())
    return doc


def save(name: str, run: dict[str, Any], *, keep: int = 1, why: str = "", directory: Path = RESULTS) -> Path:
    """Add `run` to the results file `name`, keeping the last `keep` runs of its variant (and every other
    variant's); `why` says why the file keeps more than one."""
    path = path_of(name, directory)
    try:
        runs = read(name, directory)["runs"]
    except (FileNotFoundError, KeyError, ValueError):
        runs = []
    runs = [*runs, run]
    same = [r for r in runs if r.get("variant", "") == run["variant"]]
    dropped = {id(r) for r in same[:-keep]} if keep > 0 else set()
    doc = {"name": name, "keep": keep, "why_keep": why, "runs": [r for r in runs if id(r) not in dropped]}
    directory.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    return path
