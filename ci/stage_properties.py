"""Gate stage `properties`: hypothesis drives the spec's strategies through the target and the checker.

Hypothesis shrinks a failure before it re-raises it; the last failing example it ran is the minimal
one, and that is the reproducer the stage writes.
"""

from __future__ import annotations

import time
from typing import Any

from assigncheck.ci.gate import Context, findings_from_report
from assigncheck.ci.results import Finding, StageResult
from assigncheck.spec.promises import Assignor, problem_kind

HARD_IDS = ("H1", "H2", "H3", "H4", "H5", "H6", "H7", "H8")


def strategy_for(target: Assignor) -> Any:
    """Problems inside the target's domain: Streams tasks, lag problems, equal subscriptions..."""
    from hypothesis.strategies import one_of

    from assigncheck.spec import strategies as st

    if problem_kind(target) == "streams":
        return st.streams_problems()
    promises = target.promises
    # racks: the rack-aware paths too; empty topics (SPEC.md §1 allows n_t = 0) now and then
    shapes = dict(lag=promises.exact == "lag", racks=None, min_members=0, min_partitions_per_topic=0)
    strategy = st.problems(equal_subscriptions=True if promises.equal_subscriptions_only else None, **shapes)
    if promises.equal_subscriptions_only:  # outside its domain only H1-H8 apply, but they do apply
        strategy = one_of(strategy, st.problems(equal_subscriptions=False, **shapes))
    # co-partitioned topics with racks: KIP-881's partition-by-partition path, which independent counts rarely reach
    strategy = one_of(strategy, st.problems(equal_subscriptions=True if promises.equal_subscriptions_only else None,
                                            co_partitioned=True, **{**shapes, "racks": True}))
    if promises.max_rounds:  # realistic cooperative rounds: a balanced assignment fed back, then a change
        strategy = one_of(strategy, st.sticky_rounds())
    return strategy


def promised_less(target: Assignor) -> str | None:
    """For a built-in: how its declared promises fall short of SPEC.md §8 (None when they do not)."""
    from assigncheck.impl import registry
    from assigncheck.spec.promises import SPEC_PROMISES

    expected = SPEC_PROMISES.get(target.name)
    if expected is None or target.name not in registry.names() or target is not registry.get(target.name):
        return None
    if target.promises == expected:
        return None
    return f"{target.name} declares {target.promises}; SPEC.md §8 says {expected}"


def promised_ids(target: Assignor) -> tuple[str, ...]:
    """The invariant ids a target is held to (JUnit gets one test case per id)."""
    p = target.promises
    ids = list(HARD_IDS)
    if p.balance != "none":
        ids.append(f"balance.{p.balance}")
    if p.stickiness != "none":
        ids.append(f"stickiness.{p.stickiness}")
    ids += [name for name, on in (("fixpoint", p.fixpoint), ("per_topic_spread", p.per_topic_spread),
                                  ("exact", p.exact is not None), ("rounds", p.max_rounds is not None),
                                  ("cooperative.withhold", p.max_rounds is not None and p.eager)) if on]
    return tuple(ids)


def run(target: Assignor, ctx: Context) -> StageResult:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as fix_seed

    from assigncheck.spec.check import check_assignor

    started = time.monotonic()
    deadline = started + ctx.profile.properties_s
    last_failure: dict[str, Any] = {}
    examples = 0

    @fix_seed(ctx.seed)
    @settings(max_examples=ctx.profile.examples, deadline=None, database=None, print_blob=False,
              suppress_health_check=list(HealthCheck))
    @given(strategy_for(target))
    def holds(problem: Any) -> None:
        nonlocal examples
        if time.monotonic() > deadline and not last_failure:
            return  # budget spent: the remaining examples pass trivially (shrinking still runs)
        examples += 1
        _, report = check_assignor(target, problem, seed=ctx.seed, measure=False)
        if not report.ok:
            last_failure.update(problem=problem, report=report)
            raise AssertionError(str(report.violations[0]))

    result = StageResult("properties", target.name, checked=(*promised_ids(target), "promises"))
    shortfall = promised_less(target)
    if shortfall:
        result.findings.append(Finding("properties", target.name, "promises", shortfall))
    try:
        holds()
    except AssertionError:
        pass
    if last_failure:
        result.findings = findings_from_report("properties", target, last_failure["report"],
                                               last_failure["problem"], ctx, seed=ctx.seed,
                                               how=f", hypothesis seed {ctx.seed}")
    result.seconds = time.monotonic() - started
    result.stats = {"examples": examples}
    return result
