"""The scale stage: an assignor instant on small problems but quadratic in members x partitions fails the quick
gate with a reproducer of the offending size that replays from its file alone; its linear twin passes, idle or
with every core busy; the verdicts are the same on machines 3x faster and 3x slower (the budget calibrated to
each); `max_time` and `max_growth` promises are enforced and replayed; the ladder is seeded."""

from __future__ import annotations

import html
import json
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from assigncheck.ci.cli import main
from assigncheck.ci.context import PROFILES, Context
from assigncheck.ci.pipeline import Plan, run_gate
from assigncheck.ci.stages import scale as scale_stage
from assigncheck.formats.documents import problem_to_json
from assigncheck.formats.reproducer import TargetRef, record_of
from assigncheck.generate import ladder
from assigncheck.run import scale as sc
from assigncheck.run.calibration import ENV, current
from assigncheck.spec.errors import InputError
from assigncheck.spec.model import iter_pairs
from assigncheck.spec.promises import Promises, TimeAt
from assigncheck.targets import registry
from assigncheck.targets.registry import Declared, PythonTarget, load, probe
from benchmarks.harness import busy_cores
from tests.fixtures.scale_targets import Linear, Quadratic
from tests.paths import ROOT

TWINS = ROOT / "tests" / "fixtures" / "scale_targets.py"
# 8 times the quadratic work: 14.7 s of CPU per call at 2100x2100, 3.4 s at 1050x1050 and 0.85 s at 525x525 on the
# reference machine, where its linear twin takes 40 ms at most (docs/DESIGN.md, *Time budgets*)
QUADRATIC_CMD = f"cmd:{sys.executable} {TWINS} quadratic 8"
LINEAR_CMD = f"cmd:{sys.executable} {TWINS} linear"


def _stage(doc, target):
    (stage,) = [s for s in doc["stages"] if s["stage"] == "scale" and s["target"] == target]
    return stage


def _unhurried(monkeypatch):
    """The quick profile with the scale stage's wall-clock budget out of the way: a busy machine times as many
    rungs as an idle one, so the verdict rests on the CPU budget per call alone."""
    from dataclasses import replace

    monkeypatch.setitem(PROFILES, "quick", replace(PROFILES["quick"], scale_s=900))


def test_the_quick_gate_fails_a_quadratic_cmd_target_at_scale_and_passes_its_linear_twin(tmp_path, monkeypatch):
    _unhurried(monkeypatch)
    reports = tmp_path / "reports"
    assert main(["gate", "--target", QUADRATIC_CMD, "--target", LINEAR_CMD, "--stages", "scale",
                 "--report-dir", str(reports)]) == 1
    doc = json.loads((reports / "report.json").read_text())
    slow, fast = _stage(doc, QUADRATIC_CMD), _stage(doc, LINEAR_CMD)
    (finding,) = slow["findings"]
    assert finding["invariant"] == "H7" and finding["cause"] == "scale.timeout", finding
    assert finding["status"] == "confirmed", finding["why"]  # replayed from the file alone, in a fresh process
    assert finding["reproduced"] == finding["replays"] == 1, finding  # one replay: three timed calls over budget
    budget = 2.0 * doc["calibration"]["factor"]  # the quick profile's 2 reference seconds, in this machine's
    assert f"over its {budget:.3g} s (2 reference s x CPU factor" in finding["message"], finding["message"]
    assert "grew as size^" in finding["message"]
    # the offending size is the reproducer, whole: a rung far beyond anything the other stages send
    reproducer = json.loads(Path(finding["reproducer"]).read_text())
    assert len(reproducer["members"]) >= 1050 and sum(reproducer["topics"].values()) >= 1050
    scale = record_of(reproducer).extra["scale"]
    assert scale["verdict"] == "budget" and min(scale["cpu_s"]) >= round(budget, 4) and len(scale["cpu_s"]) == 3
    assert record_of(reproducer).cpu_factor == doc["calibration"]["factor"]
    assert "over the CPU budget" in slow["stats"]["stopped"] and slow["work"]["done"] < slow["work"]["nominal"]
    # the file alone decides: the linear twin on the same problem is well within the budget
    assert main(["replay", finding["reproducer"], "--target", LINEAR_CMD]) == 0
    # the twin climbed the whole quick ladder, every output checked by the spec
    assert fast["ok"] and fast["findings"] == [] and fast["work"]["done"] == fast["work"]["nominal"] == 16
    rungs = {(r["rung"], r["series"]) for r in fast["stats"]["ladder"]}
    assert {("2100x2100", "1 topic fresh"), ("2100x2100", "1 topic churn"), ("1000x10000/100", "100 topics fresh"),
            ("1000x10000/100", "100 topics churn")} <= rungs
    # every report says what was measured
    assert "2100x2100" in fast["stats"]["largest"] and "1 topic fresh" in fast["stats"]["growth"]
    summary = (reports / "summary.md").read_text()
    assert "### Scale: CPU time per call" in summary and "2100x2100: fresh" in summary
    junit = ET.parse(reports / "junit.xml").getroot()
    props = {p.get("name"): p.get("value") for suite in junit.iter("testsuite") if suite.get("name").startswith(
        "scale.") and LINEAR_CMD in suite.get("name") for p in suite.iter("property")}
    assert "1000x10000/100" in props["largest"] and props["work"] == "16/16 rungs"
    page = (reports / "report.html").read_text()
    assert "largest=2100x2100" in page and "Scale ladder: CPU time per call vs size" in page


