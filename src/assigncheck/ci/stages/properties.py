"""Gate stage `properties`: hypothesis drives the spec's strategies through the target and the checker.

The test body never fails: every failing example goes to a `Collector` (`findings.confirm`) and generation goes on to
the end of the budget, so one bug cannot hide the others and a flaky target cannot make hypothesis give up
(`FlakyFailure`). The collected failures are minimized and confirmed like every stage's (`findings.confirm`).
"""

from __future__ import annotations

import time
from typing import Any

from assigncheck.ci.context import Context
from assigncheck.ci.results import StageResult, Work
from assigncheck.ci.stages import each_target
from assigncheck.findings.confirm import Collector, settle
from assigncheck.findings.finding import Finding
from assigncheck.run import breaker
from assigncheck.run.interrupt import stop_if_interrupted
from assigncheck.spec.promises import Assignor, problem_kind

HARD_IDS = ("H1", "H2", "H3", "H4", "H5", "H6", "H7", "H8")
# A Streams target's: H7 and H8, and the Streams invariants every output is held to (docs/SPEC.md §7.4, §7.5).
STREAMS_IDS = ("H7", "H8", "streams.clients", "streams.active_once", "streams.standby_replicas",
               "streams.standby_apart", "streams.standby_stateful")


class _Stop(BaseException):
    """Ends generation (the budget is spent, or the circuit breaker opened); hypothesis lets BaseExceptions
    through instead of shrinking them."""


def strategy_for(target: Assignor) -> Any:
    """Problems inside the target's domain: Streams tasks, lag problems, equal subscriptions..."""
    from hypothesis.strategies import one_of

    from assigncheck.generate import strategies

    if problem_kind(target) == "streams":
        return strategies.streams_problems()
    promises = target.promises
    # racks: the rack-aware paths too; empty topics and empty groups (docs/SPEC.md §1.3 allows them; findings on them
    # are reported apart as unreachable) now and then
    shapes: dict[str, Any] = dict(lag=promises.exact == "lag", racks=None, min_members=0, min_partitions_per_topic=0)
    strategy = strategies.problems(equal_subscriptions=True if promises.equal_subscriptions_only else None, **shapes)
    if promises.equal_subscriptions_only:  # outside its domain only H1-H8 apply, but they do apply
        strategy = one_of(strategy, strategies.problems(equal_subscriptions=False, **shapes))
    # co-partitioned topics with racks: KIP-881's partition-by-partition path, which independent counts rarely reach
    equal = True if promises.equal_subscriptions_only else None
    strategy = one_of(strategy, strategies.problems(equal_subscriptions=equal, co_partitioned=True,
                                                    **{**shapes, "racks": True}))
    # realistic rounds: a balanced assignment fed back, then a change (cooperative rounds; a coordinator's target)
    if promises.max_rounds or promises.group_type != "classic":
        strategy = one_of(strategy, strategies.sticky_rounds())
    return strategy


def promised_less(target: Assignor) -> str | None:
    """For a built-in: how its declared promises fall short of docs/SPEC.md §8.2 (None when they do not)."""
    from assigncheck.spec.promises import SPEC_PROMISES
    from assigncheck.targets import registry

    expected = SPEC_PROMISES.get(target.name)
    if expected is None or target.name not in registry.names() or target is not registry.get(target.name):
        return None
    if target.promises == expected:
        return None
    return f"{target.name} declares {target.promises}; docs/SPEC.md §8.2 says {expected}"


def promised_ids(target: Assignor) -> tuple[str, ...]:
    """The invariant ids a target is held to (JUnit gets one test case per id)."""
    p = target.promises
    if problem_kind(target) == "streams":
        streams = [*STREAMS_IDS, *(("streams.balance",) if p.task_balance != "none" else ()),
                   *(("streams.sticky",) if p.active_stickiness else ()),
                   *(("streams.mix",) if p.subtopology_mix else ()), *(("exact",) if p.exact else ())]
        return tuple(streams)
    ids = list(HARD_IDS)
    if p.balance != "none":
        ids.append(f"balance.{p.balance}")
    if p.stickiness != "none":
        ids.append(f"stickiness.{p.stickiness}")
    ids += [name for name, on in (("fixpoint", p.fixpoint), ("per_topic_spread", p.per_topic_spread),
                                  ("racks", p.racks), ("exact", p.exact is not None),
                                  ("cooperative.rounds", p.max_rounds is not None),
                                  ("cooperative.withhold", p.max_rounds is not None and p.eager)) if on]
    return tuple(ids)


def check_target(target: Assignor, ctx: Context) -> StageResult:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as fix_seed

    from assigncheck.ci.h8_sample import Sample
    from assigncheck.run.assignor_check import check_assignor
    from assigncheck.run.gc import loaded_frozen

    started = time.monotonic()
    deadline = started + ctx.profile.properties_s
    collector = Collector(ctx.profile.max_candidates)
    state = {"examples": 0}
    hangs = breaker.Breaker()

    @fix_seed(ctx.seed)
    @settings(max_examples=ctx.profile.examples, deadline=None, database=None, print_blob=False,
              suppress_health_check=list(HealthCheck))
    @given(strategy_for(target))
    def holds(problem: Any) -> None:
        stop_if_interrupted()
        if time.monotonic() > deadline:
            raise _Stop
        state["examples"] += 1
        _, report = check_assignor(target, problem, seed=ctx.seed, budget_s=ctx.profile.budget_s, measure=False)
        collector.offer(problem, report.violations, ctx.seed, f"hypothesis seed {ctx.seed}")
        sample.offer(problem)
        if hangs.count(breaker.hung(report.violations)):
            raise _Stop

    result = StageResult("properties", target.name, checked=(*promised_ids(target), "promises"),
                         promises=target.promises.to_text())
    shortfall = promised_less(target)
    sample = Sample(target, ctx)  # H8 across processes: two more processes of the target start loading now
    try:
        try:
            with loaded_frozen():  # the target and hypothesis are loaded: collections walk only the examples' objects
                holds()
        except _Stop:
            pass
        result.findings = settle("properties", target, collector.candidates(), ctx.filing)
        sample.settle("properties", result)
    finally:
        sample.close()
    if shortfall:  # a finding about the declaration itself: nothing to replay, nothing to doubt
        result.findings.append(Finding("properties", target.name, "promises", shortfall, status="confirmed"))
    result.work = Work(state["examples"], ctx.profile.examples, "examples")
    result.notes += [breaker.NOTE] if hangs.open else []
    result.stats["failing_examples"] = collector.failing
    result.seconds = time.monotonic() - started
    return result


run = each_target("properties", check_target)
