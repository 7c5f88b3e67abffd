"""What an exported test knows of its finding: the problem as the target meets it, the invariant, the runs H8 needs,
and the figures assigncheck computes at export time that the test embeds as constants (an optimum, a reference
assignment, which claims count).

`case_of(reproducer, promises)` refuses, with an `InputError` naming the field, a finding no standalone test can hold
to its verdict: a timing finding (its verdict depends on the machine's speed), a model-conformance, codec or live
finding (no target call on a problem), a plain problem file (no finding), an invariant with no rule in words
(`rules.RULES`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assigncheck.findings.export.rules import RULES
from assigncheck.findings.processes import Processes
from assigncheck.findings.replay import Reproducer
from assigncheck.formats.documents import problem_to_json
from assigncheck.formats.reproducer import TargetRef
from assigncheck.run.breaker import HANG_CAUSES
from assigncheck.spec.errors import InputError
from assigncheck.spec.model import AnyProblem, Assignment, Problem, StreamsProblem
from assigncheck.spec.promises import Promises

H8_RUNS = 20  # runs of each listing: a map-order or identity-hash dependence may agree with itself a few times
TIMING = frozenset({"scale.time", "scale.growth"})
TIMING_CAUSES = frozenset({"timeout", *HANG_CAUSES})  # H7 over its CPU budget or its hang limit

Pairs = dict[str, dict[str, list[int]]]  # member (client) -> topic (sub-topology) -> sorted indices


@dataclass(frozen=True)
class Figures:
    """What assigncheck computes at export time for the test to embed, each with where it came from."""

    valid: Pairs = field(default_factory=dict)  # the partitions each member validly owns (docs/SPEC.md §2)
    max_retained: int | None = None  # stickiness.max_retained: the most any balanced assignment keeps
    retained_balance: str = ""  # the balance that figure is taken under
    optimum: int | None = None  # balance.optimal: the least Σ count²
    expected: Pairs = field(default_factory=dict)  # exact: the reference's assignment
    reference: str = ""  # exact: the reference's name
    previous: Pairs = field(default_factory=dict)  # streams.sticky: each client's valid previous actives


@dataclass(frozen=True)
class Case:
    """One finding, ready for a writer of any language."""

    name: str  # the test's name, from the reproducer's file name (letters, digits and dashes)
    source: str  # the reproducer as the command was given it
    ref: TargetRef
    invariant: str
    promises: Promises  # what the target was held to
    problem: AnyProblem  # as the target meets it (`spec.groups.protocol_form`)
    listings: tuple[AnyProblem, ...]  # H8: the problem as listed, then listed in the other order the check used
    figures: Figures
    message: str = ""  # the finding's message when it was found
    note: str = ""
    processes: Processes | None = None  # H8 across processes: the variable and its two values
    runs: int = H8_RUNS

    @property
    def streams(self) -> bool:
        return isinstance(self.problem, StreamsProblem)

    def doc(self, problem: AnyProblem | None = None) -> dict[str, Any]:
        """A listing as the problem document the target's driver received (the order of every list kept)."""
        return problem_to_json(self.problem if problem is None else problem)


def pairs(assignment: Assignment | dict[str, Any]) -> Pairs:
    """An assignment (or a member -> partitions mapping) as sorted plain lists, members and topics in name order."""
    by_member = assignment.by_member if isinstance(assignment, Assignment) else assignment
    out: Pairs = {}
    for member in sorted(by_member):
        parts = by_member[member]
        out[member] = {t: sorted(int(i) for i in parts[t]) for t in sorted(parts) if len(parts[t])}
    return out


def case_name(source: str) -> str:
    """The test's name: the reproducer's file name without its suffix, as letters, digits and dashes."""
    stem = Path(source).name.removesuffix(".json") if source != "-" else "finding"
    name = re.sub(r"[^A-Za-z0-9]+", "-", stem).strip("-")[:80].strip("-")
    return name if name and name[0].isalpha() else f"finding-{name}".strip("-")


