"""Rack-aware problems (KIP-881, `spec.racks`) for the small-scope exhaustive check: every problem within a
bound whose members have racks and whose partitions have replica racks, up to symmetry, kept only when rack
awareness applies.

A member is a profile (subscription, claimed partitions, generation, rack); a problem is a multiset of profiles
(member renaming gives nothing new, as in `verify.exhaustive`) and one replica rack set per partition, each a
subset of two racks. Swapping the two rack names gives nothing new either: of a problem and its mirror image,
only the one with the smaller key is kept. A member's rack is one of the two or none; partitions of a topic
without rack information are the empty set (no replica on any rack).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations_with_replacement, product

from assigncheck.spec.model import Member, Problem, Protocol, partitions_of
from assigncheck.spec.racks import rack_aware
from assigncheck.verify.exhaustive import _subsets
from assigncheck.verify.prove import Bound, topic_vectors

RACKS = ("r0", "r1")
SWAP = {"r0": "r1", "r1": "r0", None: None}
RackProfile = tuple[frozenset[int], frozenset[int], int, str | None]  # topics, claimed partitions, generation, rack


def _profiles(vector: tuple[int, ...], generations: int, equal_subscriptions: bool) -> list[RackProfile]:
    total = sum(vector)
    topics = [frozenset(range(len(vector)))] if equal_subscriptions else _subsets(len(vector))
    gens = [-1, *range(1, generations + 1)]
    return [(s, c, g, r) for s in topics for c in _subsets(total) for g in gens for r in (None, *RACKS)]


def _key(members: tuple[RackProfile, ...], layout: tuple[frozenset[str], ...], swap: bool
         ) -> tuple[object, ...]:
    def rack(r: str | None) -> str:
        return (SWAP[r] if swap else r) or ""

    profiles = sorted((tuple(sorted(s)), tuple(sorted(c)), g, rack(r)) for s, c, g, r in members)
    return tuple(profiles), tuple(tuple(sorted(rack(r) for r in rs)) for rs in layout)


def _problem(vector: tuple[int, ...], members: tuple[RackProfile, ...], layout: tuple[frozenset[str], ...],
             protocol: Protocol) -> Problem:
    names = [f"t{t}" for t in range(len(vector))]
    flat = [(names[t], i) for t, n in enumerate(vector) for i in range(n)]
    racks, at = {}, 0
    for t, n in enumerate(vector):
        racks[names[t]] = layout[at:at + n]
        at += n
    return Problem(
        {names[t]: n for t, n in enumerate(vector)},
        tuple(Member(f"m{k}", frozenset(names[t] for t in s), partitions_of([flat[p] for p in sorted(c)]), g, None, r)
              for k, (s, c, g, r) in enumerate(members)),
        protocol=protocol,
        partition_racks=racks,
    )


def rack_problems(bound: Bound, protocol: Protocol = "eager", *,
                  equal_subscriptions: bool = False) -> Iterator[Problem]:
    """Every rack-aware problem within `bound`, one per symmetry class (members, rack names), smallest first."""
    vectors = sorted((v for v in topic_vectors(bound.partitions, bound.topics) if list(v) == sorted(v)),
                     key=lambda v: (sum(v), v))
    rack_sets = [frozenset(s) for s in ((), ("r0",), ("r1",), ("r0", "r1"))]
    for n in range(1, bound.members + 1):
        for vector in vectors:
            profiles = _profiles(vector, bound.generations, equal_subscriptions)
            for members in combinations_with_replacement(profiles, n):
                if all(r is None for *_, r in members):
                    continue  # no member rack: never rack-aware
                for layout in product(rack_sets, repeat=sum(vector)):
                    if _key(members, layout, False) > _key(members, layout, True):
                        continue  # the mirror image (racks renamed) is the one kept
                    problem = _problem(vector, members, layout, protocol)
                    if rack_aware(problem):
                        yield problem
