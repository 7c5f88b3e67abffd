"""`check_assignor`: H7 (crash, budget, garbage), H8 (determinism, order), fixpoint, exact, and
cooperative rounds, each caught on a small hand-written faulty assignor and passed by a correct one."""

import itertools
import signal
import threading
import time

from assigncheck.run.assignor_check import check_assignor, shuffled_problem
from assigncheck.spec.model import Assignment, Client, Member, Problem, StreamsProblem, iter_pairs
from assigncheck.spec.promises import Promises
from assigncheck.spec.reference import REFERENCES
from assigncheck.targets.registry import get


class Fn:
    def __init__(self, fn, promises=None, name="test-assignor"):
        self.name, self.promises, self.fn = name, promises or Promises(), fn

    def assign(self, problem):
        return self.fn(problem)


def deal(problem, member_ids, start=0):
    """Every subscribed partition, in (topic, index) order, dealt over `member_ids` from `start`."""
    out = {m: [] for m in member_ids}
    cycle = itertools.islice(itertools.cycle(member_ids), start % len(member_ids), None)
    for topic in problem.subscribed_topics():
        for i in range(problem.topics[topic]):
            out[next(cycle)].append((topic, i))
    return Assignment.of(out)


def in_id_order(problem):
    return deal(problem, sorted(problem.member_ids))


GROUP = Problem({"t0": 3, "t1": 4}, tuple(Member(f"c{k}", frozenset({"t0", "t1"})) for k in range(5)))


def test_a_correct_assignor_passes_everything_it_promises():
    rr = REFERENCES["roundrobin"]
    out, report = check_assignor(rr, GROUP, promises=Promises(balance="perfect", exact="roundrobin", fixpoint=True))
    assert report.ok, report.violations
    assert out == rr.assign(GROUP)
    assert report.quality["spread"] == 1


def test_a_crash_is_h7_with_the_exception_and_never_propagates():
    def crash(problem):
        raise ZeroDivisionError("boom in assign")

    out, report = check_assignor(Fn(crash), GROUP)
    assert out is None
    [v] = report.violations
    assert v.invariant == "H7" and v.message == "test-assignor raised ZeroDivisionError: boom in assign"
    assert v.cause.startswith("ZeroDivisionError@test_assignor_check.py:crash:")  # what tells two crashes apart


def test_computing_past_the_cpu_budget_is_h7():
    def spin(problem):
        end = time.thread_time() + 1.0
        while time.thread_time() < end:
            pass
        return in_id_order(problem)

    out, report = check_assignor(Fn(spin), GROUP, budget_s=0.1)
    assert out is None
    [v] = report.violations
    assert v.invariant == "H7" and "0.1 s CPU budget" in v.message and v.cause == "timeout"


def test_waiting_is_not_computing_but_a_hang_is_h7(monkeypatch):
    from assigncheck.run import calls as check

    def sleepy(problem):  # a busy machine makes a correct assignor wait; that costs it no CPU time
        time.sleep(0.3)
        return in_id_order(problem)

    assert check_assignor(Fn(sleepy), GROUP, budget_s=0.1)[1].ok
    monkeypatch.setattr(check, "HANG_MIN_S", 0.5)  # the wall-clock hang limit, normally max(30 s, 10 x budget)

    def asleep(problem):
        time.sleep(10)
        return in_id_order(problem)

    started = time.monotonic()
    out, report = check_assignor(Fn(asleep), GROUP, budget_s=0.01)
    assert out is None and time.monotonic() - started < 10  # cut at the 0.5 s limit, not waited out
    [v] = report.violations
    assert v.invariant == "H7" and "hang limit" in v.message and v.cause == "hang"


