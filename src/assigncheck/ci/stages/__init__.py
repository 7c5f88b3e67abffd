"""The gate's stages, in the order they run. Each module has `run(targets, ctx) -> Iterable[StageResult]`, one
result per target as it is done: `each_target` makes it of a function that checks one target; the campaign
stage checks every target in one Spark campaign. A stage that breaks is a stage error in every report
(`guarded`), never a harness traceback."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence

from assigncheck.ci.context import Context, Progress
from assigncheck.ci.results import StageResult
from assigncheck.run.interrupt import stop_if_interrupted
from assigncheck.spec.errors import InputError
from assigncheck.spec.promises import Assignor

STAGES = ("properties", "proofs", "fuzz", "campaign", "scale", "live")
# Stages the quick profile skips for every target (they report why in the gate's table).
FULL_ONLY = ("live",)

StageRun = Callable[[Sequence[Assignor], Context], Iterable[StageResult]]


def guarded(stage: str, target: str, call: Callable[[], Iterable[StageResult]]) -> list[StageResult]:
    """The stage's results, or one stage error for `target` ("all": every target) when it breaks."""
    started = time.monotonic()
    try:
        return list(call())
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001 - reported in every report, and fails the gate
        return [StageResult(stage, target, time.monotonic() - started, error=f"{type(e).__name__}: {e}")]


def each_target(stage: str, check: Callable[[Assignor, Context], StageResult]) -> StageRun:
    """A stage that checks one target at a time, each guarded on its own."""

    def run(targets: Sequence[Assignor], ctx: Context) -> Iterator[StageResult]:
        for target in targets:
            stop_if_interrupted()
            ctx.progress(Progress(stage, target.name, "started"))
            yield from guarded(stage, target.name, lambda target=target: [check(target, ctx)])  # type: ignore[misc]

    return run
