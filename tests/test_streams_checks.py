"""check_streams: each planted fault is reported under its own invariant; a good output passes."""

from hypothesis import given, settings

from assigncheck.generate import strategies
from assigncheck.spec.check import check_assignment
from assigncheck.spec.model import Assignment, Client, StreamsProblem
from assigncheck.spec.reference import REFERENCES
from assigncheck.spec.streams_checks import check_streams

PROBLEM = StreamsProblem(
    {"s0": 2, "s1": 2},
    (Client("a", 1, {"s0": [0, 1]}), Client("b", 1, {"s1": [0]})),
)


def invariants(report):
    return sorted(v.invariant for v in report.violations)


def test_a_good_output_passes_with_quality_figures():
    out = Assignment.of({"a": {"s0": [0, 1]}, "b": {"s1": [0, 1]}})
    report = check_streams(PROBLEM, out)
    assert report.violations == ()
    assert report.quality["load_spread"] == 0.0
    assert report.quality["kept_actives"] == 3
    assert report.quality["valid_previous_actives"] == 3
    # each client holds one sub-topology where the mix says 1 of each: half of 2 tasks is off
    assert report.quality["mix_deviation_max"] == 1.0
    assert report.quality["mix_deviation_total"] == 2.0


def test_unknown_repeated_and_missing_tasks():
    out = Assignment.of({"a": {"s0": [0, 1, 9], "gone": [0]}, "b": {"s0": [1]}})
    report = check_streams(PROBLEM, out)
    messages = [v.message for v in report.violations if v.invariant == "streams.active_once"]
    assert len(messages) == 3
    assert any("unknown" in m and "gone" in m for m in messages)
    assert any("more than once" in m and "'s0', 1" in m for m in messages)
    assert any("no active client" in m and "'s1', 0" in m for m in messages)


def test_unknown_and_missing_clients():
    out = Assignment.of({"a": {"s0": [0, 1], "s1": [0, 1]}, "z": {}})
    report = check_streams(PROBLEM, out)
    clients = [v for v in report.violations if v.invariant == "streams.clients"]
    assert [v.members for v in clients] == [("z",), ("b",)]


def test_load_spread_above_one():
    problem = StreamsProblem({"s": 6}, (Client("a", 1), Client("b", 2)))
    assert invariants(check_streams(problem, Assignment.of({"a": {"s": [0, 1, 2]}, "b": {"s": [3, 4, 5]}}))) == [
        "streams.balance"  # 3/1 vs 3/2
    ]
    assert check_streams(problem, Assignment.of({"a": {"s": [0, 1]}, "b": {"s": [2, 3, 4, 5]}})).violations == ()
    # a fraction of a task more than 1 is still too much: 5/2 - 4/3 > 1
    uneven = StreamsProblem({"s": 9}, (Client("a", 2), Client("b", 3), Client("c", 2)))
    out = Assignment.of({"a": {"s": [0, 1, 2, 3, 4]}, "b": {"s": [5, 6, 7, 8]}, "c": {}})
    assert "streams.balance" in invariants(check_streams(uneven, out))


def test_previous_actives_kept_within_quota():
    # both clients have 2 tasks: a must keep both previous s0 tasks, b its s1:0; both swap one away
    swapped = Assignment.of({"a": {"s0": [0], "s1": [0]}, "b": {"s0": [1], "s1": [1]}})
    report = check_streams(PROBLEM, swapped)
    assert invariants(report) == ["streams.sticky", "streams.sticky"]
    assert [(v.members, v.partitions) for v in report.violations] == [
        (("a",), (("s0", 1),)), (("b",), (("s1", 0),)),
    ]
    # a client with fewer tasks than previous actives keeps as many as it has tasks
    bigger_b = StreamsProblem(PROBLEM.subtopologies, (PROBLEM.clients[0], Client("b", 3, {"s1": [0]})))
    fewer = Assignment.of({"a": {"s0": [0]}, "b": {"s0": [1], "s1": [0, 1]}})
    assert check_streams(bigger_b, fewer).violations == ()
    fewer_wrong = Assignment.of({"a": {"s1": [1]}, "b": {"s0": [0, 1], "s1": [0]}})
    assert invariants(check_streams(bigger_b, fewer_wrong)) == ["streams.sticky"]


def test_disputed_previous_actives_bind_nobody():
    problem = StreamsProblem({"s": 2}, (Client("a", 1, {"s": [0]}), Client("b", 1, {"s": [0]})))
    assert check_streams(problem, Assignment.of({"a": {"s": [1]}, "b": {"s": [0]}})).violations == ()
    assert check_streams(problem, Assignment.of({"a": {"s": [0]}, "b": {"s": [1]}})).violations == ()


