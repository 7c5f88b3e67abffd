"""Replay a finding from its reproducer file: does it still reproduce? One dispatch by the finding's kind, for
`assigncheck replay FILE` and for the gate's confirmation of a target no other process can load.

Everything comes from the file (`read`): the target reference, the invariant, the check's seed and CPU budget
(`formats.reproducer`); the caller may replay it on another target, with other promises or another budget
(`On`). The kinds (`kind_of`), each replayed the way it was found:

- `check`: any other finding (and a plain problem file, on a given target): the problem checked again
  (`reproduces`); for H8, nondeterminism, until two runs of the same input differ, within a few tries.
- `processes`: H8 across processes: two fresh processes of the target, started with the variable and values
  the file records, compared on the problem (`findings.processes`).
- `scale`: a timing finding of the scale stage: the same problem timed again the same way, again over the
  budget or the promise (`run.scale.retime`).
- `model`: a proofs-stage model.conformance finding: the target's Z3 model and its code compared on the
  problem (`verify`).
- `codec`: a wire decoder's input bytes, decoded again (`fuzz`).
- `live`: a live group's schedule, run again on a fresh broker (`live`).

`replay_times` replays a finding N times over (the gate's confirmation: k of N), each replay loading the target
again (a `cmd:` or `java:` target's program starts afresh), and answers with how many failed.

Each kind's replay is a function `(Reproducer, On) -> Replayed` named by a "module:function" string in
`KINDS`, imported when a finding of that kind is replayed, as `targets.registry.TARGET_LOADERS` names the
loaders of target kinds: the kinds whose code lives in the layers above this one (model conformance in
`verify`, the codec targets in `fuzz`, live groups in `live`) plug in there without this module importing
them. Every replay answers a `Replayed`, whose `to_json` is the line `assigncheck replay --json` prints and the
gate's fresh-process confirmation parses.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from assigncheck.findings.reproducers import codec_finding
from assigncheck.formats.reproducer import Record, TargetRef, record_of
from assigncheck.run.interrupt import stop_if_interrupted
from assigncheck.spec.model import AnyProblem, Assignment
from assigncheck.spec.promises import Assignor
from assigncheck.spec.violations import Violation

H8_TRIES = 5  # a nondeterministic target may agree with itself a few times in a row

# kind -> "module:function" replaying a finding of that kind (see the module doc)
KINDS: dict[str, str] = {
    "check": f"{__name__}:replay_check",
    "processes": f"{__name__}:replay_processes",
    "scale": f"{__name__}:replay_timing",
    "model": "assigncheck.verify.model_replay:replay_model",
    "codec": "assigncheck.fuzz.harness:replay_codec",
    "live": "assigncheck.live.session:replay_live",
}

# The keys of each kind's JSON answer, in the order `assigncheck replay --json` prints them.
CHECKED = ("file", "target", "invariant", "reproduces", "summary", "violations", "output")
MODEL = ("target", "invariant", "reproduces", "summary")
CODEC = ("file", "target", "reproduces", "summary")
LIVE = ("file", "target", "invariant", "reproduces", "violations", "seconds", "summary")


@dataclass(frozen=True)
class Reproducer:
    """A reproducer file, read: the kind of its finding and what replaying it takes."""

    file: str  # as the caller named it ("-": standard input)
    kind: str
    problem: AnyProblem | None = None  # None: a codec finding (its input is bytes)
    record: Record | None = None  # None: a plain problem file (replayed on a given target), or a codec finding
    note: str = ""  # the file's note for people (a minimized file keeps it)
    codec: tuple[str, bytes] | None = None  # a codec finding's decoder and input bytes


@dataclass(frozen=True)
class On:
    """What to replay a finding on, and how."""

    budget_s: float  # H7: CPU seconds per assign call (the file's, unless the caller says otherwise)
    ref: TargetRef | None = None  # the target to load for the replay (None: the file's, or `target`)
    target: Assignor | None = None  # a target open already (the gate's own): neither loaded nor closed here
    hang_s: float | None = None  # H7's hang limit per call (None: derived from the budget)
    minimize_to: Path | None = None  # when it reproduces, shrink the problem and write it here


@dataclass(frozen=True)
class Seen:
    """A violation the replay saw: the finding's own (`matches`), or another on the same problem."""

    violation: Violation
    matches: bool
    step: int | None = None  # a live group's: the schedule step it showed at (None: at the end of the run)

    def to_json(self, stepped: bool = False) -> dict[str, Any]:
        doc = {**self.violation.to_json(), "matches": self.matches}
        if stepped:
            doc["step"] = self.step
        return doc

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Seen:
        """A violation as `assigncheck replay --json` printed it (the gate's fresh-process confirmation)."""
        violation = Violation(doc["invariant"], doc["message"], tuple(doc.get("members", ())),
                              tuple((t, i) for t, i in doc.get("partitions", ())), doc.get("cause", ""))
        return cls(violation, bool(doc.get("matches")), doc.get("step"))


