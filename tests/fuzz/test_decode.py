"""fuzz/decode.py: every byte string is a well-formed problem, the shapes the spec allows are reachable,
and problems encode back to bytes (the seed corpus)."""

from __future__ import annotations

import random

import numpy as np

from assigncheck.formats.documents import load_problem, problem_from_json, problem_to_json
from assigncheck.fuzz import runner
from assigncheck.fuzz.decode import (
    UNKNOWN_TOPIC,
    decode_problem,
    decode_scenario,
    decode_streams,
    encode_problem,
    encode_streams,
    scenario_bit,
)
from assigncheck.generate.scenario import (
    AddPartitions,
    DeleteTopic,
    Join,
    Leave,
    RejoinStale,
    Subscribe,
    validate_scenario,
)
from assigncheck.spec.model import Member, Problem, StreamsProblem

VECTORS = runner.VECTORS


def _inputs(n: int, seed: int = 11, longest: int = 80) -> list[bytes]:
    rng = random.Random(seed)
    return [bytes(rng.randrange(256) for _ in range(rng.randrange(longest))) for _ in range(n)]


def test_empty_input_is_the_empty_problem():
    p = decode_problem(b"")
    assert dict(p.topics) == {} and p.members == () and p.protocol == "eager"


def test_every_input_decodes_to_a_well_formed_problem():
    for data in _inputs(700):
        p = decode_problem(data)
        doc = problem_to_json(p)
        assert problem_to_json(problem_from_json(doc)) == doc  # the JSON loader accepts it: well-formed
        assert len(set(p.member_ids)) == len(p.members)
        statics = [m.instance_id for m in p.members if m.instance_id is not None]
        assert len(set(statics)) == len(statics)


def _shapes(p: Problem) -> set[str]:
    out = {p.protocol}
    gens = {m.generation for m in p.members}
    if len(gens) > 1:
        out.add("mixed generations")
    if p.partition_racks is not None:
        out.add("partition racks")
    if p.lag is not None:
        out.add("lag")
    if len(p.members) > 20 or p.partition_count > 100:
        out.add("large")
    claimed: dict[tuple[str, int], int] = {}
    for m in p.members:
        out |= {"static"} if m.instance_id else set()
        out |= {"rack"} if m.rack else set()
        out |= {"unequal subscriptions"} if not p.subscriptions_equal() else set()
        for t, arr in m.owned.items():
            if t not in p.topics:
                out.add("claim of unknown topic")
            elif t not in m.subscription:
                out.add("claim of unsubscribed topic")
            if (arr < 0).any():
                out.add("negative claim")
            if t in p.topics and (arr >= p.topics[t]).any():
                out.add("claim out of range")
            if len(np.unique(arr)) < len(arr):
                out.add("repeated claim")
            for i in set(arr.tolist()):
                claimed[(t, i)] = claimed.get((t, i), 0) + 1
        if UNKNOWN_TOPIC in m.subscription:
            out.add("subscription to unknown topic")
    if any(c > 1 for c in claimed.values()):
        out.add("partition claimed twice")
    return out


def test_every_shape_the_spec_allows_is_reached():
    reached: set[str] = set()
    for data in _inputs(4000, seed=2):
        reached |= _shapes(decode_problem(data))
    expected = {
        "eager", "cooperative", "mixed generations", "partition racks", "lag", "static", "rack",
        "unequal subscriptions", "claim of unknown topic", "claim of unsubscribed topic", "negative claim",
        "claim out of range", "repeated claim", "partition claimed twice", "subscription to unknown topic", "large",
    }
    assert expected <= reached, expected - reached


def test_scenarios_reach_every_step_kind_and_always_fit_the_group():
    kinds = set()
    for data in _inputs(800, seed=3):
        data = bytes([data[0] | 16]) + data[1:] if data else b"\x10"
        assert scenario_bit(data)
        scenario = decode_scenario(data)
        validate_scenario(scenario)  # raises InputError if a step did not fit
        kinds |= {type(s) for s in scenario.steps}
    assert kinds == {Join, Leave, Subscribe, AddPartitions, DeleteTopic, RejoinStale}


