"""The one path every finding takes to disk (`findings.reproducers`) and the one circuit breaker (`run.breaker`)."""

from __future__ import annotations

import json

from assigncheck.findings.confirm import Candidate, Filing, settle
from assigncheck.findings.reproducers import codec_finding, file_name, write_codec
from assigncheck.formats.documents import load_problem
from assigncheck.formats.reproducer import record_of
from assigncheck.run.breaker import HANGS_IN_A_ROW, Breaker, hung
from assigncheck.spec.model import Member, Problem
from assigncheck.spec.violations import Violation
from assigncheck.targets.registry import load

CEILING = "tests.fixtures.broken_assignors:CeilingForAllSticky"


def _ceiling_problem(racks: bool = True) -> Problem:
    """6 members on 7 partitions: three owners keep 2 each, so two members get nothing; plus noise."""
    owned = {"m1": {"t": [0, 1, 2]}, "m2": {"t": [3, 4]}, "m3": {"t": [5, 6], "zz": [1]}}
    members = tuple(Member(f"m{i}", frozenset({"t", "u"}), owned.get(f"m{i}", {"u": [5]}), 2, None,
                           f"r{i % 2}" if racks else None) for i in range(6))
    return Problem({"t": 7, "u": 0}, members, partition_racks={"t": [["r0"]] * 7, "u": []} if racks else None)


def test_the_gate_files_two_raw_shapes_of_one_bug_as_one_minimized_reproducer(tmp_path):
    target = load(CEILING)
    filing = Filing(tmp_path / "reproducers", budget_s=2.0, minimize_s=20, max_candidates=8)
    from assigncheck.findings.replay import check

    candidates = []
    for racks in (True, False):
        problem = _ceiling_problem(racks)
        (violation,) = [v for v in check(target, problem, 0, 2.0) if v.invariant == "balance.perfect"]
        candidates.append(Candidate(problem, violation, 0, f"racks={racks}"))
    (finding,) = settle("properties", target, candidates, filing)
    path = tmp_path / "reproducers" / file_name("properties", CEILING, "balance.perfect", finding.signature)
    assert finding.reproducer == str(path)
    assert [p.name for p in (tmp_path / "reproducers").iterdir()] == [path.name]  # the raw files are gone
    record = record_of(json.loads(path.read_text()))
    assert record.stage == "properties" and record.signature == finding.signature and record.target.spec == CEILING
    assert len(load_problem(path).members) <= 3
    # the same bug found again in this run (another stage call, a later candidate): a duplicate, not a finding
    assert settle("properties", target, candidates[:1], filing) == []


def test_a_codec_finding_is_named_by_its_input_and_written_once(tmp_path):
    violation = Violation("codec.crash", "codec:sticky raised IndexError: x")
    path = write_codec(tmp_path, "codec:sticky", violation, b"\x01\x02", seed=4)
    assert path == tmp_path / file_name("fuzz", "codec:sticky", "codec.crash", b"\x01\x02")
    assert write_codec(tmp_path, "codec:sticky", violation, b"\x01\x02") is None  # the same input: a duplicate
    assert codec_finding(json.loads(path.read_text())) == ("codec:sticky", b"\x01\x02")


def test_one_naming_scheme_keeps_stages_targets_and_invariants_apart():
    names = {file_name(stage, target, invariant, "H4|x") for stage in ("properties", "fuzz")
             for target in ("range", "cmd:java -jar x.jar") for invariant in ("H4", "H5")}
    assert len(names) == 8 and all("/" not in n and " " not in n for n in names)
    assert file_name("fuzz", "range", "H4", "a") != file_name("fuzz", "range", "H4", "b")


def test_the_breaker_opens_after_hangs_in_a_row_only():
    hang = [Violation("H7", "no answer", cause="cmd.hang")]
    crash = [Violation("H7", "raised KeyError", cause="KeyError@x.py:f:1")]
    assert hung(hang) and not hung(crash) and not hung([Violation("H4", "two owners", cause="hang")])
    breaker = Breaker()
    for _ in range(HANGS_IN_A_ROW - 1):
        assert not breaker.count(hung(hang))
    assert not breaker.count(hung(crash))  # an answer (or another failure) between two hangs resets it
    assert [breaker.count(hung(hang)) for _ in range(HANGS_IN_A_ROW)][-1] and breaker.open


def test_a_flaky_failure_is_minimized_only_into_problems_that_fail_as_often():
    from assigncheck.findings.minimize import TRIES, as_often, minimize

    tries = {"count": 0}

    def fails(p: Problem) -> bool:
        """Every try with 4 members or more; with fewer, every other try."""
        tries["count"] += 1
        return len(p.members) >= 4 or tries["count"] % 2 == 0

    problem = Problem({"t": 3}, tuple(Member(f"m{i}", frozenset({"t"})) for i in range(8)))
    often = as_often(fails, problem)
    assert often is not None and len(minimize(problem, often).members) == 4
    assert len(minimize(problem, fails).members) < 4  # one try per candidate shrinks it into a rarer failure
    assert as_often(lambda p: False, problem) is None  # no failure to keep: nothing to minimize towards
    rare = {"count": 0}

    def once_in_three(p: Problem) -> bool:
        rare["count"] += 1
        return rare["count"] % TRIES == 0

    assert as_often(once_in_three, problem) is not None  # 1 of 3 on the original: a candidate needs 1 of 3
