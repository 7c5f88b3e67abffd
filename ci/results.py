"""What the gate's stages produce: cases (pass/fail per target × stage × invariant) and findings."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from assigncheck.spec.violations import Violation


@dataclass(frozen=True)
class Finding:
    """One violation with everything that reproduces it (SPEC.md §9)."""

    stage: str
    target: str
    invariant: str
    message: str
    reproducer: str | None = None  # path of the problem JSON that reproduces it alone
    seed: int | None = None
    members: tuple[str, ...] = ()
    partitions: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of(cls, stage: str, target: str, v: Violation, *, reproducer: str | None = None,
           seed: int | None = None) -> Finding:
        return cls(stage, target, v.invariant, v.message, reproducer, seed, v.members, v.partitions)


@dataclass
class StageResult:
    stage: str
    target: str
    seconds: float = 0.0
    checked: tuple[str, ...] = ()  # invariant ids this stage checked for this target
    findings: list[Finding] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)  # e.g. examples, execs/s, bound proved
    error: str | None = None  # the stage itself could not run (reported, and fails the gate)

    @property
    def ok(self) -> bool:
        return not self.findings and self.error is None

    @property
    def skipped(self) -> bool:
        """The stage had nothing it could check for this target (the reason is in stats["skipped"])."""
        return "skipped" in self.stats

    def cases(self) -> list[tuple[str, Finding | None]]:
        """One (invariant, first finding or None) per checked invariant, plus any unexpected ids."""
        first: dict[str, Finding] = {}
        for f in self.findings:
            first.setdefault(f.invariant, f)
        ids = list(self.checked) + sorted(set(first) - set(self.checked))
        return [(i, first.get(i)) for i in ids]

    def to_json(self) -> dict[str, Any]:
        doc = asdict(self)
        doc["ok"] = self.ok
        return doc


@dataclass
class GateResult:
    profile: str
    targets: tuple[str, ...]
    stages: list[StageResult] = field(default_factory=list)
    seconds: float = 0.0
    artifacts: dict[str, str] = field(default_factory=dict)  # extra files for the reports (campaign rows)

    @property
    def findings(self) -> list[Finding]:
        return [f for s in self.stages for f in s.findings]

    @property
    def exit_code(self) -> int:
        return 0 if all(s.ok for s in self.stages) else 1

    def to_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "targets": list(self.targets),
            "seconds": round(self.seconds, 2),
            "ok": self.exit_code == 0,
            "stages": [s.to_json() for s in self.stages],
        }
