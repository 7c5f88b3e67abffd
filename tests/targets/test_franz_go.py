"""Our Go driver of franz-go's balancers (`go/cmd/franz-go-driver` over package `franzgo`, built by `make
franz-go`): it runs kgo's own code as kgo's group leader does (each member's metadata as its consumer encodes it,
MemberBalancer, Balance, the plan as the members decode it), bad usage is one line and exit 2, and `-bench` returns
the plan it timed."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import HealthCheck, given, settings

from assigncheck.formats.documents import dumps, problem_to_json, write_atomic
from assigncheck.generate import strategies
from assigncheck.spec.assignment_check import check_assignment
from assigncheck.spec.model import Assignment, Member, Problem
from assigncheck.spec.reference import REFERENCES
from assigncheck.spec.stickiness import retained, withheld
from assigncheck.targets.command import CommandTarget, TargetError
from benchmarks import franz_go


@pytest.fixture(scope="module")
def driver():
    return franz_go.build()  # fails, with make's one line, where Go is missing: never skipped


@pytest.fixture(scope="module")
def balancers(driver):
    targets = {name: CommandTarget([str(driver), name], protocol=2, hang_s=30) for name in franz_go.BALANCERS}
    yield targets
    for target in targets.values():
        target.close()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(problem=strategies.problems(claims="none", racks=False, protocol="eager"))
def test_range_and_round_robin_equal_kafkas_as_kgo_documents(balancers, problem):
    # Static members sort first by instance id in both: the driver hands MemberBalancer the order kgo promises.
    for name in ("range", "roundrobin"):
        assert balancers[name].assign(problem) == REFERENCES[name].assign(problem), name


def test_sticky_reads_its_previous_assignment_eager_from_user_data_cooperative_from_owned(balancers):
    owned = {"a": [2, 3], "b": [0, 1], "c": [4, 5]}
    settled = Problem({"t": 6}, tuple(Member(m, {"t"}, {"t": ps}, 3) for m, ps in owned.items()))
    for name, protocol in (("sticky", "eager"), ("cooperative-sticky", "cooperative")):
        problem = settled.replace(protocol=protocol)
        assert balancers[name].assign(problem) == Assignment.of({m: {"t": ps} for m, ps in owned.items()}), name
    # range ignores what members owned: the same answer as for a fresh group
    assert balancers["range"].assign(settled) == balancers["range"].assign(settled.replace(
        members=tuple(Member(m.member_id, m.subscription) for m in settled.members)))


def test_cooperative_sticky_withholds_what_moves_until_its_owner_revoked_it(balancers):
    grown = Problem({"t": 4}, (Member("a", {"t"}, {"t": [0, 1, 2, 3]}, 1), Member("b", {"t"})), "cooperative")
    first = balancers["cooperative-sticky"].assign(grown)
    assert check_assignment(grown, first).ok  # H6: nothing a still claims is handed to b
    assert (first.count("a"), first.count("b"), withheld(grown, first)) == (2, 0, 2)
    assert retained(grown, first) == 2


def test_an_empty_group_gets_an_empty_assignment(balancers):
    assert balancers["sticky"].assign(Problem({}, ())) == Assignment.of({})


def test_rack_blindness_is_said(balancers):
    racks = Problem({"t": 2}, (Member("a", {"t"}, rack="r0"), Member("b", {"t"}, rack="r1")),
                    partition_racks={"t": (frozenset({"r1"}), frozenset({"r0"}))})
    for name in ("range", "sticky"):
        balancers[name].assign(racks)
        assert "rack-blind" in balancers[name].adapted, name


def test_a_problem_it_cannot_read_is_an_error_answer_naming_the_field(driver):
    line = '{"format": 2, "id": 1, "problem": {"format": 1, "topics": {"t": 1}, "members": [], "extra": 1}}\n'
    done = subprocess.run([str(driver), "sticky"], input=line, capture_output=True, text=True, check=True)
    assert '"error":"problem: json: unknown field \\"extra\\""' in done.stdout
    with pytest.raises(TargetError, match="reported an error"):
        CommandTarget([str(driver), "sticky"], protocol=2).assign(Problem({"t": 1}, (Member("a", {"t"}),),
                                                                          group_type="consumer"))


@pytest.mark.parametrize(("args", "expected"), [
    ([], "no balancer named"),
    (["stiky"], 'unknown balancer "stiky"'),
    (["-calls", "0", "sticky"], "-calls must be a whole number above 0"),
    (["-warmup"], "-warmup needs a number"),
    (["-fast", "sticky"], "unknown flag -fast"),
    (["-bench", "sticky"], "-bench needs problem files"),
    (["-bench", "sticky", "/nonexistent.json"], "/nonexistent.json: open /nonexistent.json"),
    (["sticky", "problem.json"], "problem files are read only with -bench"),
])
def test_bad_usage_is_one_line_and_exit_2(driver, args, expected):
    done = subprocess.run([str(driver), *args], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1 and expected in done.stderr


def test_bench_times_balance_and_returns_the_plan_it_timed(balancers, tmp_path):
    problem = Problem({"t": 12, "u": 5}, tuple(Member(f"c{i}", {"t", "u"} if i % 2 else {"t"}) for i in range(4)))
    path = tmp_path / "problem.json"
    write_atomic(path, dumps(problem_to_json(problem)))
    (result,) = franz_go.bench("sticky", [path], warmup=1, calls=3)
    assert (result["balancer"], result["warmup"], len(result["cpu_ms"]), len(result["wall_ms"])) == ("sticky", 1, 3, 3)
    assert all(ms >= 0 for ms in result["cpu_ms"] + result["wall_ms"])
    out = Assignment.of(result["assignment"])
    assert check_assignment(problem, out).ok and sorted(out.counts().values()) == [4, 4, 4, 5]