def refused(found: Reproducer) -> InputError | None:
    """Why `found` cannot be exported, as the error the command prints (None: it can)."""
    where = found.file
    if found.kind in ("codec", "model", "live"):
        what = {"codec": "a wire decoder's input", "model": "a Z3 model against the code",
                "live": "a live group's schedule on a real broker"}[found.kind]
        return InputError(where, f"is a {found.kind} finding ({what}), not a target's call on a problem: no "
                                 "standalone test exports it")
    record = found.record
    if record is None:
        return InputError(where, "names no finding (a problem file, not a reproducer): nothing to export")
    if found.kind == "scale" or record.invariant in TIMING or record.cause in TIMING_CAUSES:
        return InputError("finding.invariant", f"{record.invariant} ({record.cause or 'time'}) is a timing finding: "
                                               "not exported, since a test's verdict must not depend on the "
                                               "machine's speed")
    if record.invariant not in RULES:
        return InputError("finding.invariant", f"{record.invariant} is not exported: its check needs assigncheck's "
                                               f"spec at run time (exported: {', '.join(RULES)})")
    streams = isinstance(found.problem, StreamsProblem)
    if streams != record.invariant.startswith("streams.") and record.invariant not in ("H7", "H8"):
        kind = "a Streams task problem" if streams else "a consumer group"
        return InputError("finding.invariant", f"{record.invariant} on {kind} is not exported: the tests check it "
                                               f"on {'consumer groups' if streams else 'Streams task problems'} only")
    return None


def figures(invariant: str, problem: AnyProblem, promises: Promises) -> Figures:
    """The constants the test embeds for `invariant`, computed by assigncheck's spec on `problem`."""
    if isinstance(problem, StreamsProblem):
        if invariant == "streams.sticky":
            from assigncheck.spec.reference.streams import valid_previous_actives

            previous = valid_previous_actives(problem)
            return Figures(previous=pairs({c: dict(_grouped(ts)) for c, ts in previous.items()}))
        return Figures()
    return _consumer_figures(invariant, problem, promises)


def _grouped(tasks: set[tuple[str, int]]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for s, i in sorted(tasks):
        out.setdefault(s, []).append(i)
    return out


def _consumer_figures(invariant: str, problem: Problem, promises: Promises) -> Figures:
    from assigncheck.spec.ownership import valid_owned

    valid = pairs(valid_owned(problem))
    if invariant == "stickiness.max_retained":
        from assigncheck.spec.assignment_check import oracle_balance
        from assigncheck.spec.oracle import max_retained

        balance = oracle_balance(problem, promises)
        best = None if balance is None else max_retained(problem, balance, promises.racks)
        if best is None:
            raise InputError("finding.invariant", "no assignment meets the promised balance on this problem: "
                                                  "stickiness.max_retained has no figure to hold it to")
        return Figures(valid=valid, max_retained=best, retained_balance=balance or "none")
    if invariant == "balance.optimal":
        from assigncheck.spec.oracle import optimal_sum_squares

        return Figures(valid=valid, optimum=optimal_sum_squares(problem))
    if invariant == "exact":
        from assigncheck.spec.reference import REFERENCES

        name = promises.exact or ""
        if name not in REFERENCES:
            raise InputError("finding.target.promises", f"exact={name!r} names no reference assignor")
        return Figures(valid=valid, expected=pairs(REFERENCES[name].assign(problem)), reference=name)
    return Figures(valid=valid)


def case_of(found: Reproducer, promises: Promises) -> Case:
    """The finding in `found`, held to `promises` (the target's own, or those its reference declares)."""
    from assigncheck.run.assignor_check import shuffled_problem
    from assigncheck.spec.groups import protocol_form

    error = refused(found)
    if error is not None:
        raise error
    record, problem = found.record, found.problem
    assert record is not None and problem is not None
    problem = protocol_form(problem, promises)
    listings: tuple[AnyProblem, ...] = (problem,)
    processes = None
    if record.invariant == "H8" and promises.order_independent:
        listings += (shuffled_problem(problem, record.seed),)
    if "processes" in record.extra:
        processes = Processes.from_json(record.extra["processes"])
        listings = (problem,)  # the same listing, in two processes
    return Case(case_name(found.file), found.file, record.target, record.invariant, promises, problem, listings,
                figures(record.invariant, problem, promises), record.message, found.note, processes)


__all__ = ["Case", "Figures", "H8_RUNS", "Pairs", "TIMING", "TIMING_CAUSES", "case_name", "case_of", "figures",
           "pairs", "refused"]
