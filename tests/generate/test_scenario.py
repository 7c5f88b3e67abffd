"""generate.scenario: steps applied between rebalances, outputs fed back, cooperative rounds, JSON."""

import json

import pytest
from hypothesis import HealthCheck, given, settings

from assigncheck.formats.documents import problem_to_json
from assigncheck.generate import strategies as S
from assigncheck.generate.scenario import (
    AddPartitions,
    DeleteTopic,
    Join,
    Leave,
    RejoinStale,
    Scenario,
    Subscribe,
    load_scenario,
    run_scenario,
    run_scenario_by_step,
    save_scenario,
    scenario_from_json,
    scenario_to_json,
)
from assigncheck.spec.errors import FormatError, InputError
from assigncheck.spec.model import Assignment, Member, Problem, count_of, iter_pairs, partitions_of


def deal(problem: Problem) -> Assignment:
    """A trivial deterministic assignor: each topic's partitions dealt over its subscribers by member id."""
    out = {m: [] for m in problem.member_ids}
    for topic in problem.subscribed_topics():
        subs = sorted(m.member_id for m in problem.subscribers(topic))
        for i in range(problem.topics[topic]):
            out[subs[i % len(subs)]].append((topic, i))
    return Assignment.of(out)


def deal_cooperatively(problem: Problem) -> Assignment:
    """`deal`, withholding from b what b does not claim but another member does (one cooperative round)."""
    claims = {m.member_id: set(iter_pairs(m.owned)) for m in problem.members}
    out = {}
    for m, parts in deal(problem).by_member.items():
        others = set().union(*(c for k, c in claims.items() if k != m))
        out[m] = [tp for tp in iter_pairs(parts) if tp in claims[m] or tp not in others]
    return Assignment.of(out)


class NamedDeal:
    name = "deal"

    def assign(self, problem):
        return deal(problem)


def member(mid, topics, **kw):
    return Member(mid, frozenset(topics), **kw)


BASE = Problem({"t0": 4, "t1": 2}, (member("c0", ["t0", "t1"]), member("c1", ["t0"]), member("c2", ["t0", "t1"])))


def test_eager_scenario_has_one_round_per_rebalance_and_applies_each_step():
    steps = (
        Join(member("c3", ["t1"])),
        Leave("c1"),
        Subscribe("c0", frozenset({"t1"})),
        AddPartitions("t1", 5),
        DeleteTopic("t0"),
        RejoinStale("c2", 2),
    )
    rounds = run_scenario(deal, Scenario(BASE, steps))
    assert len(rounds) == 1 + len(steps)
    inputs = [p for p, _ in rounds]
    assert inputs[0] is BASE
    assert inputs[1].member_ids == ("c0", "c1", "c2", "c3")
    assert inputs[2].member_ids == ("c0", "c2", "c3")
    assert inputs[3].member("c0").subscription == {"t1"}
    assert inputs[4].topics["t1"] == 5
    assert "t0" not in inputs[5].topics and inputs[5].topics == {"t1": 5}
    # Between rebalances the previous output is fed back at the next generation (except the rejoiner).
    for i in range(len(rounds) - 1):
        out = rounds[i][1]
        for m in inputs[i + 1].members:
            if m.member_id in out.by_member and (i + 1, m.member_id) != (6, "c2"):
                assert sorted(iter_pairs(m.owned)) == sorted(out.pairs(m.member_id))
    assert [p.members[0].generation for p in inputs] == [-1, 1, 2, 3, 4, 5, 6]
    # rejoin_stale 2 rounds back: c2 sends the claims fed into round 4 (round 3's output, generation 4)
    # instead of those fed into round 6 (round 5's output, generation 6).
    stale = inputs[6].member("c2")
    assert stale.generation == 4
    assert sorted(iter_pairs(stale.owned)) == sorted(rounds[3][1].pairs("c2"))
    assert sorted(iter_pairs(stale.owned)) != sorted(rounds[5][1].pairs("c2"))
    assert all(m.generation == 6 for m in inputs[6].members if m.member_id != "c2")


