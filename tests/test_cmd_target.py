"""The `cmd:` protocol end to end: a real Java assignor, and targets that crash, hang or talk nonsense."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assigncheck.impl.targets.command import CommandTarget, TargetError
from assigncheck.spec.errors import InputError
from assigncheck.spec.model import Member, Problem

ROOT = Path(__file__).resolve().parents[1]
MISBEHAVING = ROOT / "tests" / "fixtures" / "misbehaving_target.py"


@pytest.fixture(scope="module")
def java_range(tmp_path_factory):
    build = tmp_path_factory.mktemp("java-range")
    subprocess.run(["javac", "-d", str(build), str(ROOT / "examples/java-range/RangeAssignor.java")], check=True)
    target = CommandTarget(f"java -cp {build} RangeAssignor", timeout_s=30)
    yield target
    target.close()


def _problem(k: int) -> Problem:
    members = [Member(f"c{i}", {"t0", "t1"} if i % 2 else {"t0"}, instance_id=f"i{k - i}" if i == 1 else None)
               for i in range(1 + k % 5)]
    return Problem({"t0": k % 7, "t1": 3 + k % 4, "unused": 2}, members)


def test_java_range_target_equals_the_reference(java_range):
    from assigncheck.spec.reference import REFERENCES

    for k in range(60):  # one JVM serves every problem: the process is persistent
        p = _problem(k)
        assert java_range.assign(p) == REFERENCES["range"].assign(p), k


def _target(mode: str, timeout_s: float = 5.0) -> CommandTarget:
    return CommandTarget(f"{sys.executable} {MISBEHAVING} {mode}", timeout_s=timeout_s)


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("crash", "crash.*exit code 3.*boom"), ("hang", "hang: no reply within 1 s"),
     ("garbage", "malformed reply \\(not JSON\\)"), ("error", "target reported an error: cannot assign"),
     ("wrong-shape", "malformed reply: .*must be an integer")],
)
def test_misbehaviour_is_a_target_error_and_the_next_problem_gets_a_fresh_process(mode, expected):
    target = _target(mode, timeout_s=1.0)
    p = Problem({"t": 2}, [Member("a", {"t"}), Member("b", {"t"})])
    if mode not in ("error", "wrong-shape"):
        assert target.assign(p).count("a") == 2  # the first problem is answered
    with pytest.raises(TargetError, match=expected):
        target.assign(p)
    if mode in ("crash", "hang", "garbage"):
        assert target.assign(p).count("a") == 2  # restarted (crash, hang) or still alive (garbage)
    target.close()


def test_a_missing_program_is_bad_input():
    with pytest.raises(InputError, match="cannot start"):
        CommandTarget("/nonexistent/assignor --flag").assign(Problem({"t": 1}, [Member("a", {"t"})]))
    with pytest.raises(InputError, match="needs a command"):
        CommandTarget("  ")


def test_targets_pickle_without_their_process():
    import pickle

    target = _target("ok")
    target.assign(Problem({"t": 1}, [Member("a", {"t"})]))
    clone = pickle.loads(pickle.dumps(target))
    assert clone._proc is None and clone.assign(Problem({"t": 1}, [Member("a", {"t"})])).count("a") == 1
    target.close()
    clone.close()


def test_java_is_on_this_machine():
    # The gate's Java example and Spark both need it; `make test` checks it up front with a clear message.
    assert shutil.which("java") and shutil.which("javac")
