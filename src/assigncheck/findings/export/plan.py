"""What every language's exported test does for an invariant, said once: which rules it may state, which figures it
embeds, and how it runs the target (once; several times and in other listings for H8; round after round for the
cooperative rounds; twice for the fixpoint). Each writer turns a `Plan` into its own language."""

from __future__ import annotations

from dataclasses import dataclass

from assigncheck.findings.export.case import Case
from assigncheck.findings.export.rules import RULES, Rule

# How the test runs the target, per invariant (anything else: one run, then the check).
REPEATED = "repeated"  # H8: each listing `runs` times (and in two processes, for H8 across processes)
ROUNDS = "rounds"  # cooperative.rounds: rebalance until nothing waits, at most `max_rounds` times
FED_BACK = "fed back"  # fixpoint: the output fed back as the claims, run again
CRASH = "crash"  # H7: the call itself
ONCE = "once"

_RUNS = {"H8": REPEATED, "cooperative.rounds": ROUNDS, "fixpoint": FED_BACK, "H7": CRASH}


@dataclass(frozen=True)
class Plan:
    case: Case
    run: str  # REPEATED, ROUNDS, FED_BACK, CRASH or ONCE
    rules: tuple[Rule, ...]  # the texts the test embeds

    @property
    def invariant(self) -> str:
        return self.case.invariant

    @property
    def way(self) -> str:
        """Which of the invariant's rules applies to this problem (H5 and streams.balance have two)."""
        case = self.case
        if case.invariant == "H5" and getattr(case.problem, "protocol", "eager") == "cooperative":
            return "cooperative"
        if case.invariant == "streams.balance":
            return case.promises.task_balance or "capacity"
        return ""


def plan(case: Case) -> Plan:
    rules = RULES[case.invariant]
    if case.invariant == "H5":  # the test states the one that applies (its check names it RULE_H5)
        way = Plan(case, ONCE, rules).way
        rules = tuple(r for r in rules if r.way == way)
    return Plan(case, _RUNS.get(case.invariant, ONCE), rules)


def partition_text(topic: str, index: int) -> str:
    """A partition as every test names it: `t1-0`."""
    return f"{topic}-{index}"


__all__ = ["CRASH", "FED_BACK", "ONCE", "Plan", "REPEATED", "ROUNDS", "partition_text", "plan"]
