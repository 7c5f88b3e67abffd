"""What the gate's stages produce: cases (pass/fail per target × stage × invariant), findings and the work done."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from assigncheck.formats.bounded import bounded
from assigncheck.spec.violations import INVARIANTS, Violation

Status = Literal["confirmed", "unconfirmed", "unreachable"]
STATUSES: dict[Status, str] = {
    "confirmed": "replayed from its reproducer file alone, in a fresh process: fails the gate",
    "unconfirmed": "did not replay from its reproducer file: listed, does not fail the gate",
    "unreachable": "on a problem no real consumer group can produce: listed, does not fail the gate",
}


@dataclass(frozen=True)
class Finding:
    """One distinct failure (a signature) with everything that reproduces it (docs/SPEC.md §9.2)."""

    stage: str
    target: str
    invariant: str
    message: str
    reproducer: str | None = None  # path of the problem JSON that reproduces it alone
    seed: int | None = None
    members: tuple[str, ...] = ()
    partitions: tuple[tuple[str, int], ...] = ()
    cause: str = ""
    signature: str = ""
    status: Status = "unconfirmed"  # set by the gate once `assigncheck replay FILE` has been tried
    why: str = ""  # why it is unconfirmed or unreachable
    size: int = 0  # members + partitions (Streams: clients + tasks) of its reproducer's problem
    # (invariant, signature) of what else the replay saw break on the same partitions of its problem
    also: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, stage: str, target: str, v: Violation, **kw: Any) -> Finding:
        return cls(stage, target, v.invariant, v.message, members=v.members, partitions=v.partitions,
                   cause=v.cause, **kw)

    @property
    def fails(self) -> bool:
        return self.status == "confirmed"


_RANK = {status: k for k, status in enumerate(STATUSES)}  # confirmed first
_ORDER = {invariant: k for k, invariant in enumerate(INVARIANTS)}  # H1 ... H8, then the promises


@dataclass(frozen=True)
class Bug:
    """One bug: the findings of one signature on one target, whichever stages found them, shown by the smallest
    reproducer of its best status; and the bugs that follow from the same wrong partitions (`consequences`, e.g.
    an H4 on the partition an H3 handed out), listed under it instead of as bugs of their own."""

    shown: Finding
    findings: tuple[Finding, ...]  # in the order the stages found them, `shown` among them
    consequences: tuple[Bug, ...] = ()

    @property
    def status(self) -> Status:
        return self.shown.status

    @property
    def stages(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.stage for f in self.findings))

    def every(self) -> list[Finding]:
        """Its findings and those of its consequences."""
        return [*self.findings, *(f for c in self.consequences for f in c.every())]

    def to_json(self) -> dict[str, Any]:
        f = self.shown
        return {"target": f.target, "invariant": f.invariant, "signature": f.signature, "status": f.status,
                "message": f.message, "reproducer": f.reproducer, "seed": f.seed, "why": f.why,
                "stages": list(self.stages),
                "findings": [{"stage": g.stage, "reproducer": g.reproducer, "status": g.status} for g in self.findings],
                "consequences": [c.to_json() for c in self.consequences]}


def _key(f: Finding) -> tuple[str, str]:
    """What makes findings one bug: target and signature (a finding without one is a bug of its own)."""
    return f.target, f.signature or f"{f.stage}|{f.invariant}|{f.message}"


def _bug(found: list[Finding]) -> Bug:
    """The findings of one signature, the smallest reproducer of the best status first (the earliest stage's on
    a tie)."""
    best = min(_RANK[f.status] for f in found)
    return Bug(min((f for f in found if _RANK[f.status] == best), key=lambda f: f.size), tuple(found))


def bugs(findings: Sequence[Finding]) -> list[Bug]:
    """Findings grouped by bug, in the order they were found. A bug whose shown problem also breaks an earlier
    invariant (`INVARIANTS` order: H1 ... H8, then the promises) on the same partitions is a consequence of the
    bug of that invariant's signature on that target (when there is none, of the first bug of that invariant
    there), if that one is as confirmed as itself: every confirmed finding stays under a confirmed bug."""
    grouped: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        grouped.setdefault(_key(f), []).append(f)
    made = {key: _bug(found) for key, found in grouped.items()}
    under: dict[tuple[str, str], tuple[str, str]] = {}  # a consequence's key -> its root's key

    def cause(bug: Bug) -> tuple[str, str] | None:
        f = bug.shown
        for invariant, sig in f.also:
            if _ORDER.get(invariant, len(_ORDER)) >= _ORDER.get(f.invariant, len(_ORDER)):
                continue
            same = [k for k, b in made.items() if k[0] == f.target and b.shown.invariant == invariant]
            exact = [k for k in same if k[1] == sig]
            for k in exact or same[:1]:
                if _RANK[made[k].status] <= _RANK[bug.status]:
                    return k
        return None

    for key in sorted(made, key=lambda k: _ORDER.get(made[k].shown.invariant, len(_ORDER))):
        parent = cause(made[key])
        if parent is not None:
            under[key] = under.get(parent, parent)
    return [replace(bug, consequences=tuple(made[k] for k in made if under.get(k) == key))
            for key, bug in made.items() if key not in under]


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
            "ok": self.exit_code == 0,
            "counts": self.counts(),
            "bugs": [b.to_json() for b in self.bugs],
            "warnings": self.warnings,
            "stages": [s.to_json() for s in self.stages],
        }


def _cut(value: Any) -> Any:
    return bounded(value) if isinstance(value, str) else value


def bounded_result(result: GateResult) -> GateResult:
    """`result` with every text that may come from a target (messages, member ids, stage errors, notes, stats)
    cut by `formats.bounded`: what every report writer and the console print."""

    def finding(f: Finding) -> Finding:
        return replace(f, message=bounded(f.message), why=bounded(f.why), target=bounded(f.target),
                       members=tuple(map(bounded, f.members)))

    stages = [replace(s, target=bounded(s.target), findings=list(map(finding, s.findings)),
                      error=None if s.error is None else bounded(s.error), notes=list(map(bounded, s.notes)),
                      stats={k: _cut(v) for k, v in s.stats.items()}) for s in result.stages]
    return replace(result, targets=tuple(map(bounded, result.targets)), stages=stages,
                   notes=list(map(bounded, result.notes)))
