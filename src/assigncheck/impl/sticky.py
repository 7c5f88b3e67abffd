"""`sticky`: the general sticky assignor for any subscriptions (docs/SPEC.md §8.2, docs/ALGORITHMS.md "sticky").

Promises: optimal balance (minimum Σcount², not only Kafka's local "no improving move"), and among
optimally balanced assignments the most retained valid ownership; fixpoint; per-topic spread
(`spec.stickiness.per_topic_spread_violations`); deterministic and independent of the order members,
subscriptions and claims are listed in.

Three cases, cheapest first:

1. **Equal subscriptions**: optimal balance is perfect balance, and `sticky-constrained` (KAFKA-12464)
   already retains the maximum under it and spreads every topic, in O(P log P). Its output is ours.
2. **Settled** (`impl/already_settled.py`): every partition is validly owned and the counts are already optimal,
   so the claims are the unique optimum (the fixpoint, and any rebalance in which nobody joined, left or
   re-subscribed). Linear in pairs.
3. Otherwise **one min-cost flow over (topic, member) pairs** (`impl/flow.py`) decides how many of its
   valid claims on each topic a member keeps and how many other partitions of it it receives; then
   **placement**: a member keeps its `keep` lowest claims of each topic; the partitions nobody keeps
   go, topic by topic in (topic, index) order, to the receivers; and within every class of members
   with identical subscriptions the received partitions are dealt again in laps (members by received
   count, descending, then id), which keeps every member's count and retention and splits each topic
   within the class as evenly as its laps allow (per-topic spread at most 1 on a fresh group).

Tie-breaks: the flow's pick among equally good optima is its solver's (`impl/min_cost_flow.py`; OR-Tools' on the
rare convex network), deterministic on the sorted network, so a model can check this assignor's optima and
determinism, not predict each partition. Fixpoint: fed its own output back, case 1 is the constrained fixpoint
and otherwise case 2 applies.

**Two paths, one answer**: cases 2 and 3 run in plain Python for a small problem (`impl/sticky_small.py`, with
`impl/flow_small.py` for the flow; `spec.small.views.is_small`) and on arrays otherwise (`assign_general_sticky`);
`assign_by_flow` is the one place the choice is made, and `tests/impl/test_sticky_small.py` and
`tests/impl/test_flow_small.py` hold the twins equal.
"""

from __future__ import annotations

import numpy as np

from assigncheck.impl.already_settled import optimally_balanced
from assigncheck.impl.constrained import ConstrainedStickyAssignor
from assigncheck.impl.flow import solve_counts
from assigncheck.impl.min_cost_flow import solved
from assigncheck.impl.native import by_id
from assigncheck.impl.problem_kind import require_problem
from assigncheck.impl.sticky_kernel import SETTLED, deal, general_rows, rows_by_member
from assigncheck.impl.sticky_pairs import PairTable, pair_table
from assigncheck.impl.sticky_small import assign_small
from assigncheck.spec.model import AnyProblem, Assignment, Member, Problem, TopicTable, topic_sizes
from assigncheck.spec.ownership import claimed_when_all_valid, valid_claims, valid_owned
from assigncheck.spec.promises import Promises
from assigncheck.spec.racks import rack_aware
from assigncheck.spec.small.views import is_small
from assigncheck.spec.subscriptions import subscription_codes

_CONSTRAINED = ConstrainedStickyAssignor()
_NO_NODES = np.zeros(0, dtype=np.int64)  # `deal`'s gid_node when the nodes are the topics


def _settled(problem: Problem, pairs: PairTable) -> Assignment | None:
    """The claims themselves, when they are complete, optimally balanced and without a rack mismatch (module
    docstring, case 2)."""
    if len(pairs.claim_gid) != pairs.partitions or (pairs.pair_mismatch & (pairs.pair_owned > 0)).any():
        return None
    counts = np.bincount(pairs.pair_member, weights=pairs.pair_owned, minlength=pairs.members).astype(np.int64)
    if not optimally_balanced(counts, pairs.pair_topic, pairs.pair_member, pairs.pair_owned, len(pairs.node_size)):
        return None
    return _claims_kept(problem, pairs.partitions)