def test_with_the_wall_clock_timer_taken_calls_go_to_a_worker_thread_and_a_hang_leaves_it_behind(monkeypatch):
    """As in a fuzz job, whose libFuzzer holds ITIMER_REAL: the timers cannot be armed, so each call runs in a
    worker thread, which the check's calls share; the CPU budget and the hang limit still hold, and after a
    hang the next check gets a new worker and its own results."""
    from assigncheck.run import calls as check

    monkeypatch.setattr(check, "HANG_MIN_S", 0.5)
    ran_in: list[threading.Thread] = []

    def noted(problem):
        ran_in.append(threading.current_thread())  # the object: a finished thread's ident can be reused
        return in_id_order(problem)

    def spin(problem):  # past the 0.1 s budget, well within the 1 s hang limit even with every core busy
        end = time.thread_time() + 0.2
        while time.thread_time() < end:
            pass
        return in_id_order(problem)

    def asleep(problem):
        time.sleep(10)
        return Assignment({})

    previous = signal.signal(signal.SIGALRM, lambda *_: None)
    signal.setitimer(signal.ITIMER_REAL, 100, 100)
    try:
        assert check_assignor(Fn(noted), GROUP, budget_s=0.01)[1].ok
        assert len(ran_in) >= 3 and len(set(ran_in)) == 1 and ran_in[0] is not threading.main_thread()
        [v] = check_assignor(Fn(spin), GROUP, budget_s=0.1)[1].violations
        assert v.invariant == "H7" and v.cause == "timeout"
        started = time.monotonic()
        [v] = check_assignor(Fn(asleep), GROUP, budget_s=0.01)[1].violations
        assert v.invariant == "H7" and v.cause == "hang" and time.monotonic() - started < 10  # not waited out
        out, report = check_assignor(Fn(noted), GROUP, budget_s=0.01)
        assert report.ok and out == in_id_order(GROUP)
        assert ran_in[-1] is not ran_in[0]  # a new worker: the old one is still asleep in the abandoned call
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_returning_something_else_is_h7():
    out, report = check_assignor(Fn(lambda p: in_id_order(p).as_lists()), GROUP)
    assert out is None
    assert [v.invariant for v in report.violations] == ["H7"]
    assert "returned dict, not an Assignment" in report.violations[0].message


def test_state_kept_across_calls_breaks_determinism():
    calls = itertools.count()
    out, report = check_assignor(Fn(lambda p: deal(p, sorted(p.member_ids), next(calls))), GROUP,
                                 promises=Promises(order_independent=False))
    assert out is not None
    [v] = report.violations
    assert v.invariant == "H8" and "two runs of test-assignor on the same problem differ" in v.message
    assert set(v.members) == {f"c{k}" for k in range(5)}


def test_depending_on_the_listed_member_order_breaks_h8():
    shuffled = shuffled_problem(GROUP, seed=0)
    assert shuffled.member_ids != GROUP.member_ids  # the check can only see this if the order changed
    as_listed = Fn(lambda p: deal(p, list(p.member_ids)))
    _, report = check_assignor(as_listed, GROUP, seed=0)
    [v] = report.violations
    assert v.invariant == "H8" and "depends on the order" in v.message
    # not promised: not checked
    _, report = check_assignor(as_listed, GROUP, promises=Promises(order_independent=False))
    assert report.ok


def test_ignoring_the_owned_partitions_breaks_the_fixpoint():
    by_generation = Fn(lambda p: deal(p, sorted(p.member_ids), max(m.generation for m in p.members) + 1))
    out, report = check_assignor(by_generation, GROUP, promises=Promises(fixpoint=True))
    [v] = report.violations
    assert v.invariant == "fixpoint" and "changes it" in v.message
    assert check_assignor(by_generation, GROUP, promises=Promises())[1].ok


def test_exact_compares_with_the_spec_reference():
    unequal = Problem({"t0": 3, "t1": 2}, (Member("a", frozenset({"t0", "t1"})), Member("b", frozenset({"t0"}))))
    _, report = check_assignor(REFERENCES["roundrobin"], unequal, promises=Promises(exact="range"))
    [v] = report.violations
    assert v.invariant == "exact" and "differs from the range reference" in v.message
    assert check_assignor(REFERENCES["range"], unequal, promises=Promises(exact="range"))[1].ok


