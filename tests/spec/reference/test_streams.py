"""The Streams reference (KAFKA-7203, docs/SPEC.md §7.4): the JIRA's give-up example, quotas, tie-breaks, properties."""

from fractions import Fraction

import pytest
from hypothesis import given, settings

from assigncheck.generate import strategies
from assigncheck.spec.errors import InputError
from assigncheck.spec.model import Client, StreamsProblem
from assigncheck.spec.reference import REFERENCES
from assigncheck.spec.reference.streams import kept_mix, quotas, valid_previous_actives
from assigncheck.spec.streams_checks import check_streams

STREAMS = REFERENCES["streams"]
MIX_1_1_2 = {"st0": 4, "st1": 4, "st2": 8}


def test_kafka_7203_give_up_follows_the_global_mix():
    # previously st0:4, st1:0, st2:2; it must give up 3 under the global mix 1:1:2
    assert kept_mix({"st0": 4, "st2": 2}, 3, MIX_1_1_2) == {"st0": 1, "st2": 2}
    # as a whole problem: capacity 3 of 16 gives the client a quota of exactly 3
    problem = StreamsProblem(
        MIX_1_1_2,
        (Client("a", 3, {"st0": [0, 1, 2, 3], "st2": [0, 1]}), Client("b", 13)),
    )
    assert quotas(problem) == {"a": 3, "b": 13}
    out = STREAMS.assign(problem)
    assert out.as_lists()["a"] == {"st0": [0], "st2": [0, 1]}
    assert check_streams(problem, out).violations == ()


def test_quota_extras_go_to_the_lowest_resulting_load():
    # 4 tasks over capacities 1 and 2: floors 1 and 2; the extra goes to b (3/2 < 2/1)
    problem = StreamsProblem({"s": 4}, (Client("a", 1), Client("b", 2)))
    assert quotas(problem) == {"a": 1, "b": 3}
    # equal resulting loads: client id decides
    problem = StreamsProblem({"s": 5}, (Client("b", 1), Client("a", 1)))
    assert quotas(problem) == {"a": 3, "b": 2}


def test_disputed_and_unknown_actives_are_nobodys():
    problem = StreamsProblem(
        {"s": 3},
        (Client("a", 1, {"s": [0, 0, 1, 7], "gone": [0]}), Client("b", 1, {"s": [1, 2]})),
    )
    assert valid_previous_actives(problem) == {"a": {("s", 0)}, "b": {("s", 2)}}


def test_hand_out_prefers_deficit_then_standby():
    # fresh start; client a has a standby of s1 task 2: it gets s1:2 when s0 and s1 tie on deficit
    problem = StreamsProblem({"s0": 2, "s1": 2}, (Client("a", 1, standby={"s1": [1]}), Client("b", 1)))
    # lap 1: a: deficits tie (2*2 - 0 each), s1 holds its standby -> s1:1; b: tie, no standby -> s0:0
    # lap 2: a: s0 has the larger deficit -> s0:1; b: s1 -> s1:0
    assert STREAMS.assign(problem).as_lists() == {"a": {"s0": [1], "s1": [1]}, "b": {"s0": [0], "s1": [0]}}


def test_new_client_takes_over_given_up_tasks():
    # scenario c of the seed: a client joins; the others give up tasks and only the new one takes over
    old = StreamsProblem(MIX_1_1_2, (Client("a", 1), Client("b", 1)))
    first = STREAMS.assign(old)
    grown = StreamsProblem(
        MIX_1_1_2,
        (Client("a", 1, first.get("a")), Client("b", 1, first.get("b")), Client("c", 2)),
    )
    second = STREAMS.assign(grown)
    assert second.counts() == {"a": 4, "b": 4, "c": 8}
    for kept in ("a", "b"):
        assert set(second.pairs(kept)) <= set(first.pairs(kept))
    assert check_streams(grown, second).violations == ()


def test_capacity_below_one_is_an_input_error():
    problem = StreamsProblem({"s": 1}, (Client("a", 0),))
    with pytest.raises(InputError) as caught:
        STREAMS.assign(problem)
    assert caught.value.path == "clients[0].capacity"


def test_no_clients_and_no_tasks():
    assert STREAMS.assign(StreamsProblem({"s": 2}, ())).as_lists() == {}
    assert STREAMS.assign(StreamsProblem({"s": 0}, (Client("a", 2),))).as_lists() == {"a": {}}


@settings(max_examples=200, deadline=None)
@given(strategies.streams_problems())
def test_reference_meets_every_streams_check(problem):
    out = STREAMS.assign(problem)
    assert check_streams(problem, out).violations == ()
    loads = [Fraction(out.count(c.client_id), c.capacity) for c in problem.clients]
    assert max(loads) - min(loads) <= 1
    reordered = StreamsProblem(problem.subtopologies, tuple(reversed(problem.clients)))
    assert STREAMS.assign(reordered) == out


@settings(max_examples=200, deadline=None)
@given(strategies.streams_problems(claims="valid"))
def test_kept_mix_is_the_closest_to_the_global_mix(problem):
    # brute force over every kept vector for each client: the greedy reaches the least squared deviation
    total = problem.task_count
    valid = valid_previous_actives(problem)
    for c in problem.clients:
        previous = {}
        for s, _ in valid[c.client_id]:
            previous[s] = previous.get(s, 0) + 1
        keep = min(sum(previous.values()), quotas(problem)[c.client_id])
        chosen = kept_mix(previous, keep, dict(problem.subtopologies))

        best = min(_cost(v, keep, problem.subtopologies, total) for v in _vectors(previous, keep))
        assert sum(chosen.values()) == keep
        assert _cost(chosen, keep, problem.subtopologies, total) == best


def _cost(kept, keep, sizes, total):
    """Σ_s (kept_s - keep * n_s / T)²: the distance from the global mix at this size."""
    return sum((Fraction(kept.get(s, 0)) - Fraction(keep * n, total)) ** 2 for s, n in sizes.items())


def _vectors(previous, keep):
    names = sorted(previous)

    def go(i, left):
        if i == len(names):
            if left == 0:
                yield {}
            return
        for k in range(min(previous[names[i]], left) + 1):
            for rest in go(i + 1, left - k):
                yield {names[i]: k, **rest}

    return list(go(0, keep))
