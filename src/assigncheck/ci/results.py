"""What the gate's stages produce: cases (pass/fail per target × stage × invariant), findings
(`findings.finding`) and the work done."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assigncheck.findings.finding import STATUSES, Bug, Finding, Status, bugs
from assigncheck.formats.bounded import shown

if TYPE_CHECKING:
    from assigncheck.run.calibration import Calibration


@dataclass
class Work:
    """How much a stage checked, against what its profile asked for: a busy machine checks less, and says so."""

    done: int
    nominal: int
    unit: str  # examples, problems, execs, instances, shapes

    @property
    def short(self) -> bool:
        return self.nominal > 0 and self.done < self.nominal / 2

    def __str__(self) -> str:
        return f"{self.done:,}/{self.nominal:,} {self.unit}"


@dataclass
class StageResult:
    stage: str
    target: str
    seconds: float = 0.0
    checked: tuple[str, ...] = ()  # invariant ids this stage checked for this target
    findings: list[Finding] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)  # e.g. exec/s, bound proved
    error: str | None = None  # the stage itself could not run (reported, and fails the gate)
    promises: str | None = None  # the promises enforced, as `--promises` text ("" = H1-H8 only)
    work: Work | None = None
    notes: list[str] = field(default_factory=list)  # warnings: short work, circuit breaker, protocol notes
    rows: list[dict[str, Any]] = field(default_factory=list)  # per-instance measures (campaign) for the plots

    @property
    def ok(self) -> bool:
        return not any(f.fails for f in self.findings) and self.error is None

    @property
    def skipped(self) -> bool:
        """The stage had nothing it could check for this target (the reason is in stats["skipped"])."""
        return "skipped" in self.stats

    def failing(self) -> list[Finding]:
        return [f for f in self.findings if f.fails]

    def to_json(self) -> dict[str, Any]:
        doc = asdict(self)
        del doc["rows"]  # plotted in the HTML report; the campaign's Parquet rows hold them all
        doc["ok"] = self.ok
        doc["work"] = None if self.work is None else {**asdict(self.work), "short": self.work.short}
        return doc


@dataclass
class GateResult:
    profile: str
    targets: tuple[str, ...]
    stages: list[StageResult] = field(default_factory=list)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)  # gate-wide warnings (a busy machine)
    load: float | None = None  # the machine's load average when the run started
    reports: dict[str, Path] = field(default_factory=dict)  # the reports published, by kind (junit, json, ...)
    calibration: Calibration | None = None  # the CPU factor the profile's budgets were scaled by
    budget_s: float | None = None  # H7's budget per call in reference seconds (the profile's)

    def calibration_text(self) -> str:
        """The budgets in this machine's units, one line, as every report states them ("" when uncalibrated)."""
        c = self.calibration
        if c is None:
            return ""
        budget = "" if self.budget_s is None else (
            f"H7's budget {self.budget_s:g} reference s = {c.scaled(self.budget_s):.3g} s of CPU per call here, ")
        return (f"{c.text()}: {budget}and the scale stage's time budget scaled alike; max_time promises are "
                f"absolute")

    @property
    def findings(self) -> list[Finding]:
        return [f for s in self.stages for f in s.findings]

    def by_status(self, status: Status) -> list[Finding]:
        return [f for f in self.findings if f.status == status]

    @property
    def bugs(self) -> list[Bug]:
        """Every finding, grouped by bug (`bugs`): what the reports count and list."""
        return bugs(self.findings)

    def bugs_of(self, stage: StageResult) -> list[Bug]:
        """The bugs a stage found on its target, directly or through a consequence."""
        return [b for b in self.bugs if any((f.stage, f.target) == (stage.stage, stage.target) for f in b.every())]

    def skipped(self) -> list[tuple[str, str, tuple[str, ...]]]:
        """(stage, why, targets) of each skipped stage and reason; no targets: every target."""
        why: dict[tuple[str, str], list[str]] = {}
        for s in self.stages:
            if s.skipped:
                why.setdefault((s.stage, str(s.stats["skipped"])), []).append(s.target)
        return [(stage, reason, () if set(targets) >= set(self.targets) else tuple(targets))
                for (stage, reason), targets in why.items()]

    def counts(self) -> dict[str, int]:
        """Bugs per status: the counts every report and the console show."""
        found = self.bugs
        return {status: sum(1 for b in found if b.status == status) for status in STATUSES}

    def counts_text(self) -> str:
        """The bug counts as every report and the console say them."""
        counts = self.counts()
        return "bugs: " + ", ".join(f"{counts[s]} {s}" for s in STATUSES) + f" ({len(self.findings)} finding(s))"

    @property
    def warnings(self) -> list[str]:
        return [*self.notes, *(f"{s.stage} / {s.target}: {n}" for s in self.stages for n in s.notes)]

    @property
    def exit_code(self) -> int:
        return 0 if all(s.ok for s in self.stages) else 1

    def to_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "targets": list(self.targets),
            "seconds": round(self.seconds, 2),
            "load": self.load,
            "calibration": None if self.calibration is None else {**self.calibration.to_json(),
                                                                   "budget_reference_s": self.budget_s},
            "ok": self.exit_code == 0,
            "counts": self.counts(),
            "bugs": [b.to_json() for b in self.bugs],
            "warnings": self.warnings,
            "stages": [s.to_json() for s in self.stages],
        }


def _shown(value: Any) -> Any:
    """A stat as shown: its texts, however deep in lists and mappings, printable and cut."""
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, list | tuple):
        return type(value)(map(_shown, value))
    if isinstance(value, dict):
        return {_shown(k): _shown(v) for k, v in value.items()}
    return value


def bounded_result(result: GateResult) -> GateResult:
    """`result` with every text that may come from a target (messages, member ids, topic names, crash causes,
    stage errors, notes, stats) made printable and cut by `formats.bounded`: what every report writer and the
    console print."""

    def finding(f: Finding) -> Finding:
        return replace(f, message=shown(f.message), why=shown(f.why), target=shown(f.target),
                       members=tuple(map(shown, f.members)), cause=shown(f.cause), signature=shown(f.signature),
                       partitions=tuple((shown(t), i) for t, i in f.partitions),
                       also=tuple((shown(i), shown(s)) for i, s in f.also),
                       reproducer=None if f.reproducer is None else shown(f.reproducer))

    stages = [replace(s, target=shown(s.target), findings=list(map(finding, s.findings)),
                      error=None if s.error is None else shown(s.error), notes=list(map(shown, s.notes)),
                      stats={k: _shown(v) for k, v in s.stats.items()}) for s in result.stages]
    return replace(result, targets=tuple(map(shown, result.targets)), stages=stages,
                   notes=list(map(shown, result.notes)))