# ---- calibrated budgets: the same verdicts on a machine 3x faster or 3x slower --------------------------------
# a machine 3x as fast as this one and one 3x as slow (this one's own factor: the quick gate's test above)
FACTORS = (1 / 3, 3.0)


def _verdicts(targets, factor, tmp_path, monkeypatch):
    """(invariant, cause) of each target's scale findings, the stage run as a gate run on a machine `factor` times
    as slow as this one runs it: with this machine's own calibrated factor times `factor` injected."""
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setenv(ENV, repr(current().factor * factor))
    calibration = current()
    ctx = Context(PROFILES["quick"].calibrated(calibration.factor), tmp_path / f"x{factor:.2f}",
                  calibration=calibration)
    verdicts = {}
    for target in targets:
        stage = scale_stage.check_target(target, ctx)
        assert stage.error is None and stage.work.done > 0, (target.name, factor, stage.error, stage.notes)
        verdicts[target.name] = sorted((f.invariant, f.cause) for f in stage.findings)
    return verdicts


def test_the_calibrated_verdicts_are_the_same_on_machines_3x_faster_and_3x_slower(tmp_path, monkeypatch):
    # the rungs where every target is slowest (2100x2100, 1000x10000/100) and the smallest: the budget is 2/3 of a
    # reference second per call at factor 1/3 and 6 at factor 3; the quadratic twin must fail at both, everything
    # else pass
    monkeypatch.setitem(scale_stage.LADDER, "quick", ((263, 2100), (125, 1000)))
    _unhurried(monkeypatch)
    twins = [probe(load(TargetRef(spec))) for spec in (QUADRATIC_CMD, LINEAR_CMD)]
    try:
        verdicts = [_verdicts(twins, factor, tmp_path, monkeypatch) for factor in FACTORS]
    finally:
        for target in twins:
            target.close()
    assert verdicts == [{QUADRATIC_CMD: [("H7", "scale.timeout")], LINEAR_CMD: []}] * len(FACTORS), verdicts
    # every built-in passes on the 3x faster machine, whose budget is the tightest: the budget is the one thing the
    # factor changes (each output is checked alike at any factor), so it passes on the slower ones too
    builtins = _verdicts([load(name) for name in registry.names()], FACTORS[0], tmp_path, monkeypatch)
    assert builtins == {name: [] for name in registry.names()}, builtins

    # the factor reaches the verdict: a rung the quadratic twin takes about 1.7 reference s at fails the budget of a
    # machine 3x faster and passes a 3x slower one's (a target this close to the budget is what the twins are not)
    monkeypatch.setitem(scale_stage.LADDER, "quick", ((750,), ()))
    quadratic = probe(load(TargetRef(QUADRATIC_CMD)))
    try:
        fast, slow = (_verdicts([quadratic], f, tmp_path, monkeypatch)[QUADRATIC_CMD] for f in (1 / 3, 3.0))
    finally:
        quadratic.close()
    assert (fast, slow) == ([("H7", "scale.timeout")], []), (fast, slow)


