"""Small-scope exhaustive checking, for assignors without a symbolic model (general `sticky`, outside
targets): every problem up to a small bound, up to symmetry, run and checked against the spec, with Z3
`Optimize` (verify.z3_oracle) supplying the optima the stickiness and balance promises are held to.

A member is a *profile*: (subscription, claimed partitions, generation). Within a bound every multiset of
profiles is one problem, members named m0, m1, ... in profile order: renaming members gives no new problem
(the spec's invariants do not depend on names; H8 order independence is checked on each problem by
`check_assignor`'s shuffle). Topic renaming: of the problems that map onto each other by permuting topics,
only the one with the smallest canonical key is kept. Claims range over every existing partition, of a
subscribed topic or not, whatever the domain (several members may claim one): with equal subscriptions the
members share each subset of the topics in turn, so a group that moved to another topic still claims
partitions of the one nobody subscribes to any more. `exhaust` adds one junk profile: a member still
subscribed to and claiming a topic gone from the metadata (KAFKA-3661/7962) that also claims the index just
past the end of topic t0 (see `_profiles`); the other junk claims are `valid_owned`'s business, covered by the
properties stage and the campaigns.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations_with_replacement, permutations

from assigncheck.run.assignor_check import check_assignor
from assigncheck.spec.assignment_check import oracle_balance
from assigncheck.spec.model import Member, Problem, Protocol, partitions_of
from assigncheck.spec.promises import Assignor, Promises
from assigncheck.spec.racks import rack_aware
from assigncheck.spec.violations import Violation
from assigncheck.verify.prove import Bound, topic_vectors

# topics subscribed, flat partitions claimed, generation, junk (claims gone-0 and t0-n, subscribes to gone)
Profile = tuple[frozenset[int], frozenset[int], int, bool]
GONE = "gone"  # never in the metadata


def _subsets(n: int) -> list[frozenset[int]]:
    return [frozenset(i for i in range(n) if mask >> i & 1) for mask in range(1 << n)]


def _profiles(vector: tuple[int, ...], generations: int, gone: bool = False) -> list[Profile]:
    """Every member profile; with `gone`, also those still subscribed to and claiming a topic gone from the
    metadata, only for a member that claims something else too and has a known generation (one that
    rebalanced before the topic went): that keeps the count to about twice, not four times."""
    total = sum(vector)
    gens = [-1, *range(1, generations + 1)]
    return [(s, c, g, x) for s in _subsets(len(vector)) for c in _subsets(total) for g in gens
            for x in (False, True) if not x or (gone and c and g > 0)]


def _canonical(vector: tuple[int, ...], members: tuple[Profile, ...]) -> tuple[object, ...]:
    """The smallest key over all topic permutations (partitions move with their topic)."""
    offsets = [sum(vector[:t]) for t in range(len(vector))]
    best = None
    for perm in permutations(range(len(vector))):  # perm[new] = old
        new_vector = tuple(vector[old] for old in perm)
        new_offsets = [sum(new_vector[:t]) for t in range(len(new_vector))]
        old_to_new = {old: new for new, old in enumerate(perm)}
        remap = {
            offsets[old] + i: new_offsets[old_to_new[old]] + i for old in range(len(vector)) for i in range(vector[old])
        }
        profiles = sorted(
            (tuple(sorted(old_to_new[t] for t in s)), tuple(sorted(remap[p] for p in c)), g, gone)
            for s, c, g, gone in members
        )
        key = (new_vector, tuple(profiles))
        best = key if best is None or key < best else best
    assert best is not None  # permutations() yields the identity at least
    return best


def _problem(vector: tuple[int, ...], members: tuple[Profile, ...], protocol: Protocol) -> Problem:
    names = [f"t{t}" for t in range(len(vector))]
    flat = [(names[t], i) for t, n in enumerate(vector) for i in range(n)]
    return Problem(
        {names[t]: n for t, n in enumerate(vector)},
        tuple(
            Member(f"m{k}", frozenset(names[t] for t in s) | ({GONE} if gone else set()),
                   partitions_of([flat[p] for p in sorted(c)] + ([(GONE, 0), (names[0], vector[0])] if gone else [])),
                   g)
            for k, (s, c, g, gone) in enumerate(members)
        ),
        protocol=protocol,
    )


def _colex(count: int, n: int) -> Iterator[tuple[int, ...]]:
    """Every multiset of n indices below `count`, those over the first k indices before any using index k:
    a run cut short has covered every problem over a prefix of the profile list."""
    for top in range(count):
        for rest in combinations_with_replacement(range(top + 1), n - 1):
            yield (*rest, top)


def _shape_problems(n: int, vector: tuple[int, ...], bound: Bound, protocol: Protocol, equal_subscriptions: bool,
                    gone: bool, seed: int | None = None) -> Iterator[Problem]:
    profiles = _profiles(vector, bound.generations, gone)
    if not equal_subscriptions:
        return _combined(n, vector, profiles, protocol, seed, "")
    # One subscription shared by every member, each subset of the topics in turn: claims still range over every
    # existing topic, so a group that moved to another topic still claims partitions of the one it left (a gone
    # topic in one member's subscription would make them unequal).
    return _round_robin([_combined(n, vector, [p for p in profiles if p[0] == s and not p[3]], protocol, seed,
                                   f"/{sorted(s)}") for s in _subsets(len(vector))])


def _combined(n: int, vector: tuple[int, ...], profiles: list[Profile], protocol: Protocol, seed: int | None,
              key: str) -> Iterator[Problem]:
    """Every multiset of n of these profiles, one per topic-renaming class."""
    if seed is None:
        combos: Iterator[tuple[Profile, ...]] = combinations_with_replacement(profiles, n)
    else:  # profiles in a seeded order, taken in colex order: early problems mix every kind of profile
        profiles = list(profiles)
        random.Random(f"{seed}/{n}/{vector}{key}").shuffle(profiles)
        combos = (tuple(profiles[i] for i in idx) for idx in _colex(len(profiles), n))
    for members in combos:
        if _canonical(vector, members) == _canonical_identity(vector, members):
            yield _problem(vector, members, protocol)


def _round_robin(sources: list[Iterator[Problem]]) -> Iterator[Problem]:
    """One problem of each source in turn, until all are exhausted."""
    while sources:
        for source in list(sources):
            problem = next(source, None)
            if problem is None:
                sources.remove(source)
            else:
                yield problem


def problems(bound: Bound, protocol: Protocol = "eager", *, equal_subscriptions: bool = False, gone: bool = False,
             spread: bool = False, seed: int | None = None) -> Iterator[Problem]:
    """Every problem within `bound`, one per symmetry class: smallest first, or with `spread` one shape
    (member count, partitions per topic) after the other in turn, so a run cut short by its time budget
    has still seen every shape rather than only the smallest ones. With a `seed`, each shape's member
    profiles are taken in a seeded order (see `_shape_problems`): still every problem, in another order."""
    # Only non-decreasing partition vectors: a problem over (2, 1) is the topic renaming of one over (1, 2), and
    # `_canonical` keeps the smallest vector, so such a shape would yield nothing after scanning all of its problems.
    vectors = sorted((v for v in topic_vectors(bound.partitions, bound.topics) if list(v) == sorted(v)),
                     key=lambda v: (sum(v), v))
    shapes = [_shape_problems(n, v, bound, protocol, equal_subscriptions, gone, seed)
              for n in range(1, bound.members + 1) for v in vectors]
    if not spread:
        for shape in shapes:
            yield from shape
        return
    yield from _round_robin(shapes)


def _canonical_identity(vector: tuple[int, ...], members: tuple[Profile, ...]) -> tuple[object, ...]:
    profiles = sorted((tuple(sorted(s)), tuple(sorted(c)), g, gone) for s, c, g, gone in members)
    return (vector, tuple(profiles))


@dataclass
class ExhaustiveResult:
    target: str
    bound: Bound
    checked: int = 0
    seconds: float = 0.0
    complete: bool = True
    findings: list[tuple[Problem, Violation]] = field(default_factory=list)


def z3_optima_violations(problem: Problem, quality: dict, promises: Promises) -> list[Violation]:
    """Hold the output to Z3's optima: retained == max_retained, for balance "optimal" the sum of squared counts
    == the optimum and, with the `racks` promise on a rack-aware problem, no more mismatches than Z3's fewest
    (retained then taken among those, as `spec.racks` ranks them); a disagreement between Z3 and the min-cost-flow
    oracle is a finding too."""
    from assigncheck.verify.z3_oracle import max_retained, min_mismatches, optimal_sum_squares
    out: list[Violation] = []
    if not quality.get("promises_enforced"):
        return out
    balance = oracle_balance(problem, promises)
    racks = promises.racks and rack_aware(problem)
    if promises.stickiness == "max_retained" and balance is not None:
        best = max_retained(problem, balance, racks)
        if best is not None and quality.get("retained") != best:
            out.append(Violation("stickiness.max_retained",
                                 f"retained {quality.get('retained')} != Z3 max_retained {best}"))
        if quality.get("max_retained") is not None and quality["max_retained"] != best:
            out.append(Violation("oracle", f"min-cost flow max_retained {quality['max_retained']} != Z3 {best}"))
    if racks and balance is not None:
        fewest = min_mismatches(problem, balance)
        if fewest is not None and quality.get("rack_mismatches", 0) > fewest:
            out.append(Violation("racks", f"{quality.get('rack_mismatches')} rack mismatches, Z3's fewest under "
                                          f"{balance} balance is {fewest}"))
    if promises.balance == "optimal":
        best = optimal_sum_squares(problem)
        if quality.get("sum_squares") != best:
            message = f"sum of squares {quality.get('sum_squares')} != Z3 optimum {best}"
            out.append(Violation("balance.optimal", message))
    return out


def exhaust(
    assignor: Assignor, bound: Bound, *, promises: Promises | None = None, protocol: Protocol = "eager",
    seconds: float | None = None, max_findings: int = 20, gone: bool = True, spread: bool = False,
    racks: bool = False,
) -> ExhaustiveResult:
    """Check `assignor` on every problem within `bound` (up to symmetry, with the gone-topic shape unless
    `gone` is False, in `problems`' `spread` order if asked), or with `racks` on every rack-aware one
    (`verify.exhaustive_racks`); stop after `seconds` (then `complete` is False) or `max_findings` violations."""
    promises = promises or assignor.promises
    result = ExhaustiveResult(getattr(assignor, "name", "target"), bound)
    start = time.perf_counter()
    if racks:
        from assigncheck.verify.exhaustive_racks import rack_problems

        source = rack_problems(bound, protocol, equal_subscriptions=promises.equal_subscriptions_only)
    else:
        source = problems(bound, protocol, equal_subscriptions=promises.equal_subscriptions_only, gone=gone,
                          spread=spread)
    for problem in source:
        if seconds is not None and time.perf_counter() - start > seconds:
            result.complete = False
            break
        _, report = check_assignor(assignor, problem, promises=promises, oracle=True)
        violations = list(report.violations) + z3_optima_violations(problem, dict(report.quality), promises)
        result.checked += 1
        result.findings += [(problem, v) for v in violations]
        if len(result.findings) >= max_findings:
            result.complete = False
            break
    result.seconds = time.perf_counter() - start
    return result
