"""The general sticky assignor (`impl/sticky.py`): every promise through the spec's checker, exact optima
against an exhaustive search and against the spec's oracle, determinism across processes, and the
regression vectors of Kafka's bugs (docs/SPEC.md §12)."""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assigncheck.formats.documents import assignment_to_json, load_problem
from assigncheck.fuzz import runner
from assigncheck.generate.strategies import problems, sticky_rounds
from assigncheck.impl.sticky import StickyAssignor
from assigncheck.run.assignor_check import check_assignor, shuffled_problem
from assigncheck.spec import balance, oracle, stickiness
from assigncheck.spec.errors import InputError
from assigncheck.spec.model import Member, Problem, StreamsProblem, partitions_of
from assigncheck.spec.ownership import valid_owned
from assigncheck.spec.rounds import next_round

STICKY = StickyAssignor()
VECTOR_DIR = runner.VECTORS
VECTORS = sorted(VECTOR_DIR.glob("sticky-general-*.json"))  # this file's; every eager vector is also checked


@st.composite
def unequal_problems(draw, max_topics: int = 4, max_partitions: int = 5, max_members: int = 5) -> Problem:
    """Small problems with unequal subscriptions, unknown topics and junk/conflicting claims, drawn
    independently of `generate.strategies` (claims are uniformly random, so conflicts are frequent)."""
    names = [f"t{i}" for i in range(draw(st.integers(1, max_topics)))]
    topics = {t: draw(st.integers(0, max_partitions)) for t in names}
    pool = names + ["ghost"]
    members = []
    for k in range(draw(st.integers(1, max_members))):
        sub = draw(st.frozensets(st.sampled_from(pool), max_size=len(pool)))
        owned = draw(st.lists(st.tuples(st.sampled_from(pool), st.integers(-1, max_partitions)), max_size=6))
        members.append(Member(f"m{k}", sub, partitions_of(owned), draw(st.integers(-1, 3))))
    return Problem(topics, tuple(members))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(problems(protocol="eager", max_members=7, max_partitions_per_topic=6),
                 sticky_rounds(protocol="eager", max_members=7, max_partitions_per_topic=6)))
def test_every_promise_holds_on_the_spec_strategies(problem):
    out, report = check_assignor(STICKY, problem, oracle=True, budget_s=None)
    assert out is not None
    assert report.ok, [v.message for v in report.violations]


def exhaustive_optimum(problem: Problem) -> tuple[int, int]:
    """(minimum Σcount², maximum retained among those) by trying every assignment."""
    vo = {m: {(t, i) for t, arr in p.items() for i in arr.tolist()} for m, p in valid_owned(problem).items()}
    parts = [(t, i) for t in problem.subscribed_topics() for i in range(problem.topics[t])]
    choices = [[m.member_id for m in problem.members if t in m.subscription] for t, _ in parts]
    best = None
    for combo in itertools.product(*choices):
        counts = dict.fromkeys(problem.member_ids, 0)
        kept = 0
        for tp, m in zip(parts, combo):
            counts[m] += 1
            kept += tp in vo[m]
        key = (sum(c * c for c in counts.values()), -kept)
        best = key if best is None or key < best else best
    if best is None:
        return sum(0 for _ in problem.members), 0
    return best[0], -best[1]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(unequal_problems())
def test_every_promise_holds(problem):
    out, report = check_assignor(STICKY, problem, oracle=True, budget_s=None)
    assert out is not None
    assert report.ok, [v.message for v in report.violations]
    assert report.quality["sum_squares"] == report.quality["optimal_sum_squares"]
    assert report.quality["retained"] == report.quality["max_retained"]


def test_matches_exhaustive_search():
    rng = random.Random(7)
    tried = 0
    while tried < 200:
        topics = {f"t{j}": rng.randint(0, 3) for j in range(rng.randint(1, 3))}
        members = []
        for k in range(rng.randint(1, 4)):
            sub = frozenset(t for t in topics if rng.random() < 0.6)
            owned = [(t, rng.randint(-1, 3)) for t in topics for _ in range(rng.randint(0, 2))]
            members.append(Member(f"m{k}", sub, partitions_of(owned), rng.randint(-1, 2)))
        problem = Problem(topics, tuple(members))
        if sum(problem.topics[t] for t in problem.subscribed_topics()) > 8:
            continue
        tried += 1
        out = STICKY.assign(problem)
        got = (balance.sum_squares(problem, out), stickiness.retained(problem, out))
        assert got == exhaustive_optimum(problem), problem


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(unequal_problems(max_topics=5, max_partitions=8, max_members=7))
def test_matches_the_spec_oracle(problem):
    out = STICKY.assign(problem)
    assert balance.sum_squares(problem, out) == oracle.optimal_sum_squares(problem)
    assert stickiness.retained(problem, out) == oracle.max_retained(problem, "optimal")


def _medium_problem(seed: int) -> Problem:
    rng = random.Random(seed)
    topics = {f"topic-{i}": rng.randint(1, 30) for i in range(12)}
    members = []
    for k in range(40):
        sub = frozenset(rng.sample(sorted(topics), rng.randint(1, 5)))
        owned = [(t, rng.randrange(topics[t])) for t in sorted(sub) for _ in range(rng.randint(0, 4))]
        members.append(Member(f"c{k:02d}", sub, partitions_of(owned), rng.randint(1, 3)))
    return Problem(topics, tuple(members))