@dataclass(frozen=True)
class Replayed:
    """The answer of a replay, whatever the finding's kind."""

    reproduces: bool
    summary: str  # one line for people: what was replayed on what, and what came of it
    target: TargetRef | str  # what it was replayed on (a codec finding's decoder; a live group's client)
    file: str = ""
    invariant: str | None = None  # what was looked for (None: any violation, for a plain problem file)
    violations: tuple[Seen, ...] = ()
    seconds: float | None = None  # a live group's run
    stepped: bool = False  # a live group's: each violation names its schedule step
    keys: tuple[str, ...] = CHECKED  # the keys of its JSON answer, in order (the kind's: see above)
    notes: tuple[str, ...] = ()  # what else it did, for people (`assigncheck replay` says it on stderr)
    output: dict[str, Any] | None = None  # the target's output on the problem when it reproduces (`output_of`)
    replays: int = 1  # N: how many times it was replayed (`replay_times`)
    reproduced: int | None = None  # k: how many of those replays reproduced it (None: one replay)

    @property
    def matching(self) -> list[Violation]:
        return [s.violation for s in self.violations if s.matches]

    def to_json(self) -> dict[str, Any]:
        """The line `assigncheck replay --json` prints."""
        values: dict[str, Any] = {
            "file": self.file, "invariant": self.invariant, "reproduces": self.reproduces, "summary": self.summary,
            "target": self.target.to_json() if isinstance(self.target, TargetRef) else self.target,
            "violations": [s.to_json(self.stepped) for s in self.violations],
            "seconds": None if self.seconds is None else round(self.seconds, 1), "output": self.output}
        doc = {key: values[key] for key in self.keys}
        if self.reproduced is not None:
            doc.update(replays=self.replays, reproduced=self.reproduced)
        return doc


def kind_of(record: Record | None) -> str:
    """The kind of a reproducer's finding (see the module doc) from its record (None: a plain problem file)."""
    if record is None:
        return "check"
    if "live" in record.extra:
        return "live"
    if record.invariant == "model.conformance":
        return "model"
    if "scale" in record.extra:
        return "scale"
    if "processes" in record.extra:
        return "processes"
    return "check"


def read(doc: Any, file: str) -> Reproducer:
    """A parsed reproducer document (or plain problem file) and the name it came by; an `InputError` naming
    the field when it is neither."""
    from assigncheck.formats.documents import problem_from_json

    codec = codec_finding(doc)
    if codec is not None:
        return Reproducer(file, "codec", codec=codec)
    problem, record = problem_from_json(doc), record_of(doc)
    note = doc.get("note", "") if isinstance(doc.get("note", ""), str) else ""
    return Reproducer(file, kind_of(record), problem, record, note)


def replay(found: Reproducer, on: On) -> Replayed:
    """Replay `found` the way its kind needs (`KINDS`)."""
    from assigncheck.impl import import_attr

    replay_kind = import_attr(KINDS[found.kind], "finding")
    answer: Replayed = replay_kind(found, on)
    return answer


def replay_times(found: Reproducer, on: On, times: int) -> Replayed:
    """`replay` `times` times: reproduces when any replay did; says in how many (k of N) and lists every kind of
    violation any replay saw, once (the finding's own first). Minimized by the first replay that reproduces."""
    answers: list[Replayed] = []
    for _ in range(times):
        stop_if_interrupted()
        minimized = any(a.reproduces for a in answers) and on.minimize_to is not None
        answers.append(replay(found, replace(on, minimize_to=None) if minimized else on))
    k = sum(a.reproduces for a in answers)
    shown = next((a for a in answers if a.reproduces), answers[-1])
    seen: dict[tuple[str, str, bool], Seen] = {}
    for a in (shown, *answers):
        for s in a.violations:
            seen.setdefault((s.violation.invariant, s.violation.cause, s.matches), s)
    summary = f"{shown.summary}; in {k} of {times} replays" + (" (flaky)" if 0 < k < times else "")
    return replace(shown, reproduces=k > 0, summary=summary, violations=tuple(seen.values()),
                   notes=tuple(dict.fromkeys(n for a in answers for n in a.notes)), replays=times, reproduced=k)


# ---- the kinds this layer replays ----------------------------------------------------------------------------


