"""Verdicts users can trust: a finding fails the gate only once its reproducer replays alone in a fresh
process, in k of N replays; the same promises hold in every stage; a busy machine checks less but never fails a
correct target; a flaky target is an H8 finding, not an error, and a nondeterministic one is one bug; the gate
keeps no state between runs."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assigncheck.ci.cli import main
from assigncheck.ci.context import PROFILES, Profile, Progress
from assigncheck.ci.pipeline import WORK_PREFIX, Plan, run_gate
from assigncheck.ci.reports import write_all
from assigncheck.formats.reproducer import TargetRef, record_of
from assigncheck.targets.registry import load, probe
from benchmarks.harness import busy_cores
from tests.paths import ROOT

SERVE = f"cmd:{sys.executable} {ROOT / 'tests' / 'fixtures' / 'reference_target.py'}"


def _gate(targets, tmp_path, stages, profile="quick"):
    return run_gate(targets, Plan.of(profile, tmp_path / "reports", stages))


def test_a_correct_cmd_target_passes_while_every_core_is_busy(tmp_path):
    target = probe(load(TargetRef(f"{SERVE} roundrobin", "balance=perfect,exact=roundrobin")))
    with busy_cores():
        result = _gate([target], tmp_path, ["properties"])
    target.close()
    (stage,) = result.stages
    assert stage.error is None and stage.findings == [], [(f.invariant, f.message) for f in stage.findings]
    assert stage.work.done > 0 and stage.promises == "balance=perfect,exact=roundrobin"
    assert result.exit_code == 0


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_the_quick_gate_passes_correct_targets_three_times_in_a_row_under_load(tmp_path):
    target = probe(load(TargetRef(f"{SERVE} roundrobin", "balance=perfect,exact=roundrobin")))
    for k in range(3):
        with busy_cores():
            result = run_gate([target, load("range")], Plan.of("quick", tmp_path / f"r{k}"))
        assert result.findings == [] and result.exit_code == 0, [(f.stage, f.invariant, f.why) for f in
                                                                  result.findings]
    target.close()


def test_a_promise_finding_on_a_cmd_target_replays_from_its_file_alone(tmp_path, capsys, steady):
    # Round-robin promises no stickiness; declared on the command line, the gate holds it to it everywhere.
    target = probe(load(TargetRef(f"{SERVE} roundrobin", "balance=perfect,stickiness=max_retained")))
    result = _gate([target], tmp_path, ["properties"])
    target.close()
    found = [f for f in result.findings if f.invariant == "stickiness.max_retained"]
    assert found and found[0].status == "confirmed" and result.exit_code == 1
    record = record_of(json.loads(Path(found[0].reproducer).read_text()))
    assert record.target.promises == "balance=perfect,stickiness=max_retained"
    assert main(["replay", found[0].reproducer]) == 1  # no flags: the promises come from the file
    assert "reproduces: stickiness.max_retained" in capsys.readouterr().out


def test_a_nondeterministic_target_is_an_h8_finding_with_a_minimized_reproducer(tmp_path, steady):
    result = _gate([load("tests.fixtures.verdict_targets:Flaky")], tmp_path, ["properties"])
    (stage,) = result.stages
    assert stage.error is None
    h8 = [f for f in stage.findings if f.invariant == "H8"]
    assert h8 and h8[0].status == "confirmed", [(f.invariant, f.status, f.why) for f in stage.findings]
    members = {m["id"] for m in json.loads(Path(h8[0].reproducer).read_text())["members"]}
    named = set(h8[0].members)
    assert named and named <= members  # the message names members of the minimized problem


def test_a_finding_that_does_not_replay_is_listed_but_does_not_fail_the_gate(tmp_path, steady):
    result = _gate([load("tests.fixtures.verdict_targets:OnceInAProcess")], tmp_path, ["properties"])
    (finding,) = result.findings
    assert finding.invariant == "H7" and finding.status == "unconfirmed" and "no longer reproduces" in finding.why
    assert result.exit_code == 0


def test_a_failure_in_some_replays_is_confirmed_and_flaky_with_k_of_n(tmp_path, steady):
    # a fresh instance per replay, and every other instance crashes: 3 of 5 replays fail, every time
    result = _gate([load("tests.fixtures.verdict_targets:EveryOtherInstance")], tmp_path, ["properties"])
    crashes = [f for f in result.findings if f.invariant == "H7"]
    assert crashes and all((f.status, f.reproduced, f.replays) == ("confirmed", 3, 5) for f in crashes), [
        (f.invariant, f.status, f.reproduced, f.replays, f.why) for f in result.findings]
    assert crashes[0].flaky and result.exit_code == 1
    files = write_all(result, tmp_path / "reports")
    assert "failed in 3 of 5 replays (flaky)" in files["markdown"].read_text()
    doc = json.loads(files["json"].read_text())
    assert any((b["replays"], b["reproduced"]) == (5, 3) for b in doc["bugs"])
    replay = subprocess.run([sys.executable, "-m", "assigncheck.ci", "replay", crashes[0].reproducer, "--times", "4"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert replay.returncode == 1 and "in 2 of 4 replays (flaky)" in replay.stdout, replay.stdout + replay.stderr


@pytest.fixture(scope="module")
def maporder(tmp_path_factory):
    """tests/fixtures/maporder, built (a Go module of its own, the standard library only)."""
    binary = tmp_path_factory.mktemp("maporder") / "maporder"
    built = subprocess.run(["go", "build", "-trimpath", "-buildvcs=false", "-o", str(binary), "."],
                           cwd=ROOT / "tests" / "fixtures" / "maporder", capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    return binary


def test_a_go_balancer_walking_topics_in_map_order_is_one_bug_with_no_fixpoint_entry(tmp_path, steady, maporder):
    target = probe(load(TargetRef(f"cmd:{maporder}", "fixpoint")))
    try:
        result = _gate([target], tmp_path, ["properties", "proofs"])
    finally:
        target.close()
    found = [(f.stage, f.invariant, f.status, f.reproduced) for f in result.findings]
    bugs = [b for b in result.bugs if b.status != "unreachable"]
    assert 1 <= len(bugs) <= 2 and all(b.shown.invariant == "H8" for b in bugs), found
    assert bugs[0].status == "confirmed" and result.exit_code == 1
    # what the nondeterminism broke besides is listed under it: fixpoint findings, flaky ones, H8 across processes
    under = [f for b in bugs for c in b.consequences for f in c.findings]
    assert any(f.invariant == "fixpoint" for f in under), found
    assert not [b for b in result.bugs if b.shown.invariant == "fixpoint"], found
    listed = {id(f) for b in bugs for f in b.every()}  # every replayed finding, under those one or two bugs
    assert listed == {id(f) for f in result.findings if f.status != "unreachable"}, found
    # a Go program has no PYTHONHASHSEED: the messages say what differs between two fresh processes
    assert not any("PYTHONHASHSEED" in f.message for f in result.findings), found
    across = [f for f in result.findings if f.cause == "processes"]
    assert all("Go's per-map seed" in f.message for f in across)


def test_a_z3_counterexample_replays_under_the_checkers_id(tmp_path):
    from assigncheck.spec.violations import INVARIANTS
    from assigncheck.verify.counterexamples import replay, save_counterexample
    from assigncheck.verify.models import BROKEN
    from assigncheck.verify.prove import Bound, prove

    model = next(iter(BROKEN.values()))  # the planted ceiling-for-all bug
    proof = prove(model, Bound(3, 4, 1, 1), 60, stop_at_first=True)
    outcome = next(o for o in proof.counterexamples if o.invariant in ("balance.quota", "balance.perfect"))
    path = save_counterexample(model, outcome, replay(model, outcome.problem), tmp_path)
    record = record_of(json.loads(path.read_text()))
    assert record.invariant == "balance.perfect" and record.invariant in INVARIANTS  # the checker's id
    # the real constrained assignor is right there; the same bug in code reproduces it
    assert main(["replay", str(path)]) == 0
    assert main(["replay", str(path), "--target", "tests.fixtures.broken_assignors:CeilingForAllSticky"]) == 1


def _tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PROFILES, "tiny", Profile("tiny", examples=20, properties_s=5, proofs_s=5,
                                                 exhaustive_problems=50, fuzz_s=3, fuzz_execs=50,
                                                 campaign_instances=40, campaign_shards=2, campaign_s=120,
                                                 budget_s=2.0, minimize_s=2, max_candidates=4))


def test_two_gate_runs_share_no_campaign_rows(tmp_path, monkeypatch, spark):
    _tiny(monkeypatch)
    events: list[Progress] = []
    first = run_gate([load("range")], Plan.of("tiny", tmp_path / "r", ["campaign"]), progress=events.append)
    (stage,) = first.stages
    assert len(stage.rows) == 40 and {r["target"] for r in stage.rows} == {"range"}  # the plots' rows, carried
    assert [(e.stage, e.target, e.event) for e in events] == [("campaign", "all", "started"),
                                                             ("campaign", "range", "done")]
    started = time.time()
    second = run_gate([load("range")], Plan.of("tiny", tmp_path / "r", ["campaign"]))
    assert first.exit_code == second.exit_code == 0
    rows = list((tmp_path / "r" / "campaign" / "rows").glob("part-*.parquet"))
    assert rows and all(p.stat().st_mtime >= started for p in rows)  # every shard written by the second run
    summary = json.loads((tmp_path / "r" / "campaign" / "summary.json").read_text())
    assert summary["run"]["shards_already_done"] == 0 and summary["targets"]["range"]["rows"] == 40
    assert not list((tmp_path / "r").glob(f"{WORK_PREFIX}*"))


def test_an_interrupted_run_leaves_the_previous_reports_as_they_were(tmp_path):
    reports = tmp_path / "reports"
    assert main(["gate", "--target", "range", "--stages", "proofs", "--report-dir", str(reports)]) == 0
    before = {p: p.read_bytes() for p in reports.rglob("*") if p.is_file()}
    gate = subprocess.Popen([sys.executable, "-m", "assigncheck.ci", "gate", "--target", "sticky", "--stages",
                             "properties,proofs", "--report-dir", str(reports)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Ctrl-C once the run has its work directory: whatever it has done by then, on a fast machine or a slow one
    while not list(reports.glob(f"{WORK_PREFIX}*")) and gate.poll() is None:
        time.sleep(0.05)
    gate.send_signal(signal.SIGINT)
    out, err = gate.communicate(timeout=300)  # a hang guard, not a measure: the run stops within seconds
    assert gate.returncode == 130, (out, err)
    assert {p: p.read_bytes() for p in reports.rglob("*") if p.is_file()} == before
    assert not list(reports.glob(f"{WORK_PREFIX}*"))
