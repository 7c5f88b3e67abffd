"""The spec's checks on a live group (docs/SPEC.md §13): H6 on the members' callback timelines, H1-H5 and the
declared promises at each stable point (stickiness against the previous one), convergence, and conformance with
the assignor's output on the problem rebuilt from the group's state."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

from assigncheck.live.run import Client, Outcome, StablePoint
from assigncheck.spec.assignment_check import check_assignment
from assigncheck.spec.model import Assignment, Member, Problem, partitions_equal, partitions_of
from assigncheck.spec.promises import Promises
from assigncheck.spec.violations import Violation
from assigncheck.targets import registry

# The assignors whose output is a function of the group's state alone (no history in userData), each with the
# target that computes it: the library's own code where assigncheck runs it (kafka-python, aiokafka, Kafka's Java
# classes through the java: bridge, franz-go's balancers through its cmd2: driver), the spec's reference of Kafka's
# assignor for librdkafka's.
_KAFKA = "org.apache.kafka.clients.consumer."
_FRANZ_GO = Path(sys.prefix) / "bin" / "franz-go-driver"  # `make franz-go` builds it beside the franz-go member
CONFORMANCE = {
    ("java", "classic", f"{_KAFKA}RangeAssignor"): f"java:{_KAFKA}RangeAssignor",
    ("java", "classic", f"{_KAFKA}RoundRobinAssignor"): f"java:{_KAFKA}RoundRobinAssignor",
    ("confluent-kafka", "classic", "range"): "range",
    ("confluent-kafka", "classic", "roundrobin"): "roundrobin",
    ("kafka-python", "classic", "range"): "kafka-python:range",
    ("kafka-python", "classic", "roundrobin"): "kafka-python:roundrobin",
    ("aiokafka", "classic", "range"): "aiokafka:range",
    ("aiokafka", "classic", "roundrobin"): "aiokafka:roundrobin",
    ("franz-go", "classic", "range"): f"cmd2:{shlex.quote(str(_FRANZ_GO))} range",
    ("franz-go", "classic", "roundrobin"): f"cmd2:{shlex.quote(str(_FRANZ_GO))} roundrobin",
}
# What each assignor documents, for those without a conformance target.
DOCUMENTED = {
    "sticky": "balance=local", "cooperative-sticky": "balance=local",
    f"{_KAFKA}StickyAssignor": "balance=local", f"{_KAFKA}CooperativeStickyAssignor": "balance=local",
    "uniform": "balance=uniform", "range": "balance=per-topic", "roundrobin": "balance=perfect",
}


def conformance_target(client: Client) -> str | None:
    return CONFORMANCE.get((client.client, client.protocol, client.assignor))


def promises_of(client: Client, declared: str | None) -> Promises:
    """`--promises` when given, else what the conformance target declares, else what the assignor documents."""
    if declared is not None:
        return Promises.parse(declared)
    spec = conformance_target(client)
    if spec is not None and not spec.startswith(("java:", "cmd2:")):  # a bridge declares no promises
        return registry.load_target(spec).promises
    name = client.assignor.removeprefix(_KAFKA)
    return Promises.parse(DOCUMENTED.get(client.assignor) or DOCUMENTED.get(name.lower().removesuffix("assignor"))
                          or "balance=none")


def overlaps(timelines: dict[str, list[dict[str, Any]]]) -> list[Violation]:
    """H6 on the real group: a partition two members own at one instant, each member owning a partition from its
    `assigned` callback to the return of its `revoked`/`lost` callback, its close, or its SIGKILL."""
    intervals: dict[tuple[str, int], list[tuple[float, float, str]]] = {}
    for name, events in timelines.items():
        since: dict[tuple[str, int], float] = {}
        for e in events:
            pairs = [(t, int(p)) for t, p in e.get("partitions", ())]
            if e["event"] == "assigned":
                for tp in pairs:
                    since.setdefault(tp, e["t"])
            elif e["event"] in ("revoked", "lost", "closed", "killed"):
                for tp in (list(since) if e["event"] in ("closed", "killed") else pairs):
                    if tp in since:
                        intervals.setdefault(tp, []).append((since.pop(tp), e["t"], name))
        for tp, start in since.items():
            intervals.setdefault(tp, []).append((start, float("inf"), name))
    found = []
    for tp in sorted(intervals):
        spans = sorted(intervals[tp])
        for (_, e1, a), (s2, e2, b) in zip(spans, spans[1:]):
            if s2 < e1 and a != b:
                found.append(Violation("H6", f"{tp[0]}-{tp[1]} owned by {a} and {b} at once for "
                                             f"{min(e1, e2) - s2:.3f} s (from {b}'s assigned callback)",
                                       (a, b), (tp,)))
                break
    return found


def problem_at(point: StablePoint, previous: StablePoint | None) -> Problem:
    """The rebalance that led to `point`, rebuilt from the group's state: its members by their broker-side ids,
    subscriptions and instance ids, the topics' partition counts, and what each owned at the previous stable point
    (generation 1; nothing for a new member). Eager, whatever the protocol: a stable point is the end of a
    rebalance, so cooperative hand-overs are over."""
    held = previous.assignment if previous is not None else {}
    members = tuple(
        Member(point.member_ids[name], frozenset(point.subscriptions[name]),
               partitions_of(sorted(held.get(name, ()))), 1 if held.get(name) else -1, point.instance_ids[name])
        for name in sorted(point.member_ids))
    return Problem(dict(point.topics), members)


def assignment_at(point: StablePoint) -> Assignment:
    return Assignment.of({point.member_ids[n]: sorted(parts) for n, parts in point.assignment.items()})


def check(outcome: Outcome, client: Client, promises: Promises, converge_s: float,
          conform: Any = None) -> list[tuple[int | None, Violation]]:
    """Every violation, with the schedule step of the stable point it was seen at (None: the timelines')."""
    found: list[tuple[int | None, Violation]] = [(None, v) for v in overlaps(outcome.timelines)]
    if outcome.unsettled is not None:
        step, waited = outcome.unsettled
        found.append((step, Violation("live.convergence", f"no stable point {waited:.0f} s after step {step} "
                                                          f"(at most {converge_s:.0f} s declared)")))
    previous = None
    for point in outcome.points:
        problem, assignment = problem_at(point, previous), assignment_at(point)
        found += [(point.step, v) for v in check_assignment(problem, assignment, promises).violations]
        if conform is not None:
            expected = conform.assign(problem)
            if expected != assignment:
                moved = sorted(m for m in point.member_ids.values()
                               if not partitions_equal(expected.get(m), assignment.get(m)))
                found.append((point.step, Violation(
                    "live.conformance", f"the group's assignment differs from {conform.name}'s on the rebuilt "
                                        f"problem for {', '.join(moved)}", tuple(moved))))
        previous = point
    return found
