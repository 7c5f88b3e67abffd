"""generate.seeded: deterministic from (seed, shard, k), within each profile's bounds, every shape reached."""

import hashlib
import os
import subprocess
import sys
from collections import Counter

import pytest

from assigncheck.formats.documents import dumps, problem_from_json, problem_to_json
from assigncheck.generate.scenario import Scenario, scenario_from_json, scenario_to_json, validate_scenario
from assigncheck.generate.seeded import PROFILES, generate, generate_streams
from assigncheck.spec.errors import InputError
from assigncheck.spec.features import JUNK_KINDS, STREAMS_JUNK_KINDS, features, streams_features
from assigncheck.spec.model import Problem, count_of, iter_pairs


def text(x):
    return dumps(scenario_to_json(x) if isinstance(x, Scenario) else problem_to_json(x))


@pytest.mark.parametrize("profile", PROFILES)
def test_same_arguments_same_problem_and_k_matters(profile):
    ks = range(2) if profile == "large" else range(5)
    first = [text(generate(profile, 7, 3, k)) for k in ks]
    assert first == [text(generate(profile, 7, 3, k)) for k in ks]
    assert len(set(first)) == len(first)
    assert text(generate(profile, 7, 4, 0)) != first[0] and text(generate(profile, 8, 3, 0)) != first[0]


def test_generation_ignores_the_hash_seed():
    code = ("from assigncheck.generate.seeded import generate; from assigncheck.formats.documents import dumps, "
            "problem_to_json; import hashlib; print(hashlib.sha256(''.join(dumps(problem_to_json("
            "generate('small', 1, 2, k))) for k in range(50)).encode()).hexdigest())")
    digests = {
        subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": seed},
                       capture_output=True, text=True, check=True).stdout.strip()
        for seed in ("1", "2")
    }
    here = hashlib.sha256("".join(text(generate("small", 1, 2, k)) for k in range(50)).encode()).hexdigest()
    assert digests == {here}


def test_small_profile_bounds_and_shapes_over_ten_thousand_instances():
    seen = Counter()
    for k in range(10_000):
        p = generate("small", 11, 0, k)
        assert 1 <= len(p.members) <= 8 and len(p.topics) <= 4 and p.partition_count <= 32
        if k % 10 == 0:
            seen.update(features(p))
    expected = set(JUNK_KINDS) | {"mixed_generations", "unknown_generation", "racks", "member_racks", "static",
                                  "cooperative", "lag", "equal_subscriptions", "unequal_subscriptions",
                                  "absent_subscribed_topic"}
    assert expected <= set(seen), expected - set(seen)


def test_small_problems_roundtrip_through_json():
    for k in range(300):
        p = generate("small", 5, 1, k)
        doc = problem_to_json(p)
        assert problem_to_json(problem_from_json(doc)) == doc


def test_kafka_like_profile_has_kafkas_shapes():
    variants = Counter()
    for k in range(40):
        p = generate("kafka-like", 2, 0, k)
        claimed = any(count_of(m.owned) for m in p.members)
        if len(p.topics) == 40:
            assert all(1 <= n <= 10 for n in p.topics.values())
            assert len(p.members) == (150 if claimed else 200)
            assert all(1 <= len(m.subscription) <= 19 for m in p.members)
            variants["leaving", claimed] += 1
        else:
            assert 10 <= len(p.topics) <= 19 and all(p.topics[f"t{i}"] == i + 1 for i in range(len(p.topics)))
            assert 20 <= len(p.members) <= 39
            variants["sublists", claimed] += 1
        if claimed:  # a previous round's balanced output: one owner per partition
            pairs = [tp for m in p.members for tp in iter_pairs(m.owned)]
            assert len(pairs) == len(set(pairs))
            assert len({m.generation for m in p.members}) == 1
    assert set(variants) == {(v, c) for v in ("leaving", "sublists") for c in (False, True)}


def test_large_profile_is_large_and_mostly_balanced():
    seen = set()
    for k in range(8):
        p = generate("large", 4, 0, k)
        assert isinstance(p, Problem) and 950 <= len(p.members) <= 4200
        seen.add(p.subscriptions_equal())
        counts = sorted(count_of(m.owned) for m in p.members if m.generation > 0)
        if counts and p.subscriptions_equal():
            assert counts[-5] - counts[len(counts) // 10] <= 1  # balanced, but for a few junk claims
    assert seen == {True, False}


def test_churn_profile_is_a_valid_scenario_of_two_to_five_steps():
    protocols = set()
    for k in range(100):
        sc = generate("churn", 9, 0, k)
        assert isinstance(sc, Scenario) and 2 <= len(sc.steps) <= 5 and len(sc.initial.members) <= 6
        validate_scenario(sc)
        protocols.add(sc.initial.protocol)
        doc = scenario_to_json(sc)
        assert scenario_to_json(scenario_from_json(doc)) == doc
    assert protocols == {"eager", "cooperative"}


def test_streams_generator():
    seen = set()
    for k in range(400):
        p = generate_streams(1, 0, k)
        assert text(p) == text(generate_streams(1, 0, k))
        assert 1 <= len(p.clients) <= 10 and all(1 <= c.capacity <= 4 for c in p.clients)
        assert all(1 <= n <= 12 for n in p.subtopologies.values())
        seen |= streams_features(p)
    assert set(STREAMS_JUNK_KINDS) | {"standby", "capacity_over_1", "standby_replicas", "stateless"} <= seen


@pytest.mark.parametrize("args, path", [
    (("medium", 1, 0, 0), "--profile"),
    (("small", -1, 0, 0), "--seed"),
    (("small", 1, -2, 0), "--shard"),
    (("small", 1, 0, True), "k"),
])
def test_bad_arguments_name_the_flag(args, path):
    with pytest.raises(InputError) as e:
        generate(*args)
    assert e.value.path == path
