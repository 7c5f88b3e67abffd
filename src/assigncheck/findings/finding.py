"""A finding and the bugs findings make: `Finding` is one distinct failure (a signature) a stage found, with
its reproducer and, once confirmation has replayed it, its `Status`; `bugs` groups findings into bugs (one
signature on one target, whichever stages found it) and lists the bugs that follow from another bug's wrong
partitions as its consequences."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from assigncheck.spec.violations import INVARIANTS, Violation

Status = Literal["confirmed", "unconfirmed", "unreachable"]
STATUSES: dict[Status, str] = {
    "confirmed": "failed again in k of N replays from its reproducer file alone, in a fresh process (k >= 1; "
                 "flaky when k < N): fails the gate",
    "unconfirmed": "failed in none of its replays from its reproducer file: listed, does not fail the gate",
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
    # (invariant, signature) of what else its replays saw break on its problem
    also: tuple[tuple[str, str], ...] = ()
    output: str = ""  # what the target gave on its reproducer's problem when the replay confirmed it (JSON text)
    replays: int = 0  # N: how many times confirmation replayed it (0: not replayed)
    reproduced: int = 0  # k: how many of those replays failed again

    @property
    def flaky(self) -> bool:
        """Replayed, and failed again in fewer than all of its replays."""
        return self.replays > 0 and self.reproduced < self.replays

    @property
    def replayed(self) -> str:
        """k of N, as the reports say it ("" when it was not replayed)."""
        if not self.replays:
            return ""
        return f"failed in {self.reproduced} of {self.replays} replays" + (" (flaky)" if 0 < self.reproduced
                                                                              < self.replays else "")

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

    @property
    def flaky(self) -> bool:
        """Replayed, and no finding of it failed on every replay."""
        replayed = [f for f in self.findings if f.replays]
        return bool(replayed) and all(f.flaky or not f.reproduced for f in replayed)

    def every(self) -> list[Finding]:
        """Its findings and those of its consequences."""
        return [*self.findings, *(f for c in self.consequences for f in c.every())]

    def to_json(self) -> dict[str, Any]:
        f = self.shown
        return {"target": f.target, "invariant": f.invariant, "signature": f.signature, "status": f.status,
                "message": f.message, "reproducer": f.reproducer, "seed": f.seed, "why": f.why,
                "replays": f.replays, "reproduced": f.reproduced, "stages": list(self.stages),
                "findings": [{"stage": g.stage, "reproducer": g.reproducer, "status": g.status, "replays": g.replays,
                              "reproduced": g.reproduced} for g in self.findings],
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
    """Findings grouped by bug, in the order they were found. A bug is a consequence of another bug of its
    target, listed under it instead of as a bug of its own, when its shown reproducer also breaks an earlier
    invariant (`INVARIANTS` order: H1 ... H8, then the promises; of any partitions): of the bug of that
    invariant's signature (when there is none, of the first bug of that invariant); and when the target answers
    the same problem differently, of its H8 bug (`_nondeterminism`). Only under a bug as confirmed as itself:
    every confirmed finding stays under a confirmed bug."""
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

    def root_of(key: tuple[str, str]) -> tuple[str, str]:
        while key in under:
            key = under[key]
        return key

    for key, root in _nondeterminism(made).items():
        if key not in under and root_of(root) != key:  # never under a bug that is itself under this one
            under[key] = root
    under = {key: root_of(key) for key in under}
    return [replace(bug, consequences=tuple(made[k] for k in made if under.get(k) == key))
            for key, bug in made.items() if key not in under]


def _nondeterminism(made: dict[tuple[str, str], Bug]) -> dict[tuple[str, str], tuple[str, str]]:
    """Per target that answers the same problem differently (a confirmed H8 bug, the first that failed on every
    replay if any did): its other H8 bugs, and every bug of another invariant that was replayed and did not
    fail on every replay, each keyed to that H8 bug. Whatever such a target gets wrong on one answer it may get
    right on the next: one bug, the nondeterminism."""
    roots: dict[str, tuple[str, str]] = {}
    for key, bug in made.items():
        if bug.shown.invariant != "H8" or bug.status != "confirmed":
            continue
        if key[0] not in roots or (made[roots[key[0]]].flaky and not bug.flaky):
            roots[key[0]] = key
    under: dict[tuple[str, str], tuple[str, str]] = {}
    for key, bug in made.items():
        root = roots.get(key[0])
        if root is None or key == root or bug.status == "unreachable":
            continue
        if bug.shown.invariant == "H8" or bug.flaky:
            under[key] = root
    return under


__all__ = ["Bug", "Finding", "STATUSES", "Status", "bugs"]
