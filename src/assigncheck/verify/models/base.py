"""What a symbolic model is: the assignor it mirrors, how to run it on inputs, what it must satisfy."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3

from assigncheck.spec.model import Protocol
from assigncheck.verify.models.encoding import Inputs

Matrix = list[list[z3.BoolRef]]


@dataclass(frozen=True)
class Model:
    """A symbolic model of one built-in assignor, exactly as docs/ALGORITHMS.md specifies it.

    - assignor: the `targets.registry` name the model mirrors (conformance and counterexample replay).
    - equal_subscriptions: the model (and the assignor's domain) has every member subscribe to every topic.
    - member_order: "member_id" (sticky) or "sort_key" (range, round-robin); the shape's member i is the
      i-th in that order.
    - assign: inputs -> [member][partition] output.
    - invariants: inputs -> {invariant id: formula that must hold for every input}.
    - by_construction: invariants no encoding can break (reported as proved, with that reason).
    """

    name: str
    assignor: str
    equal_subscriptions: bool
    member_order: str
    protocol: Protocol
    assign: Callable[[Inputs], Matrix]
    invariants: Callable[[Inputs], dict[str, z3.BoolRef]]
    by_construction: tuple[str, ...] = ("H2",)
    # chained: the encoding notes its counting arguments as chains of laws (verify.models.laws); the prover
    # then tries one plain query per shape first and solves with the facts under a non-flattening tactic.
    chained: bool = False
    # invariant -> the kinds of helper facts its query gets (all of them when absent): fewer facts, smaller
    # SAT instances; a fact left out only makes a query harder, never wrong.
    relevant: dict[str, frozenset[str]] | None = None
    # chained models: invariants first tried together in one query (fewer bit-blasts of the same encoding)
    groups: tuple[tuple[str, ...], ...] = ()
    # topics -> this model with its stages as fresh outputs under their contracts (verify.models.contracts),
    # whose one instance per (members, partition count) covers every split into at most `topics` topics
    composed: Callable[[int], Model] | None = None


def next_round(inp: Inputs, out: Matrix, *, share_facts: bool = False) -> Inputs:
    """`spec.rounds.next_round` on symbolic inputs: members claim their output, all at one generation.
    share_facts: the second round notes its helper facts into the first round's list."""
    one = inp.num(1)
    facts = inp.facts if share_facts else []
    return Inputs(inp.shape, inp.width, out, [one] * inp.shape.members, inp.subs, [], facts)


def tag_second_round(inp: Inputs, since: int) -> None:
    """Key the facts noted since index `since` as the second round's, ("r2", *key), kind "r2:<kind>": a
    query that does not look at round 2 (Model.relevant) leaves them out."""
    if inp.facts is not None:
        inp.facts[since:] = [(("r2", *key), fact) for key, fact in inp.facts[since:]]
