"""Bug classes the quick gate must catch, each planted in a small target of its own beside a correct twin: the
gate confirms the bug with a reproducer that replays from its file alone, in a fresh process, and passes the
twin."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from assigncheck.ci.pipeline import Plan, run_gate
from assigncheck.formats.reproducer import TargetRef, record_of
from assigncheck.targets.registry import load, probe
from assigncheck.verify.exhaustive import problems
from assigncheck.verify.prove import Bound
from tests.paths import ROOT


def _replays(path: str) -> subprocess.CompletedProcess[str]:
    """`assigncheck replay FILE` in a fresh interpreter, from the file alone (no flag names the target)."""
    return subprocess.run([sys.executable, "-m", "assigncheck.ci", "replay", path], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


# ---- a group that moved to another topic: claims of a topic nobody subscribes to ------------------------------


def test_the_small_problems_of_an_equal_subscription_domain_claim_topics_nobody_subscribes_to():
    found = list(problems(Bound(members=1, partitions=2, topics=2, generations=1), equal_subscriptions=True))
    assert all(p.subscriptions_equal() for p in found)
    left = [p for p in found if any(t not in m.subscription for m in p.members for t in m.owned)]
    assert any(len(p.members) == 1 and p.members[0].subscription for p in left)  # t1 claimed, t0 subscribed


def test_the_proofs_stage_catches_a_sticky_assignor_keeping_claims_of_a_topic_its_group_left(tmp_path, steady):
    result = run_gate([load("tests.fixtures.sticky_claims:KeepsEveryClaim")],
                      Plan.of("quick", tmp_path / "bug", ["proofs"]))
    (stage,) = result.stages
    assert stage.stats["protocol"] == "eager" and stage.error is None
    (h3,) = [f for f in stage.findings if f.invariant == "H3"]
    assert h3.status == "confirmed" and result.exit_code == 1, (h3.status, h3.why)
    problem = json.loads(Path(h3.reproducer).read_text())
    assert len({tuple(m["subscription"]) for m in problem["members"]}) == 1  # inside the declared domain
    replay = _replays(h3.reproducer)
    assert replay.returncode == 1 and "reproduces: H3" in replay.stdout, replay.stdout + replay.stderr

    twin = run_gate([load("tests.fixtures.sticky_claims:KeepsSubscribedClaims")],
                    Plan.of("quick", tmp_path / "twin", ["proofs"]))
    assert twin.exit_code == 0 and twin.findings == [], [(f.invariant, f.message) for f in twin.findings]
    assert twin.stages[0].work.done == steady.exhaustive_problems


# ---- nondeterminism across processes: a fill order that follows the process's string hash seed ----------------
SET_ORDER = f"cmd:{sys.executable} {ROOT / 'tests' / 'fixtures' / 'set_order_target.py'}"


def test_h8_env_and_a_reproducers_processes_are_checked(tmp_path, capsys):
    from assigncheck.ci.cli import main

    assert main(["gate", "--target", "range", "--h8-env", "A=B", "--report-dir", str(tmp_path)]) == 2
    assert "--h8-env" in capsys.readouterr().err
    problem = {"format": 1, "kind": "consumer", "topics": {"t": 1}, "members": [{"id": "a", "subscription": ["t"]}],
               "finding": {"target": "range", "invariant": "H8", "cause": "processes",
                           "processes": {"env": "PYTHONHASHSEED", "values": ["1", "1"]}}}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(problem))
    assert main(["replay", str(path)]) == 2
    assert "finding.processes.values: must be two different strings" in capsys.readouterr().err


def test_two_fixed_hash_seeds_miss_a_small_group_fast_path_on_the_generated_ids():
    # what one pair of values per run compared: the stage's problems as generated (c0, c1, ...), under one pair
    # of hash seeds (17 and 18: what `--seed 8` drew when each run had one pair): every group agrees
    from assigncheck.findings.processes import Pair, Processes
    from assigncheck.spec.model import Member, Problem

    groups = [Problem({"t": 6, "u": 3}, tuple(Member(f"c{i}", frozenset({"t", "u"})) for i in range(n)))
              for n in range(1, 9)]
    pair = Pair(TargetRef(SET_ORDER + " --small-groups"), Processes("PYTHONHASHSEED", ("17", "18")), "small")
    try:
        assert [v for p in groups for v in pair.compare(p, budget_s=10.0)] == []
    finally:
        pair.close()


def test_the_gate_catches_an_assignor_whose_output_follows_its_processs_hash_seed_at_every_seed(
        tmp_path, steady, monkeypatch):
    from dataclasses import replace

    from assigncheck.ci import h8_sample
    from assigncheck.ci.context import PROFILES

    monkeypatch.setitem(PROFILES, "quick", replace(steady, examples=200))
    monkeypatch.setitem(h8_sample.SAMPLE, "quick", (100, 600.0))  # the whole sample, however busy the machine
    target = probe(load(TargetRef(SET_ORDER + " --small-groups")))
    try:
        for seed in (0, 8, 10):  # 8 and 10: the seeds whose one pair of values (17, 18 and 21, 22) missed it
            result = run_gate([target], Plan.of("quick", tmp_path / f"bug{seed}", ["properties"]), seed=seed)
            (stage,) = result.stages
            assert [(f.invariant, f.cause) for f in stage.findings] == [("H8", "processes")], (seed, stage.findings)
            (h8,) = stage.findings
            assert h8.status == "confirmed" and result.exit_code == 1, (seed, h8.why)
            assert h8.replays == 5 and h8.reproduced == 5, h8  # the recorded pair differs every time
            assert "pair(s) of processes (each pair with its own PYTHONHASHSEED values)" in stage.stats["h8_processes"]
            doc = json.loads(Path(h8.reproducer).read_text())
            processes = record_of(doc).extra["processes"]  # the pair that found it, exactly
            assert processes["env"] == "PYTHONHASHSEED" and len(set(processes["values"])) == 2, processes
            assert "PYTHONHASHSEED={} and {}".format(*processes["values"]) in h8.message
            assert all(m["id"].startswith("member-") for m in doc["members"])  # fresh ids, not c0, c1, ...
            replay = _replays(h8.reproducer)
            assert replay.returncode == 1 and "reproduces: H8 across two processes" in replay.stdout, replay.stdout
    finally:
        target.close()

    twin = probe(load(TargetRef(SET_ORDER + " --sorted")))
    result = run_gate([twin], Plan.of("quick", tmp_path / "twin", ["properties"]), seed=8)
    twin.close()
    assert result.exit_code == 0 and result.findings == [], [(f.invariant, f.message) for f in result.findings]
    assert result.stages[0].stats["h8_processes"].startswith("100/100 problems, 2 pair(s) of processes")


def test_the_sample_s_pairs_and_fresh_ids_follow_from_the_seed():
    import random

    from assigncheck.ci.h8_sample import fresh_ids
    from assigncheck.findings.processes import Processes
    from assigncheck.spec.model import Member, Problem

    problem = Problem({"t": 4}, tuple(Member(f"c{i}", frozenset({"t"}), {"t": [i]}, instance_id=f"i{i}")
                                      for i in range(3)))
    again = [fresh_ids(problem, random.Random("s")) for _ in range(2)]
    assert again[0] == again[1] and again[0] != fresh_ids(problem, random.Random("t"))
    renamed = again[0]
    assert [m.owned for m in renamed.members] == [m.owned for m in problem.members]
    assert len({m.member_id for m in renamed.members}) == 3 and not {m.member_id for m in renamed.members} & {
        "c0", "c1", "c2"}
    assert all(m.instance_id and m.instance_id != f"i{k}" for k, m in enumerate(renamed.members))
    drawn = [Processes.drawn("PYTHONHASHSEED", random.Random(7)) for _ in range(2)]
    assert drawn[0] == drawn[1] and drawn[0].values[0] != drawn[0].values[1]
    assert Processes.drawn("PYTHONHASHSEED", random.Random(8)) != drawn[0]


# ---- every target its share of fuzzing: an outside program's bug that takes the fuzz stage's full work ----------
OUTSIDE = f"cmd2:{sys.executable} {ROOT / 'tests' / 'fixtures' / 'outside_roundrobin.py'}"


def test_the_fuzz_stage_gives_an_outside_program_its_nominal_work_and_confirms_its_bug(tmp_path, steady):
    target = probe(load(TargetRef(OUTSIDE + " --planted")))
    result = run_gate([target], Plan.of("quick", tmp_path / "bug", ["fuzz"]))
    target.close()
    (stage,) = result.stages
    h5 = [f for f in stage.findings if f.invariant == "H5"]
    assert h5 and h5[0].status == "confirmed" and result.exit_code == 1, [(f.invariant, f.why) for f in h5]
    # the fuzz job's reproducer records the CPU factor its budget was scaled by, as every stage's does
    assert record_of(json.loads(Path(h5[0].reproducer).read_text())).cpu_factor == result.calibration.factor
    replay = _replays(h5[0].reproducer)
    assert replay.returncode == 1 and "reproduces: H5" in replay.stdout, replay.stdout + replay.stderr

    twin = probe(load(TargetRef(OUTSIDE)))
    result = run_gate([twin], Plan.of("quick", tmp_path / "twin", ["fuzz"]))
    twin.close()
    assert result.exit_code == 0 and result.findings == [], [(f.invariant, f.message) for f in result.findings]
    assert result.stages[0].work.done == steady.fuzz_execs
