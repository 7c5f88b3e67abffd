"""The rules in words: what an exported test says when it fails, one text per way an invariant breaks.

Every language's test embeds these texts as they are and fills their `{placeholders}` with one small helper of its
own (`say`), so a JUnit, Go, pytest or node test says a broken rule in the same words, and the words change in one
place. The invariant ids are `spec.violations.INVARIANTS`' (docs/SPEC.md §9.4); an invariant with no rule here is
not exported (its check needs assigncheck's spec at run time)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from assigncheck.spec.violations import INVARIANTS

PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@dataclass(frozen=True)
class Rule:
    """One way an invariant breaks, in words: `text` with `{name}` placeholders the test fills."""

    invariant: str
    way: str  # "" when the invariant breaks one way only
    text: str

    @property
    def key(self) -> str:
        """The constant's name in a test: the invariant and the way, in capitals (`H3`, `H1_MISSING`)."""
        return re.sub(r"[^A-Z0-9]+", "_", f"{self.invariant}_{self.way}".upper()).strip("_")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(PLACEHOLDER.findall(self.text)))


_TEXTS: dict[str, dict[str, str]] = {
    "H1": {"missing": "{member} is in the group but the assignment leaves it out",
           "stranger": "the assignment names {member}, which is not in the group"},
    "H2": {"": "{member} holds {partition}, which does not exist: {topic} has {count} partition(s)"},
    "H3": {"": "{member} holds {partition} but does not subscribe to {topic}"},
    "H4": {"": "{partition} is assigned more than once: to {members}"},
    "H5": {"": "{partition} is assigned to nobody, though {member} subscribes to {topic}",
           "cooperative": "{partition} is assigned to nobody and claimed by nobody, though {member} subscribes to "
                          "{topic}: only a partition another member still owns may wait a round"},
    "H6": {"": "{member} gets {partition} while {owner} still owns it: a cooperative rebalance hands a partition "
               "over only once its owner has revoked it"},
    "H7": {"": "the assignor must return an assignment for every group it is given, but it threw {error}"},
    "H8": {"": "the same group must get the same assignment every time: {member} gets {first} in the first run "
               "and {other} in {run}"},
    "balance.perfect": {"": "every member must hold within one partition of every other: {high_member} holds {high}, "
                            "{low_member} holds {low}"},
    "balance.per-topic": {"": "the subscribers of {topic} must hold within one of its partitions of each other: "
                              "{high_member} holds {high}, {low_member} holds {low}"},
    "balance.optimal": {"": "the sum of the squared partition counts of the members must be the least any complete "
                            "assignment reaches, {optimum}, but it is {got}"},
    "stickiness.max_retained": {"": "{expected} of the partitions the members own can stay where they are under "
                                    "{balance} balance, but {kept} did: {moved} moved"},
    "exact": {"": "{member} must get {expected}, as {reference} assigns this group, but gets {got}"},
    "fixpoint": {"": "feeding the assignment back as what each member owns must give it again, but {member} gets "
                     "{other} instead of {first}"},
    "cooperative.rounds": {"": "the group must settle within {rounds} rebalance(s), but after {rounds} nobody has "
                               "{partition}"},
    "streams.balance": {"capacity": "tasks per thread must be within one across clients: {high_client} runs {high} "
                                    "task(s) on {high_threads} thread(s), {low_client} runs {low} on {low_threads}",
                        "ceiling": "no client may run more than its threads x ceil(tasks / threads) = {quota} tasks, "
                                   "but {client} runs {count}"},
    "streams.sticky": {"": "a client keeps the tasks it ran while it has room for them: {client} ran {previous} "
                           "task(s) and gets {count}, so it must keep {required}, but it keeps {kept}: {task} went "
                           "to {other}"},
}

RULES: dict[str, tuple[Rule, ...]] = {
    invariant: tuple(Rule(invariant, way, text) for way, text in ways.items()) for invariant, ways in _TEXTS.items()}

assert set(RULES) <= set(INVARIANTS), "a rule of an invariant the spec does not name"


def rule(invariant: str, way: str = "") -> Rule:
    """The rule `invariant` breaks `way` (KeyError: no such rule)."""
    for r in RULES[invariant]:
        if r.way == way:
            return r
    raise KeyError(f"{invariant} has no rule {way!r}")


def say(r: Rule, **values: object) -> str:
    """The rule's text with its placeholders filled: what each language's `say` helper makes (the tests hold the
    helpers to this one)."""
    return PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), r.text)


__all__ = ["PLACEHOLDER", "RULES", "Rule", "rule", "say"]