def test_a_member_that_left_rejoins_with_stale_claims_kafka_7026():
    rounds = run_scenario(NamedDeal(), Scenario(BASE, (Leave("c1"), RejoinStale("c1", 1))))
    assert len(rounds) == 3
    last = rounds[2][0]
    assert last.member_ids == ("c0", "c2", "c1")
    c1 = last.member("c1")
    assert c1.generation == 1 and c1.subscription == {"t0"}
    assert sorted(iter_pairs(c1.owned)) == sorted(rounds[0][1].pairs("c1"))
    # Its stale claims clash with the newer owners' claims at generation 2.
    assert "double_claim_other_generation" in S.features(last)


def test_cooperative_rebalance_runs_rounds_until_nothing_is_withheld():
    coop = BASE.replace(protocol="cooperative")
    by_step = run_scenario_by_step(deal_cooperatively, Scenario(coop, (Join(member("c3", ["t0"])), Leave("c0"))))
    assert [len(r) for r in by_step] == [1, 2, 2]
    first, second = by_step[1]
    assert count_of(first[1].get("c3")) == 0  # withheld: other members still claim them
    assert count_of(second[1].get("c3")) == 1  # round 2 hands them out
    assert second[0].member("c3").generation == first[0].member("c0").generation + 1
    flat = run_scenario(deal_cooperatively, Scenario(coop, (Join(member("c3", ["t0"])), Leave("c0"))))
    assert len(flat) == 5


def test_add_partitions_grows_racks_and_lag_and_creates_topics():
    doc = problem_to_json(BASE)
    doc["partition_racks"] = {"t0": [["r0"], ["r1"], ["r2"], ["r0", "r1"]]}
    doc["lag"] = {"auto_offset_reset": "earliest", "offsets": {
        "t0": {"begin": [0] * 4, "end": [5] * 4, "committed": [1, None, 2, 3]},
        "t1": {"begin": [0, 0], "end": [1, 1]}}}
    sc = scenario_from_json({"format": 1, "kind": "scenario", "initial": doc,
                             "steps": [{"add_partitions": {"topic": "t0", "count": 6}},
                                       {"add_partitions": {"topic": "new", "count": 2}}]})
    rounds = run_scenario(deal, sc)
    grown = rounds[1][0]
    assert [sorted(r) for r in grown.partition_racks["t0"]] == [["r0"], ["r1"], ["r2"], ["r0", "r1"], ["r0"], ["r1"]]
    assert grown.lag.offsets["t0"].end.tolist() == [5, 5, 5, 5, 0, 0]
    assert grown.lag.offsets["t0"].committed.tolist() == [1, -1, 2, 3, -1, -1]
    created = rounds[2][0]
    assert created.topics["new"] == 2 and created.lag.offsets["new"].begin.tolist() == [0, 0]
    assert problem_to_json(created)["lag"]["offsets"]["new"]["committed"] == [None, None]


EXAMPLE = {
    "format": 1, "kind": "scenario",
    "initial": {"topics": {"t0": 3, "t1": 2}, "members": [
        {"id": "c0", "subscription": ["t0", "t1"]}, {"id": "c1", "subscription": ["t0"]}]},
    "steps": [{"join": {"id": "c2", "subscription": ["t1"]}}, {"leave": "c1"},
              {"subscribe": {"member": "c0", "topics": ["t0"]}}, {"add_partitions": {"topic": "t0", "count": 5}},
              {"delete_topic": "t1"}, {"rejoin_stale": {"member": "c1", "rounds_back": 4}}],
}


def test_json_roundtrip_save_and_load(tmp_path):
    sc = scenario_from_json(EXAMPLE)
    assert [type(s).__name__ for s in sc.steps] == [
        "Join", "Leave", "Subscribe", "AddPartitions", "DeleteTopic", "RejoinStale"]
    doc = scenario_to_json(sc)
    assert doc["steps"] == EXAMPLE["steps"]
    assert scenario_to_json(scenario_from_json(json.loads(json.dumps(doc)))) == doc
    path = save_scenario(sc, tmp_path / "s.json", note="example")
    assert scenario_to_json(load_scenario(path)) == doc
    assert len(run_scenario(deal, load_scenario(path))) == 7


