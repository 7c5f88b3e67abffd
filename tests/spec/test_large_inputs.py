"""A problem at the documented limits (10 M partitions with racks, 2,000 members, 9.5 M claims, a 120 MiB file)
is checked within the README's memory bound, in a process that may not use more."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from assigncheck.spec.limits import MAX_INPUT_BYTES

TOPICS, PARTITIONS, MEMBERS = 10, 999_999, 2000  # 9,999,990 partitions
RACKS = "abc"
MEMORY_BOUND = 6 << 30  # the README's bound for `check` on such a problem (address space, not resident)


def write_large(folder: Path) -> tuple[Path, Path]:
    """The problem (every member but one in 20 claims what it is assigned: 9.5 M claims) and the assignment
    (member m gets every partition p with p % MEMBERS == m)."""
    topics = [f"t{t}" for t in range(TOPICS)]
    subscription = ",".join(f'"{t}"' for t in topics)
    racks = ",".join(f'["{RACKS[p % 3]}"]' for p in range(PARTITIONS))

    def owned(m: int) -> str:
        return ",".join(f'"{t}": [{",".join(map(str, range(m, PARTITIONS, MEMBERS)))}]' for t in topics)

    problem, assignment = folder / "problem.json", folder / "assignment.json"
    with problem.open("w") as out:
        out.write('{"format": 1, "topics": {' + ",".join(f'"{t}": {PARTITIONS}' for t in topics) + '}, "members": [')
        out.write(",".join(f'{{"id": "m{m:04d}", "subscription": [{subscription}], '
                           f'"owned": {{{owned(m) if m % 20 else ""}}}}}' for m in range(MEMBERS)))
        out.write('], "partition_racks": {' + ",".join(f'"{t}": [{racks}]' for t in topics) + "}}\n")
    with assignment.open("w") as out:
        out.write('{"format": 1, "assignment": {')
        out.write(",".join(f'"m{m:04d}": {{{owned(m)}}}' for m in range(MEMBERS)))
        out.write("}}\n")
    return problem, assignment


def _check(problem: Path, assignment: Path, limit: int) -> subprocess.CompletedProcess[str]:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return subprocess.run([sys.executable, "-m", "assigncheck.ci", "check", str(problem), str(assignment)],
                          preexec_fn=cap, capture_output=True, text=True, timeout=1800)


@pytest.mark.slow
@pytest.mark.timeout(3600)  # two checks of 10 M partitions, each minutes on a busy machine
def test_a_problem_at_the_documented_limits_is_checked_within_the_memory_bound(tmp_path):
    problem, assignment = write_large(tmp_path)
    assert 100 << 20 < problem.stat().st_size <= MAX_INPUT_BYTES
    run = _check(problem, assignment, MEMORY_BOUND)
    assert run.returncode == 0, run.stderr
    starved = _check(problem, assignment, 1 << 30)  # and past the memory it may use: one line, exit 2
    assert starved.returncode == 2 and starved.stderr.splitlines() == [
        "assigncheck: error: out of memory: the input needs more memory than this process may use (see the "
        "README's limits)"], starved.stderr
