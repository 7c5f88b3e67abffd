"""Symbolic model of one cooperative round of the constrained assignor (KIP-429, ALGORITHMS.md): run the
eager constrained algorithm, then withhold from b every partition that another member claims (raw, any
generation) and that b does not hold. Also models round 2 (owned := round-1 output, generation + 1).

"Holds": ALGORITHMS.md says b's raw claim; impl/cooperative.py (since 2026-11-21 10:15) uses b's *valid*
ownership, so a stale or disputed claim of b does not let b take the partition before the other claimant
revoked it. The conformance test decided: MODEL follows the code (valid); RAW_HOLDER is the page's text.
Both are proved."""

from __future__ import annotations

from functools import partial

import z3

from . import properties as prop
from .base import Matrix, Model, next_round
from .constrained import assign as eager_assign
from .encoding import Inputs, valid_owned


def assign(inp: Inputs, holder: str = "valid") -> Matrix:
    """holder="valid": b keeps p only if b validly owns it; "raw": if b claims it as sent."""
    eager = eager_assign(inp)
    n, nparts = inp.shape.members, inp.shape.partition_count
    mine = inp.claims if holder == "raw" else valid_owned(inp)
    return [
        [
            z3.And(
                eager[b][p],
                z3.Not(z3.And(z3.Not(mine[b][p]), z3.Or(*[inp.claims[o][p] for o in range(n) if o != b]))),
            )
            for p in range(nparts)
        ]
        for b in range(n)
    ]


def invariants(inp: Inputs, holder: str = "valid") -> dict[str, z3.BoolRef]:
    out = assign(inp, holder)
    second = assign(next_round(inp, out), holder)
    return {
        "H3": prop.h3_subscription(inp, out),
        "H4": prop.h4_exclusive(out),
        "H5": prop.h5_cooperative(inp, out),
        "H6": prop.h6_cooperative_safety(inp, out),
        # SPEC.md §6: the balance promise holds once nothing is withheld
        "balance.perfect": z3.Implies(prop.nothing_withheld(inp, out), prop.perfect_balance(inp, out)),
        # at most 2 rounds: round 2 withholds nothing
        "max_rounds.2": prop.nothing_withheld(inp, second),
    }


MODEL = Model("cooperative-sticky", "cooperative-sticky", True, "member_id", "cooperative", assign, invariants,
              chained=True)  # the eager part notes the constrained model's law chains
RAW_HOLDER = Model(
    "cooperative-sticky:raw-holder", "cooperative-sticky", True, "member_id", "cooperative",
    partial(assign, holder="raw"), partial(invariants, holder="raw"), chained=True,
)
