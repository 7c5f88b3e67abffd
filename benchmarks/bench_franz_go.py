"""franz-go's balancers as the speed peer of the built-in sticky assignors: same run, same problem files.

Each problem is written once as a JSON file; both sides read that file. franz-go (`franz_go.bench`: our driver's
`-bench` mode, the version pinned in `go/go.mod`) leads the group in its own Go process as kgo's
leader does and times `Balance`: warm-up leader steps, then timed calls, each on member metadata encoded anew and
run through `MemberBalancer` outside the timed region, after a full collection; CPU is the process's (Go's
collector marks on other threads), wall the call's. Ours, also in a process of its own per round (`timed_calls`, so
that neither side's heap carries what this run did before): warm-up calls, then what is loaded is frozen for the
collector (`run.gc.freeze_loaded`, as the gate's stages do), then timed calls, each on a `Problem` freshly
loaded from the file (no derived data shared with an earlier call), after the last call's output is freed and a
collection (franz-go's are freed by the collection before its next call); CPU is the calling thread's. The same
number of warm-ups and timed calls on both sides, in rounds that take turns (ours, franz-go's, ours, ...), so that
a slow spell of this shared machine does not fall on one side only, and a process of either side that runs slow
throughout is one round of several; the figures are the minimum and median.

The ratio is ours over franz-go's (min CPU; min wall beside it): below 1, ours is faster. Every output is
checked by the spec (`spec.assignment_check.check_assignment`): the hard invariants, Σ count² against the optimum and,
after churn, the retained partitions against the maximum under optimal balance (the oracle, up to 100,000
partitions; above, both sides' Σ count² and retained side by side). A cooperative round withholds the partitions
it moves, so its quality is the hard invariants and what it withholds.

Scenarios: 1000 x 10,000 over 100 topics, each consumer 1-20 topics (`sticky_shapes`): fresh, after
churn (10% re-subscribe, 5% leave) from our output, and the same churn from franz-go's own output; the same at
200 x 2000; 2100 x 2100 on one topic, fresh and after one leaves and one joins (ours also `sticky-constrained`);
5000 x 1 M over 500 topics, fresh and after churn. After churn, `cooperative-sticky` against franz-go's
cooperative balancer on the same group under the cooperative protocol.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assigncheck.formats.documents import (
    assignment_from_json,
    assignment_to_json,
    dumps,
    load_assignment,
    load_problem,
    problem_to_json,
    write_atomic,
)
from assigncheck.run.gc import freeze_loaded
from assigncheck.spec.assignment_check import check_assignment
from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.promises import Promises
from assigncheck.targets import registry

from . import franz_go
from .bench_constrained import churn as leave_and_join
from .bench_constrained import uniform
from .harness import row
from .sticky_shapes import churn, random_subscriptions

KEEP_RUNS = 3
KEEP_WHY = ("the docs report each figure as the range over the last three runs: a process on a shared machine can "
            "run a third slower than the next throughout")

ROUNDS = 5  # each side's timed calls come in this many rounds (processes), the sides taking turns
ORACLE_MAX = 100_000  # partitions: above, the oracle's flow takes longer than the whole benchmark
JUDGE = Promises(balance="optimal", stickiness="max_retained")


@dataclass
class Timed:
    cpu: list[float]  # seconds
    wall: list[float]
    out: Assignment


@dataclass(frozen=True)
class Pair:
    ours: str
    franz: str  # the balancer
    protocol: str = "eager"


def _time_ours(name: str, path: Path, warmup: int, calls: int) -> Timed:
    """`timed_calls` in a Python process of its own, as franz-go's driver runs in a Go process of its own."""
    out = path.with_name(f"{path.stem}.{name}.out.json")
    done = subprocess.run([sys.executable, "-m", "benchmarks.bench_franz_go", name, str(path), str(warmup), str(calls),
                           str(out)], cwd=franz_go.ROOT, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"timing {name} on {path.name} failed: {done.stderr.strip()[-2000:]}")
    times = json.loads(done.stdout)
    return Timed(times["cpu"], times["wall"], load_assignment(out))


