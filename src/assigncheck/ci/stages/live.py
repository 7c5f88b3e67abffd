"""Gate stage `live`: the target run by real consumers in a real group, on a real Kafka broker (`assigncheck.live`).

It applies to targets a real client runs as its assignor: a classic `java:` ConsumerPartitionAssignor (Kafka's
Java consumer, with the target's classpath), `kafka-python:NAME`, `aiokafka:NAME`, and franz-go's balancers through
the project's driver (`cmd2:.../franz-go-driver BALANCER`, run by franz-go's own consumers). Others are skipped, and
so is every target in the quick profile: one schedule is a minute of real rebalances. In `full`, each such target
runs `SCHEDULES` seeded schedules of `STEPS` changes (seeds from the gate's `--seed`), every distinct violation a
reproducer that `assigncheck replay` re-runs on a fresh broker.
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path

from assigncheck.ci.context import Context, Progress
from assigncheck.ci.results import StageResult, Work
from assigncheck.ci.stages import each_target
from assigncheck.findings.finding import Finding
from assigncheck.run.interrupt import stop_if_interrupted
from assigncheck.spec.promises import Assignor
from assigncheck.targets import registry

SCHEDULES, STEPS = 2, 5
CHECKED = ("H1", "H2", "H3", "H4", "H5", "H6", "live.convergence")
_COORDINATOR = "org.apache.kafka.coordinator."
FRANZ_GO_DRIVER = "franz-go-driver"  # go/cmd/franz-go-driver, built by `make franz-go`


def client_of(target: Assignor) -> tuple[str, str, tuple[str, ...]] | None:
    """(client, assignor as that client names it, classpath), or None when no real client runs the target."""
    ref = registry.ref_of(target)
    prefix, _, rest = ref.spec.partition(":")
    if prefix in ("kafka-python", "aiokafka"):
        return prefix, rest, ()
    if prefix == "java" and not rest.startswith(_COORDINATOR):
        return "java", rest, ref.classpath
    words = shlex.split(rest) if prefix in ("cmd", "cmd2") else []
    if len(words) == 2 and Path(words[0]).name == FRANZ_GO_DRIVER:  # franz-go's balancer, run by franz-go's members
        return "franz-go", words[1], ()
    return None


def check_target(target: Assignor, ctx: Context) -> StageResult:
    found = client_of(target)
    if found is None:
        return StageResult("live", target.name, stats={"skipped": "no real client runs this assignor"})
    if ctx.profile.name == "quick":
        why = "the quick profile runs no live groups (a schedule is a minute of real rebalances): --profile full"
        return StageResult("live", target.name, stats={"skipped": why}, notes=[f"skipped: {why}"])
    from assigncheck.ci.engines import missing

    gone = missing(("confluent_kafka",))
    if gone:
        return StageResult("live", target.name, error="the live stage needs confluent-kafka: "
                                                      "pip install 'assigncheck[kafka]'")
    from assigncheck.live import outcome_check, session
    from assigncheck.live.broker import Broker
    from assigncheck.live.run import Client
    from assigncheck.live.schedule import generate

    client, assignor, classpath = found
    live_client = Client(client, "classic", assignor, classpath)
    promises = target.promises.to_text()
    started = time.monotonic()
    result = StageResult("live", target.name, promises=promises)
    result.checked = CHECKED + (("live.conformance",) if outcome_check.conformance_target(live_client) else ())
    out = ctx.filing.directory
    out.mkdir(parents=True, exist_ok=True)
    done = 0
    with Broker() as broker:
        for i in range(SCHEDULES):
            stop_if_interrupted()
            seed = ctx.seed * SCHEDULES + i
            ctx.progress(Progress("live", target.name, "started", f"schedule {seed}"))
            spec = session.LiveSpec(live_client, generate(seed, STEPS), seed, promises)
            run_result = session.check_live(spec, broker.bootstrap)
            done += 1
            for path, (_, v) in zip(session.write_reproducers(run_result, out), session.distinct(run_result)):
                result.findings.append(Finding.of("live", target.name, v, reproducer=str(path), seed=seed,
                                                  signature=f"{v.invariant}|{client}"))
    result.work = Work(done, SCHEDULES, "schedules")
    result.seconds = time.monotonic() - started
    return result


run = each_target("live", check_target)
