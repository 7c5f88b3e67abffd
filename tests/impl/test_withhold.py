"""cooperative.withhold: a cooperative round is the eager assignment minus exactly the transfers that must
wait (docs/ALGORITHMS.md). Planted rounds that withhold too much, too little or hand out extra break it;
H5/H6 alone miss most of them."""

from assigncheck.run.assignor_check import check_assignor
from assigncheck.spec.invariants import check_hard, cooperative_withhold
from assigncheck.spec.model import Assignment, Member, Problem
from assigncheck.spec.promises import Promises
from assigncheck.targets.registry import get

# a owns t0 (generation 1); b joins: the eager assignment moves t0-2 and t0-3 to b.
SCALE_OUT = Problem({"t0": 4}, (Member("a", frozenset({"t0"}), {"t0": [0, 1, 2, 3]}, 1),
                                Member("b", frozenset({"t0"}))), protocol="cooperative")
EAGER = Assignment.of({"a": {"t0": [0, 1]}, "b": {"t0": [2, 3]}})
ROUND = Assignment.of({"a": {"t0": [0, 1]}, "b": {}})


def reasons(problem, round_out, eager=EAGER):
    return [v.message for v in cooperative_withhold(problem, round_out, eager)]


def test_the_eager_assignment_minus_the_transfers_is_clean():
    assert cooperative_withhold(SCALE_OUT, ROUND, EAGER) == []
    assert check_hard(SCALE_OUT, ROUND) == []


def test_withholding_what_its_valid_owner_keeps_is_a_violation_h5_h6_miss():
    needless = Assignment.of({"a": {"t0": [0]}, "b": {}})
    assert check_hard(SCALE_OUT, needless) == []  # t0-1 is claimed, so H5 allows holding it back
    [v] = cooperative_withhold(SCALE_OUT, needless, EAGER)
    assert v.invariant == "cooperative.withhold" and "t0-1 for a (withheld needlessly)" in v.message
    assert v.members == ("a",) and v.partitions == (("t0", 1),)


def test_withholding_a_partition_nobody_claims_is_a_violation():
    fresh = Problem({"t0": 2}, (Member("a", frozenset({"t0"})), Member("b", frozenset({"t0"}))), protocol="cooperative")
    [v] = cooperative_withhold(fresh, Assignment.of({"a": {"t0": [0]}, "b": {}}),
                               Assignment.of({"a": {"t0": [0]}, "b": {"t0": [1]}}))
    assert "t0-1 for b (withheld needlessly)" in v.message


def test_handing_over_too_early_and_handing_out_extra_are_violations():
    early = Assignment.of({"a": {"t0": [0, 1]}, "b": {"t0": [3]}})
    assert "t0-3 for b (handed over before its claimant revoked)" in reasons(SCALE_OUT, early)[0]
    extra = Assignment.of({"a": {"t0": [0, 1, 2]}, "b": {}})
    assert "t0-2 for a (not in the eager assignment)" in reasons(SCALE_OUT, extra)[0]


def test_a_stale_claim_does_not_let_its_member_take_the_partition_h6_misses_it():
    # b's claim of t0-0 is stale (generation 1; a claims it at 2): if the eager assignment gives t0-0 to b,
    # the round must hold it back until a revoked it, although b's raw claims contain it (so H6 is silent).
    stale = Problem({"t0": 2}, (Member("a", frozenset({"t0"}), {"t0": [0, 1]}, 2),
                                Member("b", frozenset({"t0"}), {"t0": [0]}, 1)), protocol="cooperative")
    eager = Assignment.of({"a": {"t0": [1]}, "b": {"t0": [0]}})
    taken = Assignment.of({"a": {"t0": [1]}, "b": {"t0": [0]}})
    assert check_hard(stale, taken) == []
    assert "t0-0 for b (handed over before its claimant revoked)" in reasons(stale, taken, eager)[0]
    assert cooperative_withhold(stale, Assignment.of({"a": {"t0": [1]}, "b": {}}), eager) == []


def test_eager_rounds_are_not_judged():
    assert cooperative_withhold(SCALE_OUT.replace(protocol="eager"), Assignment.of({"a": {}, "b": {}}), EAGER) == []


class OverCautious:
    """cooperative-sticky that also holds back partitions their valid owner keeps (a planted bug)."""

    name = "over-cautious"
    promises = get("cooperative-sticky").promises

    def assign(self, problem):
        out = get("cooperative-sticky").assign(problem)
        if problem.protocol == "eager":
            return out
        claimed = {tp for m in problem.members for tp in Assignment.of({m.member_id: m.owned}).pairs(m.member_id)}
        return Assignment.of({m: [tp for tp in out.pairs(m) if tp not in claimed or tp[1] % 2] for m in out.by_member})


def test_check_assignor_holds_an_assignor_speaking_both_protocols_to_the_rule():
    assert check_assignor(get("cooperative-sticky"), SCALE_OUT)[1].ok
    report = check_assignor(OverCautious(), SCALE_OUT)[1]
    found = [v for v in report.violations if v.invariant == "cooperative.withhold"]
    assert found and found[0].message.startswith("round 1: ")
    assert not {"H5", "H6"} & {v.invariant for v in report.violations}  # the hard invariants allow it
    # a cooperative-only assignor has no eager assignment to compare with: H1-H6 and the rounds only
    only = OverCautious()
    only.promises = Promises(max_rounds=2, eager=False)
    assert "cooperative.withhold" not in [v.invariant for v in check_assignor(only, SCALE_OUT)[1].violations]