def timed_calls(name: str, path: Path, warmup: int, calls: int) -> Timed:
    """Timed calls of a built-in assignor, each on a Problem freshly loaded from `path` (outside the timer)."""
    assignor = registry.get(name)
    for _ in range(warmup):
        assignor.assign(load_problem(path))
    freeze_loaded()
    cpu, wall, out = [], [], None
    for _ in range(calls):
        problem = load_problem(path)
        out = None  # the last call's output is freed here, not when the next timed call's replaces it
        gc.collect()
        t0, w0 = time.thread_time(), time.perf_counter()
        out = assignor.assign(problem)
        cpu.append(time.thread_time() - t0)
        wall.append(time.perf_counter() - w0)
    assert out is not None
    return Timed(cpu, wall, out)


def _time_franz(balancer: str, path: Path, warmup: int, calls: int) -> Timed:
    (result,) = franz_go.bench(balancer, [path], warmup=warmup, calls=calls)
    out = assignment_from_json({"format": 1, "assignment": result["assignment"]})
    return Timed([ms / 1000 for ms in result["cpu_ms"]], [ms / 1000 for ms in result["wall_ms"]], out)


def _merge(timings: dict[tuple[str, str], Timed], key: tuple[str, str], more: Timed) -> None:
    """`more`'s calls added to the side's earlier rounds; the last output kept."""
    if key in timings:
        more = Timed(timings[key].cpu + more.cpu, timings[key].wall + more.wall, more.out)
    timings[key] = more


def _quality(problem: Problem, out: Assignment) -> tuple[bool, str]:
    """The spec's verdict on one output, and its measures in a few words."""
    oracle = problem.partition_count <= ORACLE_MAX
    report = check_assignment(problem, out, JUDGE, oracle=oracle)
    q = report.quality
    if q["withheld"]:
        text = f"withholds {q['withheld']}"
    else:
        text = f"Σcount² {q['sum_squares']}" + (f"/{q['optimal_sum_squares']}" if oracle else "")
        if q["retained"] or q["max_retained"]:
            text += f", retained {q['retained']}" + (f"/{q['max_retained']}" if oracle else "")
    if not report.ok:
        text += "; " + "; ".join(f"{v.invariant}: {v.message}" for v in report.violations[:2])
    return report.ok, text


def _ms_list(values: list[float]) -> dict[str, float]:
    return {"min": round(min(values) * 1000, 3), "median": round(statistics.median(values) * 1000, 3)}


def _ms(values: list[float]) -> str:
    return f"{min(values) * 1000:.2f}/{statistics.median(values) * 1000:.2f}"


def _compare(scenario: str, problem: Problem, pairs: list[Pair], tmp: Path, warmup: int, calls: int,
             rounds: int = ROUNDS) -> tuple[list[dict[str, Any]], dict[str, Assignment]]:
    """Rows for each pair on `problem` (written once per protocol), and franz-go's output per balancer."""
    files: dict[str, Path] = {}
    for protocol in sorted({p.protocol for p in pairs}):
        files[protocol] = tmp / f"{len(list(tmp.iterdir()))}-{protocol}.json"
        write_atomic(files[protocol], dumps(problem_to_json(problem.replace(protocol=protocol))))
    ours: dict[tuple[str, str], Timed] = {}
    franz: dict[tuple[str, str], Timed] = {}
    for _ in range(rounds):  # the sides take turns, so that a slow spell of this shared machine falls on both
        for name, protocol in dict.fromkeys((p.ours, p.protocol) for p in pairs):
            _merge(ours, (name, protocol), _time_ours(name, files[protocol], warmup, calls))
        for name, protocol in dict.fromkeys((p.franz, p.protocol) for p in pairs):
            _merge(franz, (name, protocol), _time_franz(name, files[protocol], warmup, calls))
    rows = []
    for p in pairs:
        mine, theirs = ours[(p.ours, p.protocol)], franz[(p.franz, p.protocol)]
        judged = problem.replace(protocol=p.protocol)
        ok, ours_quality = _quality(judged, mine.out)
        _, franz_quality = _quality(judged, theirs.out)
        cpu_ratio = min(mine.cpu) / min(theirs.cpu)
        wall_ratio = min(mine.wall) / min(theirs.wall)
        note = (f"ratio ours/franz-go: CPU {cpu_ratio:.2f}, wall {wall_ratio:.2f}; ms min/median: ours CPU "
                f"{_ms(mine.cpu)} wall {_ms(mine.wall)}, franz-go CPU {_ms(theirs.cpu)} wall {_ms(theirs.wall)} "
                f"({rounds} rounds of {calls} timed after {warmup} warm-up); quality: ours {ours_quality}, "
                f"franz-go {franz_quality}"
                + (", outputs equal" if mine.out == theirs.out else "")
                + f"; load {os.getloadavg()[0]:.1f}")
        rows.append(row(scenario, p.ours, min(mine.cpu), peer=f"franz-go {p.franz} ({p.protocol})",
                        peer_seconds=min(theirs.cpu), goal="no slower than franz-go; spec-optimal",
                        ok=ok and cpu_ratio <= 1, note=note, cpu_ratio=round(cpu_ratio, 3),
                        wall_ratio=round(wall_ratio, 3), ours_cpu_ms=_ms_list(mine.cpu),
                        franz_cpu_ms=_ms_list(theirs.cpu), ours_wall_ms=_ms_list(mine.wall),
                        franz_wall_ms=_ms_list(theirs.wall), ours_quality=ours_quality,
                        franz_quality=franz_quality, franz_balancer=p.franz, protocol=p.protocol))
    return rows, {p.franz: franz[(p.franz, p.protocol)].out for p in pairs if p.protocol == "eager"}