def _claims_kept(problem: Problem, valid: int) -> Assignment:
    """The valid sets (`valid`: how many valid claims there are), which are the claimed sets themselves when every
    claim is valid."""
    claimed = claimed_when_all_valid(problem, valid)
    if claimed is not None:
        return Assignment.of_sets(dict(zip(problem.member_ids, claimed)))
    return Assignment.of_sets(valid_owned(problem))


def assign_general_sticky(problem: Problem) -> Assignment:
    """The optimally balanced, most retaining assignment for any subscriptions (module docstring, 2 and 3): in one
    compiled call when the nodes are the topics and the banded network at its lower bound is solved, which is
    nearly always; step by step otherwise."""
    if not rack_aware(problem):
        placed = _in_one_call(problem)
        if placed is not None:
            return placed
    return _step_by_step(problem)


def _in_one_call(problem: Problem) -> Assignment | None:
    """Cases 2 and 3 by `sticky_kernel.general_rows` (the pair table's steps, the settled check, the banded flow,
    the deal, the rows), from the compiled readings of the members; None when the banded network at the lower
    bound of B has no solution (`_step_by_step` then searches B)."""
    ids, positions = by_id(problem.members, Member)
    subs, (names, sizes), v = subscription_codes(problem), topic_sizes(problem), valid_claims(problem)
    status, kept, member, topic, index = general_rows(subs.member_sub, np.frombuffer(positions, np.int64), subs.sub,
                                                      subs.codes, sizes, v.member, v.topic, v.index)
    if status == SETTLED:  # every partition validly claimed (so the valid claims number the partitions)
        return _claims_kept(problem, len(v))
    if not solved(status):
        return None
    return Assignment.from_grouped_rows(ids, TopicTable.of(tuple(map(names.names.__getitem__, kept.tolist()))),
                                        member, topic, index)


def _step_by_step(problem: Problem) -> Assignment:
    """Cases 2 and 3 on the pair table (`impl/sticky_pairs.py`, with its rack-aware nodes), through the flow's
    search for B and its convex network when the bands do not meet."""
    pairs = pair_table(problem)
    settled = _settled(problem, pairs)
    if settled is not None:
        return settled
    flows = solve_counts(pairs.node_size, pairs.pair_topic, pairs.pair_member, pairs.pair_owned, pairs.members,
                         pairs.pair_mismatch)
    owner = deal(pairs.pair_member, flows.keep, flows.new, pairs.claim_pair, pairs.claim_gid,
                 _NO_NODES if pairs.gid_node is None else pairs.gid_node, pairs.subscription_class, pairs.partitions)
    return Assignment.from_grouped_rows(pairs.member_ids, pairs.table,
                                        *rows_by_member(owner, pairs.offsets, pairs.members))


class StickyAssignor:
    """General sticky: optimal balance, then maximum retention, then per-topic spread (module docstring)."""

    name = "sticky"
    promises = Promises(balance="optimal", stickiness="max_retained", fixpoint=True, per_topic_spread=True,
                        racks=True, order_independent=True)

    def assign(self, problem: AnyProblem) -> Assignment:
        problem = require_problem(problem, self.name)
        if problem.subscriptions_equal() and not rack_aware(problem):
            if not problem.members:
                return Assignment({})
            return _CONSTRAINED.placed(problem)
        return assign_by_flow(problem)


def assign_by_flow(problem: Problem) -> Assignment:
    """Cases 2 and 3 of the module docstring: the plain-Python path for a small problem, the arrays otherwise."""
    return assign_small(problem) if is_small(problem) else assign_general_sticky(problem)


__all__ = ["StickyAssignor", "assign_by_flow", "assign_general_sticky"]
