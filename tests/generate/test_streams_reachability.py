"""Which Streams inputs no real caller produces (`spec.groups.streams_unreal`, docs/SPEC.md §7.4): a finding on one is
reported apart as unreachable for a target with `claims=real`, one on a reachable input is still confirmed from its
file in a fresh process, and minimizing keeps a reachable Streams problem reachable."""

from __future__ import annotations

from assigncheck.findings.confirm import Filing, confirm
from assigncheck.findings.finding import Finding
from assigncheck.findings.minimize import candidates, minimize
from assigncheck.findings.reproducers import Reproducers
from assigncheck.findings.signature import UNREACHABLE_STREAMS, keeps_its_shape, unreachable
from assigncheck.spec.assignment_check import check_assignment
from assigncheck.spec.groups import UNREAL_STREAMS_CLAIMS, streams_unreal
from assigncheck.spec.model import Client, StreamsProblem
from assigncheck.spec.promises import Promises
from assigncheck.targets.java import STREAMS_PROMISES
from assigncheck.targets.registry import load

REAL = Promises(claims="real")
TASKS = {"s": 3}
# c ran s-0 alone; the deal gives it s-2 (`streams.sticky`). In CONTESTED a and b also both claim s-1 running.
REACHABLE = StreamsProblem(TASKS, (Client("a", 1), Client("b", 1), Client("c", 1, {"s": [0]})))
CONTESTED = StreamsProblem(TASKS, (Client("a", 1, {"s": [1]}), Client("b", 1, {"s": [1]}), Client("c", 1, {"s": [0]})))


def test_what_no_streams_leader_or_coordinator_builds():
    assert streams_unreal(REACHABLE) == []
    assert streams_unreal(CONTESTED) == [UNREAL_STREAMS_CLAIMS["contested_active"]]
    both = StreamsProblem(TASKS, (Client("a", 1, {"s": [0]}, {"s": [0]}),))
    assert streams_unreal(both) == [UNREAL_STREAMS_CLAIMS["active_and_standby"]]
    twice = StreamsProblem(TASKS, (Client("a", 1, {"s": [0, 0]}), Client("b", 1, None, {"s": [-1]})))
    assert streams_unreal(twice) == [UNREAL_STREAMS_CLAIMS["negative_index"], UNREAL_STREAMS_CLAIMS["repeated"]]
    # a standby on several clients, or beside another client's active, and tasks the topology lost, can all be real
    spread = StreamsProblem(TASKS, (Client("a", 1, {"s": [0]}, {"s": [1]}),
                                    Client("b", 1, {"gone": [0]}, {"s": [0, 1]})))
    assert streams_unreal(spread) == []
    # ... but in a streams group (KIP-1071) the topology never changes: a task of a sub-topology it lacks is not real
    assert streams_unreal(spread, "streams") == [UNREAL_STREAMS_CLAIMS["unknown_subtopology"]]
    past = StreamsProblem(TASKS, (Client("a", 1, {"s": [7]}, {"s": [9]}),))  # a source topic recreated smaller
    assert streams_unreal(past, "streams") == []


def test_the_rule_applies_to_targets_whose_claims_are_real():
    assert unreachable(CONTESTED, REAL) == [UNREAL_STREAMS_CLAIMS["contested_active"]]
    assert unreachable(CONTESTED, Promises()) == [] and unreachable(CONTESTED) == []
    assert unreachable(REACHABLE, REAL) == []
    assert unreachable(StreamsProblem(TASKS, ()), Promises()) == [UNREACHABLE_STREAMS["no_clients"]]  # the leader
    empty = StreamsProblem({"s": 3, "t": 0}, REACHABLE.clients)
    assert unreachable(empty, Promises()) == [UNREACHABLE_STREAMS["empty_subtopology"]]
    assert all(p.claims == "real" for p in STREAMS_PROMISES.values())
    lost = StreamsProblem(TASKS, (Client("a", 1, {"gone": [0]}),))
    assert unreachable(lost, REAL) == []  # a Streams leader after a rolling upgrade to a new topology
    assert unreachable(lost, Promises(group_type="streams")) == [UNREAL_STREAMS_CLAIMS["unknown_subtopology"]]


def _finding(tmp_path, spec, problem):
    target = load(spec)
    (violation,) = check_assignment(problem, target.assign(problem), target.promises).violations
    assert violation.invariant == "streams.sticky"
    path = Reproducers.of(tmp_path, "properties", target, 2.0).write(problem, violation, seed=0,
                                                                     signature=violation.invariant)
    return target, Finding.of("properties", spec, violation, reproducer=str(path), seed=0)


def test_a_finding_on_contested_actives_is_unreachable_and_a_reachable_one_confirmed(tmp_path):
    filing = Filing(tmp_path / "reproducers", budget_s=2.0, minimize_s=6, max_candidates=8)
    spec = "tests.fixtures.streams_targets:ForgetsPrevious"
    target, contested = _finding(tmp_path / "contested", spec, CONTESTED)
    _, reachable = _finding(tmp_path / "reachable", spec, REACHABLE)
    (u, c) = confirm([contested, reachable], lambda f: target, filing, 120.0)
    assert u.status == "unreachable" and "two clients" in u.why, (u.status, u.why)
    assert c.status == "confirmed", (c.status, c.why)
    # the same output from a target that takes any claims: the contested finding counts
    spec = "tests.fixtures.streams_targets:ForgetsPreviousAnyClaims"
    target, contested = _finding(tmp_path / "any", spec, CONTESTED)
    (a,) = confirm([contested], lambda f: target, filing, 120.0)
    assert a.status == "confirmed", (a.status, a.why)


def test_minimizing_keeps_a_reachable_streams_problem_reachable():
    target = load("tests.fixtures.streams_targets:ForgetsPrevious")
    bigger = StreamsProblem({"s": 4, "u": 2}, (*REACHABLE.clients, Client("d", 2, None, {"u": [0]})))
    keeps = keeps_its_shape(bigger, target.promises)
    assert not keeps(StreamsProblem(bigger.subtopologies, ()))  # no clients
    assert not keeps(CONTESTED) and keeps(REACHABLE)

    def fails(p):
        out = target.assign(p)
        return any(v.invariant == "streams.sticky" for v in check_assignment(p, out, target.promises).violations)

    assert fails(bigger)
    small = minimize(bigger, lambda p: keeps(p) and fails(p), seconds=20.0)
    assert small.clients and fails(small) and unreachable(small, target.promises) == []
    assert len(small.clients) + small.task_count < len(bigger.clients) + bigger.task_count
    # the search proposes a sub-topology cut down to no tasks, which no application has: the guard turns it down
    zeroed = [p for p in candidates(bigger) if 0 in p.subtopologies.values()]
    assert zeroed and not any(keeps(p) for p in zeroed)
    assert all(unreachable(p, target.promises) == [UNREACHABLE_STREAMS["empty_subtopology"]] for p in zeroed)