def test_equal_subscriptions_only_skips_promises_outside_the_domain():
    unequal = Problem({"t0": 4, "t1": 4}, (Member("a", frozenset({"t0", "t1"})), Member("b", frozenset({"t0"}))))
    lopsided = Fn(lambda p: Assignment.of({"a": {"t0": [0, 1, 2, 3], "t1": [0, 1, 2, 3]}, "b": {}}))
    promises = Promises(balance="local", equal_subscriptions_only=True)
    _, report = check_assignor(lopsided, unequal, promises=promises)
    assert report.ok
    _, report = check_assignor(lopsided, unequal, promises=Promises(balance="local"))
    assert [v.invariant for v in report.violations] == ["balance.local"]


# ---- cooperative rounds ---------------------------------------------------------------------------------

SCALE_OUT = Problem(
    {"t0": 4, "t1": 2},
    (Member("a", frozenset({"t0", "t1"}), {"t0": [0, 1, 2, 3], "t1": [0, 1]}, 3),
     Member("b", frozenset({"t0", "t1"}))),
    "cooperative",
)


def withholding(eager):
    """Kafka's cooperative rule on top of any eager assignor: hold back what another member still claims."""
    def assign(problem):
        out = eager(problem)
        claims = {m.member_id: set(iter_pairs(m.owned)) for m in problem.members}
        kept = {}
        for m in problem.members:
            others = set().union(*(c for k, c in claims.items() if k != m.member_id))
            kept[m.member_id] = [tp for tp in out.pairs(m.member_id) if tp in claims[m.member_id] or tp not in others]
        return Assignment.of(kept)
    return assign


def test_cooperative_sticky_converges_in_two_rounds():
    coop = get("cooperative-sticky")
    out, report = check_assignor(coop, SCALE_OUT)
    assert report.ok, report.violations
    assert report.quality["rounds"] == 2
    assert report.quality["withheld"] == 3  # round 1 holds back what b will get


def test_handing_over_unrevoked_partitions_is_h6():
    eager_rr = Fn(in_id_order, Promises(max_rounds=2))
    _, report = check_assignor(eager_rr, SCALE_OUT)
    assert "H6" in [v.invariant for v in report.violations]


def test_rounds_that_never_settle_break_the_round_promise():
    # the dealing start moves with the generation, so every round takes partitions from their owner
    restless = Fn(withholding(lambda p: deal(p, sorted(p.member_ids), max(m.generation for m in p.members))),
                  Promises(max_rounds=3))
    _, report = check_assignor(restless, SCALE_OUT)
    assert [v.invariant for v in report.violations] == ["cooperative.rounds"]
    assert "after 3 round(s); promised at most 3" in report.violations[0].message
    assert report.quality["rounds"] == 3


def test_a_bad_round_two_is_reported_with_its_round():
    def second_round_crashes(problem):
        if max(m.generation for m in problem.members) > 3:
            raise RuntimeError("round two")
        return withholding(in_id_order)(problem)

    _, report = check_assignor(Fn(second_round_crashes, Promises(max_rounds=2)), SCALE_OUT)
    [v] = report.violations
    assert v.invariant == "H7" and "RuntimeError: round two" in v.message


def test_streams_problems_are_run_and_judged_by_the_streams_checks():
    problem = StreamsProblem({"s0": 3, "s1": 2}, (Client("A", 1, {"s0": [0]}), Client("B", 2)))
    ref = REFERENCES["streams"]
    out, report = check_assignor(ref, problem, promises=Promises(exact="streams"))
    assert report.ok, report.violations
    assert out == ref.assign(problem)
    everything_to_a = Fn(lambda p: Assignment.of({"A": {"s0": [0, 1, 2], "s1": [0, 1]}, "B": {}}))
    _, report = check_assignor(everything_to_a, problem, promises=Promises(exact="streams"))
    assert {v.invariant for v in report.violations} >= {"exact"}
    assert "streams.balance" not in {v.invariant for v in report.violations}  # not promised
    _, report = check_assignor(everything_to_a, problem, promises=Promises(exact="streams", task_balance="capacity"))
    assert {v.invariant for v in report.violations} >= {"streams.balance", "exact"}
