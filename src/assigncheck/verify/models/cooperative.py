"""Symbolic model of one cooperative round of the constrained assignor (KIP-429, ALGORITHMS.md): run the
eager constrained algorithm, then withhold from b every partition that another member claims (raw, any
generation) and that b does not hold. Also models round 2 (owned := round-1 output, generation + 1).

"Holds" means b's *valid* ownership (ALGORITHMS.md, impl/cooperative.py): a stale or disputed claim of b does
not let b take the partition before the other claimant revoked it. RAW_HOLDER is the variant where b's raw
claim is enough (what H6, docs/SPEC.md §3, requires at the least); both are proved, and the conformance test holds
MODEL equal to the code."""

from __future__ import annotations

from functools import partial

import z3

from assigncheck.verify.models import properties as prop
from assigncheck.verify.models.base import Matrix, Model, next_round
from assigncheck.verify.models.constrained import assign as eager_assign
from assigncheck.verify.models.contracts import REAL, Stages, contracted
from assigncheck.verify.models.encoding import Inputs, valid_owned


def assign(inp: Inputs, holder: str = "valid", stages: Stages = REAL) -> Matrix:
    """holder="valid": b keeps p only if b validly owns it; "raw": if b claims it as sent.
    stages: the eager part's keep and deal stages (verify.models.contracts)."""
    eager = eager_assign(inp, stages=stages)
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


def invariants(inp: Inputs, holder: str = "valid", stages: Stages = REAL) -> dict[str, z3.BoolRef]:
    out = assign(inp, holder, stages)
    # composed: round 2's contracts must reach the queries (its fresh outputs mean nothing without them)
    second = assign(next_round(inp, out, share_facts=stages is not REAL), holder, stages)
    return {
        "H3": prop.h3_subscription(inp, out),
        "H4": prop.h4_exclusive(out),
        "H5": prop.h5_cooperative(inp, out),
        "H6": prop.h6_cooperative_safety(inp, out),
        # docs/SPEC.md §6.2: the balance promise holds once nothing is withheld
        "balance.perfect": z3.Implies(prop.nothing_withheld(inp, out), prop.perfect_balance(inp, out)),
        # at most 2 rounds: round 2 withholds nothing
        "cooperative.rounds": prop.nothing_withheld(inp, second),
    }


def _model(name: str, holder: str, stages: Stages = REAL) -> Model:
    real = stages is REAL
    return Model(name, "cooperative-sticky", True, "member_id", "cooperative",
                 partial(assign, holder=holder, stages=stages), partial(invariants, holder=holder, stages=stages),
                 chained=True,  # the eager part notes the constrained model's law chains
                 composed=(lambda topics: _model(name, holder, contracted(topics))) if real else None)


MODEL = _model("cooperative-sticky", "valid")
RAW_HOLDER = _model("cooperative-sticky:raw-holder", "raw")