def test_every_report_states_the_cpu_factor(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(ENV, "1.5")
    reports = tmp_path / "reports"
    assert main(["gate", "--target", "range", "--stages", "scale", "--report-dir", str(reports)]) == 0
    said = f"CPU factor 1.5 (fixed by {ENV}): H7's budget 2 reference s = 3 s of CPU per call here"
    assert said in capsys.readouterr().out  # the console's last lines
    doc = json.loads((reports / "report.json").read_text())
    assert doc["calibration"] == {"factor": 1.5, "measured_s": None, "reference_s": doc["calibration"]["reference_s"],
                                  "fixed": True, "budget_reference_s": 2.0}
    assert said in (reports / "summary.md").read_text() and html.escape(said) in (reports / "report.html").read_text()
    props = [p.get("value") for p in ET.parse(reports / "junit.xml").getroot().iter("property")
             if p.get("name") == "calibration"]
    assert props and all(said in p for p in props)


@pytest.mark.slow  # the default run's scale test is the quadratic cmd: target's
def test_a_broken_growth_promise_is_confirmed_even_for_a_target_no_other_process_can_load(tmp_path, capsys):
    # a local object: the gate replays its finding from the file in its own process
    quadratic = PythonTarget("local-quadratic", Quadratic().assign)
    target = Declared(quadratic, Promises(max_growth=1.0), TargetRef("local-quadratic", "max_growth=1"))
    result = run_gate([target], Plan.of("quick", tmp_path / "reports", ["scale"]))
    (stage,) = result.stages
    (finding,) = stage.findings
    assert finding.invariant == "scale.growth" and finding.status == "confirmed", (finding.message, finding.why)
    assert "promised at most size^1 " in finding.message and result.exit_code == 1
    record = record_of(json.loads(Path(finding.reproducer).read_text()))
    base = record.extra["scale"]["base"]
    assert base["size"] * sc.GROWTH_SPAN <= record.extra["scale"]["size"] and base["problem"]["members"]
    # the file replays on the same code loaded by name
    assert main(["replay", finding.reproducer, "--target", "tests.fixtures.scale_targets:Quadratic"]) == 1
    assert "reproduces: scale.growth" in capsys.readouterr().out


def test_a_broken_time_promise_at_a_named_size_replays_in_a_fresh_process(tmp_path):
    target = probe(load(TargetRef("tests.fixtures.scale_targets:Quadratic", "max_time=800x800:0.1")))
    result = run_gate([target], Plan.of("quick", tmp_path / "reports", ["scale"]))
    (stage,) = result.stages
    (finding,) = stage.findings
    assert finding.invariant == "scale.time" and finding.status == "confirmed", (finding.message, finding.why)
    assert "at 800x800" in finding.message and "max_time=800x800:0.1" in finding.message
    assert "scale.time" in stage.checked
    replay = subprocess.run([sys.executable, "-m", "assigncheck.ci", "replay", finding.reproducer, "--promises",
                             "max_time=800x800:30"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert replay.returncode == 0, replay.stdout + replay.stderr  # a promise it keeps: no longer reproduces


def test_a_correct_target_keeps_its_growth_promise_while_every_core_is_busy(tmp_path, monkeypatch):
    # a built-in slow enough for its growth to be judged (5 ms and more from the first rungs), every call timed
    # against the promise; the ladder cut to its first three doublings, where growth is judged already
    monkeypatch.setitem(scale_stage.LADDER, "quick", ((263, 525, 1050), (125, 250, 500)))
    target = load(TargetRef("streams-sticky", "exact=streams,max_growth=1.5"))
    with busy_cores(factor=1):  # one spinning process per core
        (stage,) = run_gate([target], Plan.of("quick", tmp_path / "reports", ["scale"])).stages
    assert stage.error is None and stage.findings == [], [(f.invariant, f.message) for f in stage.findings]
    assert "scale.growth" in stage.checked and stage.work.done > 0  # a busy machine may time fewer rungs
    assert any("n/a" not in g for g in stage.stats["growth"].split("; ")), stage.stats["growth"]


# ---- the promises, the ladder, the fit ---------------------------------------------------------------------


def test_scale_promises_parse_and_print_back():
    for text in ("max_time=2100x2100:0.5", "max_time=1000x10000/100:0.25", "max_growth=1.2",
                 "balance=perfect,max_time=5x5:3,max_growth=2.0"):
        promises = Promises.parse(text)
        assert Promises.parse(promises.to_text()) == promises and promises.to_text() == text
    assert Promises.parse("max_time=1000x10000/100:.3s").max_time == TimeAt(1000, 10000, 100, 0.3)
    assert Promises.parse("max_time=2100x2100/1:2").to_text() == "max_time=2100x2100:2"
    for bad, says in (("max_time=2100:1", "MEMBERSxPARTITIONS"), ("max_time=0x5:1", "members must be"),
                      ("max_time=5x5:0", "positive"), ("max_time=3x2/3:1", "cannot fill"),
                      ("max_time=5x20000000:1", "partitions must be"), ("max_growth=0", "exponent"),
                      ("max_growth=x", "exponent"), ("max_growth=nan", "exponent"), ("max_growth=11", "exponent")):
        with pytest.raises(InputError, match=says):
            Promises.parse(bad)


def test_a_bad_scale_promise_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["gate", "--target", "range", "--promises", "max_time=big", "--report-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "max_time must be" in err and "Traceback" not in err


def test_the_ladder_is_seeded_and_shaped_as_promised():
    churned = ladder.Rung(1000, 10000, 100, "churn")
    first = problem_to_json(ladder._consumer.__wrapped__(churned, 3, False, False))
    assert first == problem_to_json(ladder._consumer.__wrapped__(churned, 3, False, False))
    assert first != problem_to_json(ladder._consumer.__wrapped__(churned, 4, False, False))
    problem = ladder.problem(churned, 3)
    assert problem.partition_count == 10_000 and len(problem.topics) == 100 and len(problem.members) == 1000
    assert {len(m.subscription) for m in problem.members} <= set(range(1, 21)) and not problem.subscriptions_equal()
    claimed = [pair for m in problem.members for pair in iter_pairs(m.owned)]
    assert len(claimed) == len(set(claimed)) and 9000 < len(claimed) < 10_000  # a settled round, 2% gone
    assert all(t in m.subscription for m in problem.members for t in m.owned)
    ids = [m.member_id for m in problem.members]
    assert ids != sorted(ids)  # listed as a leader receives them
    equal = ladder.problem(churned, 3, ladder.Form(equal=True, protocol="cooperative", lag=True))
    assert equal.subscriptions_equal() and equal.protocol == "cooperative" and equal.lag is not None
    streams = ladder.problem(ladder.Rung(2100, 2100), 0, ladder.Form(kind="streams"))
    assert len(streams.clients) == 2100 and streams.task_count == 2100
    rungs = ladder.rungs((263, 2100), (1000,), 100, 10, TimeAt(800, 800, 1, 0.1))
    assert [r.size for r in rungs] == sorted(r.size for r in rungs) and len(rungs) == 8
    assert rungs[-1].text == "1000x10000/100" and rungs[-1].series() == "100 topics churn"


def test_growth_is_fitted_and_judged_on_cpu_times():
    assert sc.fitted_growth([(1000, 0.01), (2000, 0.04), (4000, 0.16)]) == pytest.approx(2.0)
    assert sc.fitted_growth([(1000, 0.01)]) is None
    assert sc.growth_exceeds(1000, 0.01, 4000, 0.16, 1.0)  # 16x where a linear promise allows 2 x 4x
    assert not sc.growth_exceeds(1000, 0.01, 4000, 0.07, 1.0)
    assert not sc.growth_exceeds(1000, 0.01, 4000, 0.16, 1.6)


def test_a_timing_is_the_minimum_of_calls_each_on_a_fresh_copy():
    problem = ladder.problem(ladder.Rung(525, 525), 0)
    linear = PythonTarget("linear", Linear().assign)
    timing = sc.time_calls(linear, problem, budget_s=10.0)
    assert len(timing.cpu) == sc.CALLS and timing.best == min(timing.cpu) > 0 and not timing.over_budget
    assert timing.outputs[0] == timing.outputs[-1] and len(timing.outputs[0].by_member) == 525
    over = sc.time_calls(PythonTarget("quadratic", Quadratic().assign), problem, budget_s=0.01)
    assert over.over_budget and over.cpu == (0.01,) * sc.CALLS and over.outputs == ()
    quick = sc.time_calls(linear, problem, budget_s=10.0, floor=10.0)  # under the floor: one call is enough
    assert len(quick.cpu) == 1