STICKY = [Pair("sticky", "sticky")]
CHURNED = [*STICKY, Pair("cooperative-sticky", "cooperative-sticky", "cooperative")]


def _general(members: int, topics: int, partitions: int, tmp: Path, warmup: int, calls: int, rounds: int = ROUNDS
             ) -> list[dict]:
    """Fresh, churned from our output, churned from franz-go's output (the same seeded changes)."""
    label = f"{members}x{partitions} / {topics} topics, 1-20 each"
    fresh = random_subscriptions(members, topics, partitions, 20, seed=1)
    rows, franz_out = _compare(f"{label}, fresh", fresh, STICKY, tmp, warmup, calls, rounds)
    changes = {"resubscribe": 0.10, "leave": 0.05, "seed": 2, "max_topics": 20}
    for start, out in (("our", registry.get("sticky").assign(fresh)), ("franz-go's", franz_out["sticky"])):
        after = churn(fresh, out, **changes)
        rows += _compare(f"{label}, churn from {start} output", after, CHURNED, tmp, warmup, calls, rounds)[0]
    return rows


def _one_topic(size: int, tmp: Path, warmup: int, calls: int) -> list[dict]:
    fresh = uniform(size, 1, size)
    pairs = [*STICKY, Pair("sticky-constrained", "sticky")]
    rows = _compare(f"{size}x{size} one topic, fresh", fresh, pairs, tmp, warmup, calls)[0]
    moved = leave_and_join(fresh, registry.get("sticky-constrained").assign(fresh))
    pairs += [Pair("cooperative-sticky", "cooperative-sticky", "cooperative")]
    return rows + _compare(f"{size}x{size} one topic, 1 leaves + 1 joins", moved, pairs, tmp, warmup, calls)[0]


def run(quick: bool) -> list[dict[str, Any]]:
    # 15 timed calls per side, in 5 processes each: a process on this machine can run a third slower than the next
    # one throughout (either side's), so the rounds are many and short
    warmup, calls = (2, 1) if quick else (5, 3)
    with tempfile.TemporaryDirectory(prefix="bench-franz-go-") as name:
        tmp = Path(name)
        rows = _general(*((200, 100, 2000) if quick else (1000, 100, 10_000)), tmp, warmup, calls)
        if not quick:
            rows += _general(200, 100, 2000, tmp, warmup, calls)
        rows += _one_topic(300 if quick else 2100, tmp, warmup, calls)
        if not quick:
            rows += _general(5000, 500, 1_000_000, tmp, 1, 2, rounds=1)  # franz-go takes seconds per call there
    return rows


if __name__ == "__main__":  # `_time_ours`' process: NAME PROBLEM WARMUP CALLS OUTPUT
    _name, _path, _warmup, _calls, _out = sys.argv[1:]
    _timed = timed_calls(_name, Path(_path), int(_warmup), int(_calls))
    write_atomic(_out, dumps(assignment_to_json(_timed.out)))
    print(json.dumps({"cpu": _timed.cpu, "wall": _timed.wall}))