def _tricky_problem() -> Problem:
    members = (
        Member("zeta", frozenset({"orders", "ghost"}), {"orders": [3, 4, 5, 9, -1], "ghost": [0]}, 12, "s-b", "east"),
        Member("alpha", frozenset({"orders", "pay"}), {"orders": [3], "pay": [1, 1]}, 12, None, None),
        Member("mid", frozenset({"pay"}), {}, -1, "s-a", "west"),
    )
    racks = {"orders": [["east"], ["west"], ["east", "west"], [], ["east"], ["west"]], "pay": [["west"], ["east"]]}
    return problem_from_json({"format": 1, "protocol": "cooperative", "topics": {"pay": 2, "orders": 6},
                              "members": [_member_doc(m) for m in members], "partition_racks": racks})


def _member_doc(m: Member) -> dict:
    doc = {"id": m.member_id, "subscription": sorted(m.subscription), "generation": m.generation,
           "owned": {t: a.tolist() for t, a in m.owned.items()}}
    if m.instance_id:
        doc["instance_id"] = m.instance_id
    if m.rack:
        doc["rack"] = m.rack
    return doc


def test_encoding_keeps_the_structure_and_renames_in_order():
    p = _tricky_problem()
    q = decode_problem(encode_problem(p))
    assert dict(q.topics) == {"t00": 6, "t01": 2}  # orders < pay
    zeta, alpha, mid = q.members
    assert [m.member_id for m in q.members] == ["c002", "c000", "c001"]  # same order as zeta > mid > alpha
    assert zeta.subscription == {"t00", UNKNOWN_TOPIC} and zeta.owned["t00"].tolist() == [3, 4, 5, 7, -1]
    assert zeta.owned[UNKNOWN_TOPIC].tolist() == [0]  # 9 was out of range: it stays out of range (n + 1)
    assert alpha.owned["t01"].tolist() == [1, 1] and alpha.generation == zeta.generation > mid.generation == -1
    assert (zeta.instance_id, mid.instance_id) == ("i001", "i000") and (zeta.rack, mid.rack) == ("r0", "r1")
    assert q.protocol == "cooperative"
    assert q.partition_racks["t00"][2] == {"r0", "r1"} and q.partition_racks["t01"][0] == {"r1"}
    assert problem_to_json(decode_problem(encode_problem(q))) == problem_to_json(q)  # canonical: a fixpoint


def test_large_problems_encode_in_the_wide_layout():
    members = tuple(Member(f"m{i:03d}", frozenset({"big"}), {"big": list(range(i * 5, i * 5 + 5))}) for i in range(40))
    p = Problem({"big": 900}, members)
    q = decode_problem(encode_problem(p))
    assert q.topics["t00"] == 900 and len(q.members) == 40
    assert q.members[7].owned["t00"].tolist() == [35, 36, 37, 38, 39]


def test_random_problems_survive_an_encode_decode_cycle():
    for data in _inputs(400, seed=4):
        p = decode_problem(data)
        q = decode_problem(encode_problem(p))
        assert dict(q.topics) == dict(p.topics) and len(q.members) == len(p.members)
        assert [sorted(m.owned) for m in q.members] == [sorted(m.owned) for m in p.members]
        assert problem_to_json(decode_problem(encode_problem(q))) == problem_to_json(q)


def test_streams_problems_decode_and_encode():
    for data in _inputs(500, seed=5):
        s = decode_streams(data)
        assert s.subtopologies and s.clients and all(c.capacity >= 1 for c in s.clients)
        again = decode_streams(encode_streams(s))
        assert dict(again.subtopologies) == dict(s.subtopologies) and len(again.clients) == len(s.clients)
        assert (again.num_standby_replicas, again.stateless) == (s.num_standby_replicas, s.stateless)
    decoded = [decode_streams(data) for data in _inputs(200, seed=6)]
    assert {s.num_standby_replicas for s in decoded} == {0, 1, 2} and any(s.stateless for s in decoded)


def test_regression_vectors_become_seeds():
    encoded = 0
    for path in sorted(VECTORS.glob("*.json")):
        try:
            problem = load_problem(path)
        except Exception:  # noqa: BLE001 - scenario documents are not seeds
            continue
        if isinstance(problem, StreamsProblem):
            assert len(decode_streams(encode_streams(problem)).clients) == len(problem.clients)
        else:
            assert len(decode_problem(encode_problem(problem)).members) == len(problem.members), path
        encoded += 1
    assert encoded >= 1
