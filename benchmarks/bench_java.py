"""Kafka's own Java assignors (kafka-clients 3.9.1, unmodified) as the speed peer, same run, same problem files.

Each problem is written once as a JSON file. The Java side (`benchmarks/java/BenchAssignors.java`, one JVM per
Kafka class and problem) rebuilds the group for every call as the `java:` target does (member-side instances,
userData, the wire codec, a new Cluster: outside the timed region), warms the JIT up, then times calls. Ours run
the same way: a fresh `Problem` per call (loaded from the same file, so no per-problem cache is warm), warm-up
calls, then timed calls. Both report min and median CPU time: for the JVM the assigning thread's plus the
garbage collections during the call (serial collector: one thread, stopping the world), for Python the calling
thread's (numpy and OR-Tools run in it). The ratio is Kafka's median over ours. Each output's quality: Σ count²
against the optimum, and after churn the retained partitions against the maximum (`spec.oracle`, under the
balance our assignor promises).

Scenarios: 2100 x 2100 fresh and one leave + one join (constrained: ours `sticky-constrained`,
`-4phase` against Kafka's sticky and cooperative-sticky, which take their constrained path on equal
subscriptions; ours `cooperative-sticky` against Kafka's on the same cooperative group); 2000 x 1 M second
round; 1000 x 10,000 over 100 topics with 1-20 topics each, fresh and churn (general: ours `sticky` against
Kafka's sticky); range and round-robin at 2100 x 2100 and 1000 x 10,000.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assigncheck.formats.documents import assignment_from_json, dumps, load_problem, problem_to_json, write_atomic
from assigncheck.run.gc import freeze_loaded
from assigncheck.spec import balance, oracle, stickiness
from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.rounds import next_round
from assigncheck.targets import java_bridge, registry
from assigncheck.toolchains import java_build

from .bench_constrained import churn as leave_and_join
from .bench_constrained import uniform
from .bench_range_roundrobin import random_subscriptions as rr_random
from .harness import row
from .sticky_shapes import churn, random_subscriptions

BENCH_SOURCE = Path(__file__).with_name("java") / "BenchAssignors.java"
KAFKA = "org.apache.kafka.clients.consumer."
JVM_OPTIONS = ("-Xmx8g", "-Xss16m", "-XX:-UsePerfData", "-XX:+UseSerialGC")  # serial: GC time is CPU time
WARM_MAX, WARM_S, TIMED_MIN, TIMED_MAX, TIMED_S = 20, 5.0, 3, 9, 20.0  # as in BenchAssignors.java


@dataclass
class Scenario:
    name: str
    problem: Problem
    pairs: list[tuple[str, str, str]]  # (ours, Kafka class, protocol the Kafka class runs)
    retained_balance: str | None  # the balance our assignor promises, for max retained; None: fresh


def _scenarios(quick: bool) -> list[Scenario]:
    constrained = registry.get("sticky-constrained")
    small = 300 if quick else 2100
    fresh = uniform(small, 1, small)
    moved = leave_and_join(fresh, constrained.assign(fresh))
    members, topics = (200, 50) if quick else (2000, 500)
    big = uniform(members, topics, 2000)
    second = next_round(big, constrained.assign(big))
    general_size = (200, 2000) if quick else (1000, 10_000)
    general = random_subscriptions(general_size[0], 100, general_size[1], max_topics=20, seed=1)
    general_churn = churn(general, registry.get("sticky").assign(general), resubscribe=0.10, leave=0.05, seed=2,
                          max_topics=20)
    both = [(ours, KAFKA + k, p) for ours in ("sticky-constrained", "sticky-constrained-4phase")
            for k, p in (("StickyAssignor", "eager"), ("CooperativeStickyAssignor", "cooperative"))]
    both.append(("cooperative-sticky", KAFKA + "CooperativeStickyAssignor", "cooperative"))
    exact = [("range", KAFKA + "RangeAssignor", "eager"), ("roundrobin", KAFKA + "RoundRobinAssignor", "eager")]
    return [
        Scenario(f"{small}x{small} fresh", fresh, both, None),
        Scenario(f"{small}x{small} 1 leaves + 1 joins", moved, both, "perfect"),
        Scenario(f"{members}x{topics * 2000} second round", second, both, "perfect"),
        Scenario(f"{general_size[0]}x{general_size[1]} / 100 topics, 1-20 each, fresh", general,
                 [("sticky", KAFKA + "StickyAssignor", "eager")], None),
        Scenario(f"{general_size[0]}x{general_size[1]} / 100 topics, churn", general_churn,
                 [("sticky", KAFKA + "StickyAssignor", "eager")], "optimal"),
        Scenario(f"{small}x{small} range/roundrobin", fresh, exact, None),
        Scenario(f"{general_size[0]}x{general_size[1]} / 100 topics range/roundrobin",
                 rr_random(general_size[0], 100, general_size[1]), exact, None),
    ]


def _protocol_of(name: str, protocol: str) -> str:
    """The protocol our assignor meets beside a Kafka class running `protocol`: a cooperative one (it promises
    rounds) the same cooperative group; an eager-only one the eager form of the group."""
    return protocol if registry.get(name).promises.max_rounds is not None else "eager"


def _time_ours(name: str, path: Path) -> tuple[list[float], Assignment]:
    """Thread CPU seconds of timed calls, each on a fresh Problem read from `path` (warm-up calls first)."""
    assignor = registry.get(name)
    loaded = load_problem(path)
    start, warm = time.monotonic(), 0
    while warm < 1 or (warm < WARM_MAX and time.monotonic() - start < WARM_S):
        assignor.assign(loaded.replace())
        warm += 1
    freeze_loaded()  # as the gate's stages do (`run.gc`); the JVM's young collections skip its old generation
    times: list[float] = []
    start = time.monotonic()
    out = None
    while len(times) < TIMED_MIN or (len(times) < TIMED_MAX and time.monotonic() - start < TIMED_S):
        fresh = loaded.replace()  # a new object: no derived data, no identity-keyed cache hit
        out = None  # the last call's output is freed here, not when the next timed call's replaces it
        t0 = time.thread_time()
        out = assignor.assign(fresh)
        times.append(time.thread_time() - t0)
    assert out is not None
    return times, out


def _time_kafka(jobs: list[tuple[str, Path]], classes: Path, jars: tuple[str, ...]) -> list[dict[str, Any]]:
    java, _ = java_build.jdk()
    results = []
    for class_name, path in jobs:  # one JVM per job: each class warms up alone
        done = subprocess.run([java, *JVM_OPTIONS, "-cp", os.pathsep.join([str(classes), *jars]), "BenchAssignors",
                               f"{class_name}={path}"], capture_output=True, text=True, check=True)
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return results


def _quality(problem: Problem, out: Assignment, retained_balance: str | None) -> str:
    got, best = balance.sum_squares(problem, out), oracle.optimal_sum_squares(problem)
    text = f"Σcount² {got}/{best}"
    if retained_balance is not None:
        text += f", retained {stickiness.retained(problem, out)}/{oracle.max_retained(problem, retained_balance)}"
    return text


def _ms(values: list[float]) -> str:
    return f"{min(values) * 1000:.1f}/{statistics.median(values) * 1000:.1f}"


def run(quick: bool) -> list[dict[str, Any]]:
    jars = java_bridge.kafka_classpath((), KAFKA + "StickyAssignor")
    classes = java_build.compiled([*java_bridge.CLASSIC_SOURCES, BENCH_SOURCE], jars)
    load = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-java-") as tmp:
        for k, scenario in enumerate(_scenarios(quick)):
            files = {}
            for protocol in sorted({p for _, _, p in scenario.pairs}):
                files[protocol] = Path(tmp, f"s{k}-{protocol}.json")
                write_atomic(files[protocol], dumps(problem_to_json(scenario.problem.replace(protocol=protocol))))
            runs = dict.fromkeys((o, _protocol_of(o, p)) for o, _, p in scenario.pairs)
            ours = {(name, p): _time_ours(name, files[p]) for name, p in runs}
            kafka_jobs = list(dict.fromkeys((c, files[p]) for _, c, p in scenario.pairs))
            kafka = {(r["class"], r["file"]): r for r in _time_kafka(kafka_jobs, classes, jars)}
            for name, class_name, protocol in scenario.pairs:
                ours_s, ours_out = ours[(name, _protocol_of(name, protocol))]
                result = kafka[(class_name, str(files[protocol]))]
                kafka_s = [ms / 1000 for ms in result["cpu_ms"]]
                kafka_out = assignment_from_json({"format": 1, "assignment": result["assignment"]})
                problem = scenario.problem.replace(protocol=protocol)
                note = (f"CPU ms min/median: ours {_ms(ours_s)}, Kafka {result['kafka']} {_ms(kafka_s)} "
                        f"(thread alone {_ms([ms / 1000 for ms in result['thread_ms']])}, "
                        f"{len(kafka_s)} timed after {result['warmup']} warm-up); quality: ours "
                        f"{_quality(scenario.problem, ours_out, scenario.retained_balance)}, Kafka "
                        f"{_quality(problem, kafka_out, scenario.retained_balance)}"
                        + (", outputs equal" if ours_out == kafka_out else "")
                        + f"; load {load:.1f} at start, {os.getloadavg()[0]:.1f} now")
                rows.append(row(scenario.name, name, statistics.median(ours_s),
                                peer=f"Kafka {class_name.rsplit('.', 1)[1]} ({protocol})",
                                peer_seconds=statistics.median(kafka_s), note=note,
                                ours_ms_median=round(statistics.median(ours_s) * 1000, 3),
                                kafka_ms_median=round(statistics.median(kafka_s) * 1000, 3),
                                ratio=round(statistics.median(kafka_s) / statistics.median(ours_s), 2),
                                kafka_class=class_name.rsplit('.', 1)[1], protocol=protocol,
                                outputs_equal=ours_out == kafka_out))
    return rows