def with_steps(*steps):
    return dict(EXAMPLE, steps=list(steps))


@pytest.mark.parametrize("doc, path", [
    (with_steps({"bogus": 1}), "steps[0].bogus"),
    (with_steps({"leave": "c1", "join": {}}), "steps[0]"),
    (with_steps({"leave": "c1"}, {"leave": "c1"}), "steps[1].leave"),
    (with_steps({"leave": 3}), "steps[0].leave"),
    (with_steps({"join": {"id": "c0", "subscription": []}}), "steps[0].join.id"),
    (with_steps({"join": {"id": "c9", "subscription": "t0"}}), "steps[0].join.subscription"),
    (with_steps({"subscribe": {"member": "c0", "topics": "t0"}}), "steps[0].subscribe.topics"),
    (with_steps({"subscribe": {"member": "zz", "topics": []}}), "steps[0].subscribe.member"),
    (with_steps({"add_partitions": {"topic": "t0", "count": 1}}), "steps[0].add_partitions.count"),
    (with_steps({"add_partitions": {"topic": "t0"}}), "steps[0].add_partitions.count"),
    (with_steps({"delete_topic": "zz"}), "steps[0].delete_topic"),
    (with_steps({"rejoin_stale": {"member": "c0", "rounds_back": 2}}), "steps[0].rejoin_stale.rounds_back"),
    (with_steps({"leave": "c1"}, {"rejoin_stale": {"member": "c7", "rounds_back": 1}}), "steps[1].rejoin_stale.member"),
    (dict(EXAMPLE, initial={"topics": {"t0": -1}, "members": []}), "initial.topics.t0"),
    (dict(EXAMPLE, initial={"format": 1, "kind": "streams", "subtopologies": {}, "clients": []}), "initial.kind"),
    (dict(EXAMPLE, kind="consumer"), "kind"),
    (dict(EXAMPLE, format=2), "format"),
    (dict(EXAMPLE, steps={}), "steps"),
    (dict(EXAMPLE, extra=1), "extra"),
])
def test_bad_documents_name_the_field(doc, path):
    with pytest.raises(FormatError) as e:
        scenario_from_json(doc)
    assert e.value.path == path


def test_load_names_the_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(with_steps({"leave": "nobody"})))
    with pytest.raises(InputError, match="bad.json: steps\\[0\\].leave"):
        load_scenario(bad)
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(FormatError, match="not valid JSON"):
        load_scenario(tmp_path / "broken.json")


def test_run_scenario_rejects_a_step_that_does_not_fit():
    with pytest.raises(InputError) as e:
        run_scenario(deal, Scenario(BASE, (Leave("c1"), Subscribe("c1", frozenset()))))
    assert e.value.path == "steps[1].subscribe.member"


@settings(max_examples=40, database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(S.scenarios(max_steps=3))
def test_generated_scenarios_run_one_round_per_step_when_eager(sc):
    eager = Scenario(sc.initial.replace(protocol="eager"), sc.steps)
    rounds = run_scenario(deal, eager)
    assert len(rounds) == 1 + len(sc.steps)
    for step, (_, out), (after, _) in zip(sc.steps, rounds, rounds[1:]):
        for m in after.members:
            if m.member_id in out.by_member and not isinstance(step, RejoinStale):
                assert sorted(iter_pairs(m.owned)) == sorted(out.pairs(m.member_id))
    coop = Scenario(sc.initial.replace(protocol="cooperative"), sc.steps)
    assert len(run_scenario(deal_cooperatively, coop)) >= 1 + len(sc.steps)


def test_join_member_keeps_its_claims():
    joiner = Member("c9", frozenset({"t0"}), partitions_of({"t0": [0]}), 7)
    rounds = run_scenario(deal, Scenario(BASE, (Join(joiner),)))
    assert rounds[1][0].member("c9") == joiner
