"""Seeded plain-random problems for campaigns and the gate (no hypothesis: fast, and replayable from
three integers).

`generate(profile, seed, shard, k)` is a function of its arguments alone: the random stream is
`numpy.random.SeedSequence([seed, shard, k])`, feeding a `random.Random` (cheap scalar draws) and, for
`large`, a numpy `Generator(PCG64)` (arrays). The stream also depends on the Python and numpy
versions, so campaigns keep the JSON of every problem they report.

Profiles:
- `small`: <= 8 members, <= 4 topics of <= 8 partitions (<= 32), every junk claim kind, mixed
  generations, racks, static members, lag and the cooperative protocol sometimes.
- `kafka-like`: the shapes of Kafka's randomized tests (docs/SPEC.md §12): 40 topics x U[1,10]
  partitions and 200 members with up to 19 random topics, fresh or after 50 random members left; or
  10..19 topics (topic i has i+1 partitions), 20..39 members on random sublists, fresh or with fresh
  sublists plus the previous round's ownership.
- `large`: 1000..4000 members, 1..50 topics, 1..10 partitions per member, equal or block-wise unequal
  subscriptions, a balanced previous assignment with a few leaves, joins, stale members and junk claims.
- `churn`: a `Scenario` of a small problem and 2..5 membership or metadata changes.
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np

from assigncheck.generate import build
from assigncheck.generate.build import SeededChooser, add_junk_claim, previous_claims, random_step
from assigncheck.generate.scenario import Scenario, Step, apply_step
from assigncheck.spec.errors import InputError
from assigncheck.spec.features import JUNK_KINDS
from assigncheck.spec.model import Assignment, Member, Problem, Protocol, StreamsProblem, partitions_of
from assigncheck.spec.rounds import next_round

PROFILES = ("small", "kafka-like", "large", "churn", "streams")  # `streams`: Streams task problems
# The `small` profile: the spec's whole problem space at small sizes, every choice left to the seed.
SMALL = build.Space(max_members=8, min_partitions=0, equal_subscriptions=None, claims="any", racks=None, lag=None,
                    absent_topics=None)


def _seed_sequence(seed: int, shard: int, k: int) -> np.random.SeedSequence:
    for name, value in (("--seed", seed), ("--shard", shard), ("k", k)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
            raise InputError(name, f"must be a non-negative integer, got {value!r}")
    return np.random.SeedSequence([int(seed), int(shard), int(k)])


def _rng(ss: np.random.SeedSequence) -> SeededChooser:
    hi, lo = ss.generate_state(2, np.uint64)
    return SeededChooser(random.Random((int(hi) << 64) | int(lo)))


# ---- profiles -------------------------------------------------------------------------------------------


def _kafka_like(r: SeededChooser) -> Problem:
    if r.coin(0.5):  # testLargeAssignmentWithMultipleConsumersLeavingAndRandomSubscription
        topic_counts = {f"t{i}": r.integer(1, 10) for i in range(40)}
        n, leaving = 200, 50
        subs = [frozenset(r.rng.sample(sorted(topic_counts), r.integer(1, 19))) for _ in range(n)]
    else:  # testReassignmentWithRandomSubscriptionsAndChanges
        topic_counts = {f"t{i}": i + 1 for i in range(r.integer(10, 19))}
        n, leaving = r.integer(20, 39), 0
        subs = [r.subset(sorted(topic_counts), 1) for _ in range(n)]
    ids = [f"c{j}" for j in range(n)]
    protocol: Protocol = r.pick(("eager", "cooperative"))
    if r.coin(0.5):  # the fresh first round
        return Problem(topic_counts, tuple(Member(m, s) for m, s in zip(ids, subs)), protocol)
    owned = previous_claims(r, topic_counts, ids, subs, balanced=True)
    generation = r.integer(1, 100)
    if leaving:  # 50 random members leave; the rest claim what they had
        stay = sorted(r.rng.sample(range(n), n - leaving))
        members = [Member(ids[j], subs[j], partitions_of(owned[j]), generation) for j in stay]
    else:  # every member re-subscribes to a fresh random sublist and claims what it had
        members = [Member(ids[j], r.subset(sorted(topic_counts), 1), partitions_of(owned[j]), generation)
                   for j in range(n)]
    return Problem(topic_counts, tuple(members), protocol)


def _blocks(g: np.random.Generator, size: int, parts: int) -> list[tuple[int, int]]:
    """`parts` non-empty contiguous ranges covering range(size), with random cut points."""
    cuts = np.sort(g.choice(np.arange(1, size), parts - 1, replace=False)) if parts > 1 else np.zeros(0, int)
    bounds = [0, *cuts.tolist(), size]
    return list(zip(bounds[:-1], bounds[1:]))


def _large(r: SeededChooser, g: np.random.Generator) -> Problem:
    n = int(g.integers(1000, 4001))
    n_topics = int(g.choice([1, 10, 50]))
    per_member = int(g.choice([1, 3, 10]))
    base = -(-n * per_member // n_topics)
    counts = g.integers(max(1, base // 2), base + base // 2 + 1, size=n_topics)
    names = [f"t{i}" for i in range(n_topics)]
    topic_counts = dict(zip(names, counts.tolist()))
    # Buckets of members on blocks of topics (Kafka's JMH HETEROGENEOUS shape); each bucket also
    # subscribes to the next block's first topic, so subscriptions overlap.
    n_buckets = 1 if n_topics == 1 or r.coin(0.5) else int(g.integers(2, min(5, n_topics) + 1))
    member_blocks, topic_blocks = _blocks(g, n, n_buckets), _blocks(g, n_topics, n_buckets)
    generation = int(g.integers(1, 1000))
    claims = r.coin(0.8)
    members: list[Member] = []
    for b, ((m_lo, m_hi), (t_lo, t_hi)) in enumerate(zip(member_blocks, topic_blocks)):
        own = names[t_lo:t_hi]
        extra = [names[topic_blocks[(b + 1) % n_buckets][0]]] if n_buckets > 1 else []
        sub = frozenset(own + extra)
        ids = [f"c{j}" for j in range(m_lo, m_hi)]
        if not claims:
            members.extend(Member(m, sub) for m in ids)
            continue
        # A balanced previous assignment: the block's partitions, in (topic, index) order, cut into
        # near-equal contiguous runs for the bucket's members in a random order.
        sizes = np.array([topic_counts[t] for t in own])
        starts = np.concatenate([[0], np.cumsum(sizes)])
        bounds = (np.arange(len(ids) + 1) * int(starts[-1])) // len(ids)
        for pos, j in enumerate(g.permutation(len(ids)).tolist()):
            lo, hi = int(bounds[pos]), int(bounds[pos + 1])
            first, last = int(np.searchsorted(starts, lo, "right")) - 1, int(np.searchsorted(starts, hi, "left"))
            owned = {}
            for ti in range(first, min(last, len(own))):
                a, z = max(lo, starts[ti]), min(hi, starts[ti + 1])
                if z > a:
                    owned[own[ti]] = np.arange(a - starts[ti], z - starts[ti], dtype=np.int32)
            members.append(Member(ids[j], sub, partitions_of(owned), generation))
    if claims:
        members = _churn_large(r, g, members, topic_counts, generation)
    return Problem(topic_counts, tuple(members), r.pick(("eager", "cooperative")))


def _churn_large(
    r: SeededChooser, g: np.random.Generator, members: list[Member], topic_counts: dict[str, int], generation: int
) -> list[Member]:
    """Up to 5% leave, up to 5% join (no claims), up to 1% are stale, and a few carry junk claims."""
    n = len(members)
    stay = np.sort(g.permutation(n)[: n - int(g.integers(0, n // 20 + 1))])
    members = [members[j] for j in stay.tolist()]
    for j in range(int(g.integers(0, n // 20 + 1))):
        members.append(Member(f"c{n + j}", members[int(g.integers(0, len(members)))].subscription))
    for j in g.choice(len(members), int(g.integers(0, n // 100 + 1)), replace=False).tolist():
        m = members[j]
        members[j] = Member(m.member_id, m.subscription, m.owned, r.pick((-1, generation - 1)))
    # Junk on a few members only: their claims become small Python lists, nobody else's do.
    chosen = sorted(g.choice(len(members), min(4, len(members)), replace=False).tolist())
    owned = [{t: arr.tolist() for t, arr in members[j].owned.items()} for j in chosen]
    gens = [members[j].generation for j in chosen]
    subs = [members[j].subscription for j in chosen]
    for _ in range(r.integer(0, 4)):
        add_junk_claim(r, r.pick(JUNK_KINDS), owned, gens, subs, topic_counts)
    for j, mine, gen in zip(chosen, owned, gens):
        m = members[j]
        members[j] = Member(m.member_id, m.subscription, partitions_of(mine), gen)
    return members


def _churn(r: SeededChooser) -> Scenario:
    first = build.problem(r, replace(SMALL, max_members=6))
    history = [first, next_round(first, Assignment({}))]
    chosen: list[Step] = []
    for _ in range(r.integer(2, 5)):
        step = random_step(r, history[-1], history)
        chosen.append(step)
        history.append(next_round(apply_step(history[-1], step, history), Assignment({})))
    return Scenario(first, tuple(chosen))


def generate(profile: str, seed: int, shard: int, k: int) -> Problem | Scenario | StreamsProblem:
    """Problem number `k` of shard `shard` of campaign seed `seed` for `profile` (a `Scenario` for
    `churn`, a `StreamsProblem` for `streams`). Raises `InputError` naming `--profile` for an unknown profile."""
    if profile not in PROFILES:
        raise InputError("--profile", f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
    ss = _seed_sequence(seed, shard, k)
    if profile == "large":
        a, b = ss.spawn(2)
        return _large(_rng(a), np.random.Generator(np.random.PCG64(b)))
    r = _rng(ss)
    if profile == "small":
        return build.problem(r, SMALL)
    if profile == "kafka-like":
        return _kafka_like(r)
    if profile == "streams":
        return generate_streams(seed, shard, k)
    return _churn(r)


def generate_streams(seed: int, shard: int, k: int) -> StreamsProblem:
    """A Streams task problem: 1..10 clients of capacity 1..4, 1..5 sub-topologies of 1..12 tasks,
    previous actives and 0..2 standbys per task, and junk task claims sometimes."""
    return build.streams_problem(_rng(_seed_sequence(seed, shard, k)), max_clients=10, max_subtopologies=5,
                                 max_tasks=12, claims="any", max_standbys=2)

__all__ = ["PROFILES", "generate", "generate_streams"]
