"""What every gate stage gets besides its target: the profile's budgets, where to write, the seed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # the findings layer loads when a stage files a finding, not at the CLI's start
    from assigncheck.findings.confirm import Filing
    from assigncheck.run.calibration import Calibration


@dataclass(frozen=True)
class Profile:
    """Budgets per stage and target (the campaign's for all targets together). Each stage does at most its
    nominal work (examples, problems, execs, instances) within its wall-clock time budget, whichever ends first,
    and reports the work it did (`results.Work`): an idle machine does the nominal work, a busy one less.
    `budget_s` and `scale_s` are reference seconds (`run.calibration`): a run scales them by its machine's
    factor (`calibrated`)."""

    name: str
    examples: int  # hypothesis examples (the properties stage's nominal work)
    properties_s: float
    proofs_s: float
    exhaustive_problems: int  # nominal problems of the small-scope enumeration
    fuzz_s: float
    fuzz_execs: int  # nominal fuzz executions
    campaign_instances: int
    campaign_shards: int
    campaign_s: float  # the campaign stage's own budget (a hanging target must not stall the gate for hours)
    budget_s: float  # H7: CPU seconds one assign call may take
    minimize_s: float  # per distinct failure
    max_candidates: int  # distinct raw failures minimized per stage and target
    scale_s: float = 30.0  # the scale stage's budget per target (a fast target climbs its ladder in a few seconds)

    def calibrated(self, factor: float) -> Profile:
        """The profile in the seconds of a machine of CPU factor `factor`: H7's budget per call and the scale
        stage's budget scaled (the hang limit follows H7's budget); the other stages' wall-clock budgets bound
        how long a stage runs, not a verdict, and stay as they are."""
        return replace(self, budget_s=self.budget_s * factor, scale_s=self.scale_s * factor)


PROFILES = {
    # `quick` fits in 5 minutes on 2 cores for all built-in assignors (what `make gate` runs).
    "quick": Profile("quick", examples=2500, properties_s=12, proofs_s=10, exhaustive_problems=1000, fuzz_s=6,
                     fuzz_execs=2500, campaign_instances=10_000, campaign_shards=4, campaign_s=150, budget_s=2.0,
                     minimize_s=6, max_candidates=8, scale_s=30),
    "full": Profile("full", examples=10_000, properties_s=120, proofs_s=60, exhaustive_problems=20000, fuzz_s=120,
                    fuzz_execs=20000, campaign_instances=200_000, campaign_shards=32, campaign_s=3600,
                    budget_s=10.0, minimize_s=30, max_candidates=20, scale_s=600),
}


@dataclass(frozen=True)
class Progress:
    """An event of a gate run, for a progress display: a stage has `started` on a target ("all": on every
    target at once), is `replaying` its findings, or is `done` with it (`steps`: the (stage, target) steps
    that covers, of the run's stages × targets)."""

    stage: str
    target: str
    event: Literal["started", "replaying", "done"]
    detail: str = ""  # what the step does ("10,000 instances × 2 target(s)", "3 finding(s)")
    steps: int = 1

    def __str__(self) -> str:
        what = f"replaying {self.detail} for {self.target}" if self.event == "replaying" else self.target
        detail = f" ({self.detail})" if self.detail and self.event != "replaying" else ""
        return f"{self.stage}: {what}{detail}"


@dataclass
class Context:
    profile: Profile
    work_dir: Path  # this run's own directory; the gate publishes it into the report directory at the end
    seed: int = 0
    master: str | None = None
    progress: Callable[[Progress], None] = field(default=lambda event: None)
    h8_env: str = "PYTHONHASHSEED"  # H8 across processes: the variable two processes of a target differ in
    calibration: Calibration | None = None  # what `profile`'s budgets were scaled by (None: taken as they are)

    def budget_text(self) -> str:
        """H7's budget per call as reports say it: with the reference seconds and factor it was scaled from."""
        budget = f"{self.profile.budget_s:.3g} s"
        if self.calibration is None:
            return budget
        reference = self.profile.budget_s / self.calibration.factor
        return f"{budget} ({reference:.3g} reference s x CPU factor {self.calibration.factor:.3g})"

    @property
    def filing(self) -> Filing:
        """Where this run files its findings and the profile's budgets it files and confirms them with."""
        from assigncheck.findings.confirm import Filing

        p = self.profile
        factor = None if self.calibration is None else self.calibration.factor
        return Filing(self.work_dir / "reproducers", p.budget_s, p.minimize_s, p.max_candidates, factor)