def test_check_assignment_dispatches_streams_problems():
    out = Assignment.of({"a": {"s0": [0, 1]}, "b": {"s1": [1]}})
    assert invariants(check_assignment(PROBLEM, out)) == invariants(check_streams(PROBLEM, out))


@settings(max_examples=100, deadline=None)
@given(strategies.streams_problems())
def test_dropping_a_task_from_a_good_output_is_caught(problem):
    good = REFERENCES["streams"].assign(problem)
    assert check_streams(problem, good).violations == ()
    victim = max(problem.client_ids, key=good.count)
    pairs = sorted(good.pairs(victim))
    if pairs:
        bad = Assignment.of({**good.by_member, victim: pairs[1:]})
        assert "streams.active_once" in invariants(check_streams(problem, bad))


# ---- standby replicas (docs/SPEC.md §7.5) ----------------------------------------------------------------------

STANDBY = StreamsProblem({"s0": 2, "s1": 1}, (Client("a", 1), Client("b", 1), Client("c", 1)),
                         num_standby_replicas=1, stateless={"s1"})
ACTIVE = {"a": {"s0": [0]}, "b": {"s0": [1]}, "c": {"s1": [0]}}


def test_standbys_within_the_rules_pass():
    out = Assignment.of(ACTIVE, {"a": {"s0": [1]}, "c": {"s0": [0]}})
    assert check_streams(STANDBY, out).violations == ()
    assert check_streams(STANDBY, Assignment.of(ACTIVE)).violations == ()  # "at most": none is fine


def test_too_many_standbys_and_unknown_ones_are_standby_replicas():
    out = Assignment.of(ACTIVE, {"a": {"s0": [1]}, "c": {"s0": [1]}})
    [v] = check_streams(STANDBY, out).violations
    assert v.invariant == "streams.standby_replicas" and "more than 1 standbys" in v.message
    assert v.members == ("a", "c") and v.partitions == (("s0", 1),)
    [v] = check_streams(STANDBY, Assignment.of(ACTIVE, {"a": {"s0": [5], "gone": [0]}})).violations
    assert v.invariant == "streams.standby_replicas" and "unknown" in v.message
    none = StreamsProblem(STANDBY.subtopologies, STANDBY.clients)  # num_standby_replicas 0
    assert invariants(check_streams(none, Assignment.of(ACTIVE, {"a": {"s0": [1]}}))) == ["streams.standby_replicas"]


def test_two_copies_of_a_task_on_one_client_are_standby_apart():
    on_active = Assignment.of(ACTIVE, {"a": {"s0": [0]}})
    [v] = check_streams(STANDBY, on_active).violations
    assert v.invariant == "streams.standby_apart" and v.members == ("a",) and v.partitions == (("s0", 0),)
    twice = Assignment.of(ACTIVE, {"c": {"s0": [0, 0]}})
    assert invariants(check_streams(STANDBY, twice)) == ["streams.standby_apart"]


def test_a_standby_of_a_stateless_task_is_standby_stateful():
    [v] = check_streams(STANDBY, Assignment.of(ACTIVE, {"a": {"s1": [0]}})).violations
    assert v.invariant == "streams.standby_stateful" and v.partitions == (("s1", 0),)
    stateful = StreamsProblem(STANDBY.subtopologies, STANDBY.clients, num_standby_replicas=1)
    assert check_streams(stateful, Assignment.of(ACTIVE, {"a": {"s1": [0]}})).violations == ()


def test_a_standby_for_an_unknown_client_is_streams_clients():
    out = Assignment.of(ACTIVE, {"zed": {"s0": [0]}})
    assert "streams.clients" in invariants(check_streams(STANDBY, out))


def test_standbys_are_part_of_equality_and_the_assignment_document():
    from assigncheck.formats.documents import assignment_from_json, assignment_to_json

    with_standby = Assignment.of(ACTIVE, {"a": {"s0": [1]}})
    assert with_standby != Assignment.of(ACTIVE)
    assert Assignment.of(ACTIVE, {"a": {}}) == Assignment.of(ACTIVE)  # an empty standby set is no standby
    doc = assignment_to_json(with_standby)
    assert doc["standby"] == {"a": {"s0": [1]}} and "standby" not in assignment_to_json(Assignment.of(ACTIVE))
    assert assignment_from_json(doc) == with_standby