def checked(target: Assignor, problem: AnyProblem, seed: int, budget_s: float, hang_s: float | None = None
            ) -> tuple[Assignment | None, list[Violation]]:
    """The target's output on `problem` (None: it failed H7) and the violations `run.assignor_check.check_assignor`
    finds there, with no measuring."""
    from assigncheck.run.assignor_check import check_assignor

    stop_if_interrupted()  # minimization calls this in a loop

    out, report = check_assignor(target, problem, seed=seed, budget_s=budget_s, hang_s=hang_s, measure=False)
    return out, list(report.violations)


def check(target: Assignor, problem: AnyProblem, seed: int, budget_s: float, hang_s: float | None = None
          ) -> list[Violation]:
    """The violations `run.assignor_check.check_assignor` finds on `problem`, with no measuring."""
    return checked(target, problem, seed, budget_s, hang_s)[1]


def output_of(out: Assignment | None, violations: list[Violation]) -> dict[str, Any]:
    """What the target gave, as reports show it beside the problem: its assignment document, or the H7 failure."""
    if out is not None:
        from assigncheck.formats.documents import assignment_to_json

        return {k: v for k, v in assignment_to_json(out).items() if k != "format"}
    failed = next((v for v in violations if v.invariant == "H7"), None)
    return {"error": failed.message if failed is not None else "no output"}


def _reproduce(target: Assignor, problem: AnyProblem, invariant: str | None, seed: int, budget_s: float,
               hang_s: float | None) -> tuple[list[Violation], list[Violation], int, dict[str, Any]]:
    from assigncheck.spec.violations import judged_as

    wanted = judged_as(invariant) if invariant else None
    tries = H8_TRIES if wanted == "H8" else 1
    violations: list[Violation] = []
    out: Assignment | None = None
    attempt = 0
    while attempt < tries and not any(wanted in (None, v.invariant) for v in violations):
        attempt += 1
        out, violations = checked(target, problem, seed, budget_s, hang_s)
    return violations, [v for v in violations if wanted in (None, v.invariant)], attempt, output_of(out, violations)


def reproduces(target: Assignor, problem: AnyProblem, invariant: str | None, seed: int, budget_s: float,
               hang_s: float | None = None) -> tuple[list[Violation], list[Violation], int]:
    """Check `problem` again: (every violation, those of `invariant` (all when None), tries). Nondeterminism
    (H8) shows when two runs of one input differ, which may take a few tries."""
    return _reproduce(target, problem, invariant, seed, budget_s, hang_s)[:3]


def target_ref(found: Reproducer, on: On) -> TargetRef:
    """The reference of the target a replay runs on: the caller's, the open target's, or the file's."""
    from assigncheck.targets.registry import ref_of

    if on.ref is not None:
        return on.ref
    if on.target is not None:
        return ref_of(on.target)
    assert found.record is not None, "a plain problem file is replayed on a target the caller names"
    return found.record.target


class _Opened:
    """The target a replay runs on: the one given open, or the reference loaded and probed, closed at the end."""

    def __init__(self, found: Reproducer, on: On) -> None:
        from assigncheck.targets.registry import load, probe

        self.given, self.ref = on.target, target_ref(found, on)
        self.target = on.target if on.target is not None else probe(load(self.ref))

    @property
    def name(self) -> str:
        """The target as a summary names it: its spec and, when declared, its promises."""
        promises = self.ref.promises
        return self.ref.spec + (f" with promises {promises!r}" if promises is not None else "")

    def close(self) -> None:
        close = getattr(self.target, "close", None)
        if self.given is None and close is not None:
            close()


def _problem(found: Reproducer) -> AnyProblem:
    assert found.problem is not None, f"a {found.kind} finding replays a problem"
    return found.problem


def replay_check(found: Reproducer, on: On) -> Replayed:
    """Any finding but the kinds below: the problem checked again (H8: a few tries), minimized when asked."""
    from assigncheck.spec.violations import judged_as

    problem, record = _problem(found), found.record
    invariant = record.invariant if record is not None else None
    seed = record.seed if record is not None else 0
    opened = _Opened(found, on)
    notes: tuple[str, ...] = ()
    try:
        wanted = judged_as(invariant) if invariant else None
        tries = H8_TRIES if wanted == "H8" else 1
        violations, matching, attempt, output = _reproduce(opened.target, problem, invariant, seed, on.budget_s,
                                                           on.hang_s)
        what = wanted or (matching[0].invariant if matching else "any violation")
        summary = (f"reproduces: {what} on {opened.name}" + (f" (try {attempt} of {tries})" if tries > 1 else "")
                   if matching else f"no longer reproduces {what} on {opened.name}")
        if matching and on.minimize_to is not None:
            smaller = _minimize(opened.target, found, matching[0], seed, on.budget_s, on.minimize_to)
            summary += f"; minimized to {on.minimize_to}"
            notes = (f"minimized to {len(getattr(smaller, 'members', ()))} member(s): {on.minimize_to}",)
    finally:
        opened.close()
    return Replayed(bool(matching), summary, opened.ref, found.file, wanted,
                    tuple(Seen(v, v in matching) for v in violations), notes=notes,
                    output=output if matching else None)


