"""Seeded problem shapes for the sticky, lag and Streams benchmarks (no hypothesis: plain numpy RNG)."""

from __future__ import annotations

import numpy as np

from assigncheck.spec.model import Assignment, Client, LagInfo, Member, Problem, StreamsProblem, TopicOffsets
from assigncheck.spec.rounds import next_round


def random_subscriptions(members: int, topics: int, partitions: int, max_topics: int, seed: int) -> Problem:
    """`members` consumers, `partitions` spread evenly over `topics`; each consumer 1..max_topics topics."""
    rng = np.random.default_rng(seed)
    names = [f"topic-{i:03d}" for i in range(topics)]
    sizes = {n: partitions // topics + (1 if i < partitions % topics else 0) for i, n in enumerate(names)}
    group = []
    for k in range(members):
        chosen = rng.choice(topics, size=int(rng.integers(1, max_topics + 1)), replace=False)
        group.append(Member(f"consumer-{k:05d}", frozenset(names[i] for i in chosen)))
    return Problem(sizes, tuple(group))


def churn(problem: Problem, assignment: Assignment, resubscribe: float, leave: float, seed: int,
          max_topics: int, join: float = 0.0) -> Problem:
    """The next rebalance: owned := `assignment` (generation + 1), then a fraction of members picks new
    topics, another fraction leaves and `join` x members new ones join (each with a random member's topics)."""
    rng = np.random.default_rng(seed)
    after = next_round(problem, assignment)
    names = sorted(problem.topics)
    n = len(after.members)
    picks = rng.permutation(n)
    resub = set(picks[: int(n * resubscribe)].tolist())
    gone = set(picks[int(n * resubscribe): int(n * resubscribe) + int(n * leave)].tolist())
    members = []
    for i, m in enumerate(after.members):
        if i in gone:
            continue
        if i in resub:
            chosen = rng.choice(len(names), size=int(rng.integers(1, max_topics + 1)), replace=False)
            m = Member(m.member_id, frozenset(names[j] for j in chosen), m.owned, m.generation)
        members.append(m)
    for k in range(int(n * join)):
        members.append(Member(f"joiner-{k:05d}", after.members[int(rng.integers(n))].subscription))
    return after.replace(members=tuple(members))


def forcing_general(members: int = 2100, partitions: int = 2100) -> Problem:
    """KIP-615's 2100 x 2100 shape, made unequal: one consumer also subscribes to a 1-partition topic."""
    group = [Member(f"consumer-{k:05d}", frozenset({"big"} | ({"single"} if k == 0 else set())))
             for k in range(members)]
    return Problem({"big": partitions, "single": 1}, tuple(group))


def with_lag(problem: Problem, seed: int, auto_offset_reset: str = "earliest") -> Problem:
    """Random offsets: end in [0, 1e6), begin below it, a commit (or none, 10%) in between."""
    rng = np.random.default_rng(seed)
    offsets = {}
    for topic, n in sorted(problem.topics.items()):
        end = rng.integers(0, 1_000_000, size=n)
        begin = (end * rng.random(n) * 0.2).astype(np.int64)
        committed = begin + ((end - begin) * rng.random(n)).astype(np.int64)
        committed[rng.random(n) < 0.1] = -1
        offsets[topic] = TopicOffsets(begin, end, committed)
    return problem.replace(lag=LagInfo(offsets, auto_offset_reset))


def streams_problem(clients: int, subtopologies: int, tasks: int, seed: int, previous: bool) -> StreamsProblem:
    """`tasks` over `subtopologies`; capacities 1..4; with `previous`, 90% of tasks had an active owner
    (random client) and some clients a few standbys."""
    rng = np.random.default_rng(seed)
    names = [f"st-{i:03d}" for i in range(subtopologies)]
    sizes = {n: tasks // subtopologies + (1 if i < tasks % subtopologies else 0) for i, n in enumerate(names)}
    active: list[dict[str, list[int]]] = [{} for _ in range(clients)]
    standby: list[dict[str, list[int]]] = [{} for _ in range(clients)]
    if previous:
        for name, n in sizes.items():
            for t in range(n):
                if rng.random() < 0.9:
                    active[int(rng.integers(clients))].setdefault(name, []).append(t)
                if rng.random() < 0.3:
                    standby[int(rng.integers(clients))].setdefault(name, []).append(t)
    group = tuple(Client(f"client-{k:04d}", int(rng.integers(1, 5)), active[k], standby[k]) for k in range(clients))
    return StreamsProblem(sizes, group)
