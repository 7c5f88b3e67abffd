"""KIP-881 racks in the Z3 judges: `verify.z3_oracle`'s rack objective against the min-cost-flow oracle, and the
small-scope exhaustive check over every rack-aware problem (`verify.exhaustive_racks`) holding the constrained
assignors to Z3's fewest mismatches."""

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings

from assigncheck.generate import strategies
from assigncheck.spec import oracle
from assigncheck.spec.model import Assignment, Member, Problem
from assigncheck.spec.racks import rack_aware
from assigncheck.targets import registry
from assigncheck.verify import z3_oracle
from assigncheck.verify.exhaustive import exhaust
from assigncheck.verify.exhaustive_racks import rack_problems
from assigncheck.verify.prove import Bound

TINY = Bound(members=2, partitions=2, topics=1, generations=1)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(strategies.problems(racks=True, max_members=4, max_topics=2, max_partitions_per_topic=4))
def test_z3_rack_optimum_agrees_with_the_flow(problem):
    assume(rack_aware(problem))
    for balance in ("none", "perfect", "optimal"):
        assert z3_oracle.min_mismatches(problem, balance) == oracle.min_mismatches(problem, balance), balance
        assert z3_oracle.max_retained(problem, balance, racks=True) == oracle.max_retained(problem, balance, True)


def test_rack_objective_on_a_hand_checked_case():
    """Two members on racks a and b, two partitions with one replica each on a and b, both claimed by the member
    on a: matching racks costs a retained partition, and racks rank above stickiness."""
    members = (Member("ma", frozenset({"t"}), [("t", 0), ("t", 1)], 1, None, "a"),
               Member("mb", frozenset({"t"}), rack="b"))
    problem = Problem({"t": 2}, members, partition_racks={"t": (frozenset("a"), frozenset("b"))})
    assert rack_aware(problem)
    assert z3_oracle.min_mismatches(problem, "perfect") == 0
    assert z3_oracle.max_retained(problem, "perfect", racks=True) == 1
    assert z3_oracle.max_retained(problem, "perfect") == 1
    assert z3_oracle.min_mismatches(problem, "none") == 0


def test_enumeration_is_rack_aware_and_free_of_mirror_images():
    found = list(rack_problems(TINY))
    assert len(found) > 1000 and all(rack_aware(p) for p in found)
    swap = {"r0": "r1", "r1": "r0"}

    def key(p: Problem, mirror: bool) -> str:
        name = (lambda r: swap.get(r, r)) if mirror else (lambda r: r)
        members = sorted((sorted(m.subscription), sorted((t, list(a)) for t, a in m.owned.items()), m.generation,
                          name(m.rack) or "") for m in p.members)
        racks = [sorted(name(r) for r in s) for s in p.partition_racks["t0"]]
        return repr((dict(p.topics), members, racks))

    keys = {key(p, False) for p in found}
    assert len(keys) == len(found)
    assert not any(key(p, True) in keys and key(p, True) != key(p, False) for p in found)


@pytest.mark.slow  # every small rack-aware problem (half a minute); the default run catches the rack-blind one below
def test_constrained_sticky_keeps_the_rack_rule_on_every_small_problem():
    result = exhaust(registry.get("sticky-constrained"), TINY, racks=True)
    assert result.complete and result.checked > 1000
    assert result.findings == []


class IgnoresRacks:
    """Round-robin by member order with sticky-constrained's promises: balanced, but blind to racks."""

    name = "ignores-racks"
    promises = registry.get("sticky-constrained").promises

    def assign(self, problem: Problem) -> Assignment:
        members = sorted(m.member_id for m in problem.members)
        pairs = [(t, i) for t in sorted(problem.topics) for i in range(problem.topics[t])]
        out: dict[str, list] = {m: [] for m in members}
        for k, tp in enumerate(pairs):
            out[members[k % len(members)]].append(tp)
        return Assignment.of(out)


def test_a_rack_blind_assignor_is_caught_against_z3():
    promises = replace(IgnoresRacks.promises, stickiness="none")
    result = exhaust(IgnoresRacks(), TINY, promises=promises, racks=True, max_findings=3)
    assert result.findings
    z3_found = [v for _, v in result.findings if "Z3's fewest" in v.message]
    assert z3_found and {v.invariant for v in z3_found} == {"racks"}