def _minimize(target: Assignor, found: Reproducer, violation: Violation, seed: int, budget_s: float,
              out: Path) -> AnyProblem:
    """The problem shrunk while `violation`'s invariant and cause still break, as often as on the file's problem
    (and its shape holds), written to `out` with the file's record (a plain problem file: a record of this
    replay)."""
    from assigncheck.findings.minimize import as_often, minimize
    from assigncheck.findings.signature import keeps_its_shape
    from assigncheck.formats.documents import problem_to_json
    from assigncheck.formats.reproducer import save
    from assigncheck.run.assignor_check import check_assignor
    from assigncheck.targets.registry import ref_of

    problem = _problem(found)
    keeps = keeps_its_shape(problem, target.promises)

    def fails(candidate: AnyProblem) -> bool:
        _, report = check_assignor(target, candidate, seed=seed, budget_s=budget_s, measure=False)
        return any(v.invariant == violation.invariant and v.cause == violation.cause for v in report.violations)

    often = as_often(fails, problem)
    smaller = problem if often is None else minimize(problem, lambda p: keeps(p) and often(p))
    record = found.record or Record(ref_of(target), violation.invariant, stage="replay", seed=seed,
                                    budget_s=budget_s, cause=violation.cause, message=violation.message)
    save(problem_to_json(smaller), record, out, _minimized_note(found))
    return smaller


def _minimized_note(found: Reproducer) -> str:
    return f"{found.note} (minimized by assigncheck replay --minimize)".strip()


def replay_processes(found: Reproducer, on: On) -> Replayed:
    """H8 across processes: two fresh processes of the target, started as the file records, up to
    `findings.processes.TRIES` times; minimized when asked."""
    from assigncheck.findings.minimize import as_often, minimize
    from assigncheck.findings.processes import TRIES, Pair, Processes, varied
    from assigncheck.findings.processes import replay as compare_fresh
    from assigncheck.formats.documents import problem_to_json
    from assigncheck.formats.reproducer import save

    problem, record = _problem(found), found.record
    assert record is not None, "an H8-across-processes finding has a record"
    ref = target_ref(found, on)
    processes = Processes.from_json(record.extra["processes"])
    violations, attempt = compare_fresh(ref, problem, processes, on.budget_s, on.hang_s)
    name = f"{ref.spec} ({varied(ref, processes)})"
    summary = (f"reproduces: H8 across two processes of {name} (try {attempt} of {TRIES})" if violations
               else f"no longer reproduces H8 across two processes of {name}")
    if violations and on.minimize_to is not None:
        pair = Pair(ref, processes, ref.spec)
        try:
            often = as_often(lambda p: bool(pair.compare(p, on.budget_s, on.hang_s)), problem)
            smaller = problem if often is None else minimize(problem, often)
        finally:
            pair.close()
        save(problem_to_json(smaller), record, on.minimize_to, _minimized_note(found))
        summary += f"; minimized to {on.minimize_to}"
    return Replayed(bool(violations), summary, ref, found.file, "H8", tuple(Seen(v, True) for v in violations))


def replay_timing(found: Reproducer, on: On) -> Replayed:
    """A timing finding of the scale stage: the problem timed again the way the stage timed it
    (`run.scale.retime`), never minimized (its size is what it is about)."""
    from assigncheck.run.scale import retime

    problem, record = _problem(found), found.record
    assert record is not None, "a timing finding has a record"
    opened = _Opened(found, on)
    try:
        matching, measured = retime(opened.target, problem, record.extra["scale"], on.budget_s, on.hang_s)
    finally:
        opened.close()
    summary = (f"reproduces: {record.invariant} on {opened.name}" if matching
               else f"no longer reproduces {record.invariant} on {opened.name}") + f" ({measured})"
    return Replayed(bool(matching), summary, opened.ref, found.file, record.invariant,
                    tuple(Seen(v, True) for v in matching))


__all__ = [
    "CHECKED", "CODEC", "H8_TRIES", "KINDS", "LIVE", "MODEL", "On", "Replayed",
    "Reproducer", "Seen", "check", "checked", "kind_of", "output_of", "read", "replay", "replay_check",
    "replay_processes", "replay_timing", "replay_times", "reproduces", "target_ref",
]
