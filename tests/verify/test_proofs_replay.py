"""The proofs stage checks that the Z3 model it proves says what the code does (sampled problems of the
bound, `verify.counterexamples.conformance`), and its exhaustive enumeration reaches the junk and cooperative shapes."""

import json
from pathlib import Path

from assigncheck.ci.context import PROFILES, Context
from assigncheck.ci.results import StageResult
from assigncheck.ci.stages.proofs import _replay
from assigncheck.spec.model import Assignment
from assigncheck.targets import registry
from assigncheck.verify.counterexamples import conformance, sample_problems
from assigncheck.verify.exhaustive import exhaust, problems
from assigncheck.verify.models import MODELS
from assigncheck.verify.prove import Bound

BOUND = Bound(3, 4, 2, 2)


class LastTopicReversed:
    """range, except that the last subscriber of each topic comes first: differs from the model (planted)."""

    name = "range"
    promises = registry.get("range").promises

    def assign(self, problem):
        out = registry.get("range").assign(problem)
        ids = [m.member_id for m in sorted(problem.members, key=lambda m: m.sort_key())]
        if len(ids) < 2:
            return out
        first, last = ids[0], ids[-1]
        return Assignment.of({m: out.get(last if m == first else first if m == last else m) for m in ids})


def test_samples_stay_inside_the_bound_and_the_model_domain():
    model = MODELS["sticky-constrained"]
    seen = list(zip(range(200), sample_problems(model, BOUND, seed=3)))
    for _, p in seen:
        assert 1 <= len(p.members) <= BOUND.members and sum(p.topics.values()) <= BOUND.partitions
        assert p.subscriptions_equal()
    assert any("gone" in m.subscription for _, p in seen for m in p.members)
    assert any(len({tuple(m.owned.get("t0", [])) for m in p.members}) > 1 for _, p in seen)


def test_the_models_agree_with_the_code():
    for name in ("range", "roundrobin", "sticky-constrained", "sticky-constrained-4phase"):
        found = conformance(MODELS[name], registry.get(name), BOUND, seconds=30, limit=60)
        assert found.ok and found.checked == 60, (name, found.problem)


def test_a_disagreement_is_reported_with_a_minimized_reproducer(tmp_path):
    found = conformance(MODELS["range"], LastTopicReversed(), BOUND, seconds=30)
    assert not found.ok and found.code_out != found.model_out
    ctx = Context(PROFILES["quick"], Path(tmp_path))
    result = StageResult("proofs", "range")
    agreed = _replay(LastTopicReversed(), MODELS["range"], BOUND, 10.0, ctx, result)
    [finding] = result.findings
    assert finding.invariant == "model.conformance" and "model.conformance" in result.checked
    assert agreed >= 0 and "differ for" in finding.message
    saved = json.loads(Path(finding.reproducer).read_text())
    assert len(saved["members"]) == 2  # minimized: two members are enough to swap


def test_the_enumeration_has_the_gone_topic_shape_and_visits_every_shape_early():
    bound = Bound(2, 3, 2, 1)
    with_junk = list(problems(bound, gone=True))
    assert len(with_junk) > len(list(problems(bound)))
    junk = [m for p in with_junk for m in p.members if "gone" in m.subscription]
    assert junk and all(("gone", 0) in set(_pairs(m)) for m in junk)
    def shape(p):
        return len(p.members), tuple(p.topics.values())

    every = {shape(p) for p in with_junk}
    first = [shape(p) for _, p in zip(range(2 * len(every)), problems(bound, gone=True, spread=True))]
    assert set(first) == every  # smallest-first would still be on one-member problems
    assert first[:40].count((1, (1,))) < 40
    assert sorted(map(str, problems(Bound(2, 2, 1, 1), spread=True))) == sorted(map(str, problems(Bound(2, 2, 1, 1))))


def _pairs(member):
    return [(t, int(i)) for t, idx in member.owned.items() for i in idx]


class HoldsTooMuch:
    """cooperative-sticky that withholds every transfer, claimed or not (planted bug)."""

    name = "holds-too-much"
    promises = registry.get("cooperative-sticky").promises

    def assign(self, problem):
        out = registry.get("cooperative-sticky").assign(problem)
        if problem.protocol == "eager":
            return out
        valid = {m.member_id: set(_pairs(m)) for m in problem.members}
        return Assignment.of({m: [tp for tp in out.pairs(m) if tp in valid[m]] for m in out.by_member})


def test_cooperative_targets_are_enumerated_in_cooperative_groups():
    bound = Bound(2, 2, 1, 1)
    assert exhaust(registry.get("cooperative-sticky"), bound, protocol="cooperative").findings == []
    found = exhaust(HoldsTooMuch(), bound, protocol="cooperative", max_findings=3)
    assert "cooperative.withhold" in {v.invariant for _, v in found.findings}


def test_the_enumeration_for_outside_targets_reaches_three_members_two_generations_and_junk_early():
    from assigncheck.ci.stages.proofs import EXHAUSTIVE_BOUND

    bound = Bound(*EXHAUSTIVE_BOUND["quick"])
    assert (bound.members, bound.generations) == (3, 2)
    early = [p for _, p in zip(range(300), problems(bound, gone=True, spread=True, seed=0))]  # a loaded machine's
    three = [p for p in early if len(p.members) == 3]
    assert three and any({1, 2} <= {m.generation for m in p.members} for p in three)
    assert any("gone" in m.subscription for p in three for m in p.members)  # the junk profile
    assert any(len({tuple(sorted(_pairs(m))) for m in p.members if m.owned}) < sum(bool(m.owned) for m in p.members)
               for p in three)  # two members claiming the same partitions