def test_medium_problems_are_optimal_order_independent_and_a_fixpoint():
    for seed in range(5):
        problem = _medium_problem(seed)
        out = STICKY.assign(problem)
        assert balance.sum_squares(problem, out) == oracle.optimal_sum_squares(problem)
        assert stickiness.retained(problem, out) == oracle.max_retained(problem, "optimal")
        for shuffle_seed in range(3):
            assert STICKY.assign(shuffled_problem(problem, shuffle_seed)) == out
        assert STICKY.assign(next_round(problem, out)) == out


_CHILD = """
import json, sys
from assigncheck.targets.registry import get
from assigncheck.formats.documents import assignment_to_json, problem_from_json
problem = problem_from_json(json.loads(sys.stdin.read()))
print(json.dumps(assignment_to_json(get(sys.argv[1]).assign(problem)), sort_keys=True))
"""


def _cross_process_problems():
    from benchmarks.sticky_shapes import random_subscriptions, streams_problem, with_lag

    return [("sticky", _medium_problem(11)),
            ("lag", with_lag(random_subscriptions(60, 10, 400, 4, seed=1), seed=2)),
            ("streams-sticky", streams_problem(12, 4, 80, seed=3, previous=True))]


@pytest.mark.parametrize("name,problem", _cross_process_problems(), ids=lambda x: x if isinstance(x, str) else "")
def test_same_output_in_processes_with_different_hash_seeds(name, problem):
    from assigncheck.formats.documents import problem_to_json
    from assigncheck.targets.registry import get

    doc = json.dumps(problem_to_json(problem))
    outputs = []
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        done = subprocess.run([sys.executable, "-c", _CHILD, name], input=doc, capture_output=True, text=True,
                              env=env, check=True, timeout=120)
        outputs.append(done.stdout)
    here = json.dumps(assignment_to_json(get(name).assign(problem)), sort_keys=True) + "\n"
    assert outputs[0] == outputs[1] == here


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_regression_vectors(path):
    problem = load_problem(path)
    out, report = check_assignor(STICKY, problem, oracle=True, budget_s=30)
    assert out is not None and report.ok, [v.message for v in report.violations]
    assert report.quality["sum_squares"] == report.quality["optimal_sum_squares"]
    assert report.quality["retained"] == report.quality["max_retained"]


def test_regression_vectors_exist():
    assert len(VECTORS) >= 4
    for path in VECTORS:
        assert "sticky" in json.loads(path.read_text())["note"]


def test_every_eager_consumer_vector():
    """Any consumer problem is in general sticky's domain, so other assignors' vectors test it too."""
    checked = 0
    for path in sorted(VECTOR_DIR.glob("*.json")):
        problem = load_problem(path)
        if not isinstance(problem, Problem) or problem.protocol != "eager":
            continue
        out, report = check_assignor(STICKY, problem, oracle=True, budget_s=30)
        assert out is not None and report.ok, (path.name, [v.message for v in report.violations])
        checked += 1
    assert checked >= len(VECTORS)


def test_kafka_15106_three_generations_highest_wins():
    problem = load_problem(next(p for p in VECTORS if "15106" in p.name))
    out = STICKY.assign(problem)
    # t1-0 is claimed by c1 (gen 1), c2 (gen 2) and c3 (gen 3): only c3 owns it, and c3 keeps it.
    assert 0 in out.get("c3")["t1"].tolist()


def test_deleted_topic_and_member_without_subscriptions():
    deleted = STICKY.assign(load_problem(next(p for p in VECTORS if "7962" in p.name)))
    assert all("gone" not in parts for parts in deleted.by_member.values())
    idle = STICKY.assign(load_problem(next(p for p in VECTORS if "16930" in p.name)))
    assert idle.count("idle") == 0 and set(idle.by_member) == {"idle", "m1", "m2"}


def test_streams_problem_is_an_input_error():
    with pytest.raises(InputError):
        STICKY.assign(StreamsProblem({"st": 1}, ()))


def test_empty_group_and_topics_without_partitions():
    assert STICKY.assign(Problem({"t": 3}, ())).by_member == {}
    out = STICKY.assign(Problem({"t": 0}, (Member("a", frozenset({"t"})),)))
    assert out.count("a") == 0 and list(out.by_member) == ["a"]


def test_fresh_classes_of_identical_subscriptions_split_every_topic_evenly():
    """Per-topic spread (a), docs/ALGORITHMS.md: members share one of three subscriptions, so the flow's receivers
    are dealt again within each class; every topic splits at most 1 apart inside a class, balance stays optimal."""
    rng = random.Random(3)
    for _ in range(20):
        topics = {f"t{i}": rng.randint(1, 40) for i in range(6)}
        templates = [frozenset(rng.sample(sorted(topics), rng.randint(1, 4))) for _ in range(3)]
        members = tuple(Member(f"m{k:02d}", rng.choice(templates)) for k in range(rng.randint(2, 30)))
        problem = Problem(topics, members)
        out = STICKY.assign(problem)
        assert stickiness.per_topic_spread_violations(problem, out) == []
        assert balance.sum_squares(problem, out) == oracle.optimal_sum_squares(problem)
