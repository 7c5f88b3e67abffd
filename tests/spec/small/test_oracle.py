"""The oracle's plain-Python path (`spec.small.oracle`, small problems) against its numpy network (`spec.oracle`)."""

from hypothesis import given, settings

from assigncheck.generate import strategies
from assigncheck.spec import oracle
from assigncheck.spec.racks import rack_aware
from assigncheck.spec.reference.roundrobin import RoundRobinReference
from assigncheck.spec.small import oracle as oracle_small


@settings(max_examples=300, deadline=None)
@given(strategies.problems(racks=None, min_members=0, min_partitions_per_topic=0))
def test_small_path_agrees_with_the_vectorized_network(problem):
    """`spec.small.oracle` (plain-Python network, figures read from the cost) against `spec.oracle`'s numpy one."""
    for racks in (False, True):
        racks = racks and rack_aware(problem)
        for balance in ("none", "perfect", "optimal"):
            flow = oracle._solve(oracle._network(problem, racks), balance=balance) if problem.members else None
            small = oracle_small.figures(problem, balance, racks) if problem.members else None
            if flow is None:
                assert small is None or not problem.members
                continue
            squares = int((flow.counts ** 2).sum()) if balance == "optimal" else None
            assert small == (squares, flow.mismatched, int(flow.retained.sum())), balance
            if balance == "optimal":  # the flow-free minimum, and its largest count is the smallest feasible maximum
                counts = oracle_small.balanced_counts(problem)
                assert sum(c * c for c in counts) == squares
                assert max(counts, default=0) == oracle._min_max_count(oracle._network(problem))
                # from a complete assignment (round-robin's: rarely balanced) instead of the dealing
                start = [{} for _ in problem.members]
                position = {m.member_id: i for i, m in enumerate(problem.members)}
                for member, parts in RoundRobinReference().assign(problem).by_member.items():
                    for topic, indices in parts.items():
                        start[position[member]][topic] = len(indices)
                assert sorted(oracle_small._balanced_counts(problem, start)) == sorted(counts)
