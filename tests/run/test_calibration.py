"""CPU calibration (`run.calibration`): a fixed workload timed here against its time on the reference machine
gives the factor that turns the profiles' reference seconds into this machine's; ASSIGNCHECK_CPU_FACTOR fixes
it; a reproducer's budget is replayed in the replaying machine's units."""

from __future__ import annotations

import json

import pytest

from assigncheck.ci.cli import main
from assigncheck.ci.context import PROFILES
from assigncheck.formats.reproducer import record_of
from assigncheck.run import calibration
from assigncheck.run.calibration import ENV, REFERENCE_S, Calibration, current, fixed_factor, rescaled
from assigncheck.spec.errors import InputError


def test_the_workload_is_the_same_work_whatever_the_hash_seed():
    # REFERENCE_S is this workload's time on the reference machine: a change to it needs a new REFERENCE_S
    assert calibration.workload() == 1_781_542


def test_the_factor_is_the_workloads_cpu_time_here_over_the_reference(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    measured = calibration.measure(repeats=1)
    assert 0 < measured < 100 * REFERENCE_S
    here = current()
    assert here.measured_s is not None and here.factor == pytest.approx(here.measured_s / REFERENCE_S)
    assert here.scaled(2.0) == pytest.approx(2.0 * here.factor)
    assert "the calibration workload took" in here.text() and f"{REFERENCE_S * 1000:.1f} ms" in here.text()


def test_the_environment_fixes_the_factor_and_a_bad_value_names_it(monkeypatch):
    monkeypatch.setenv(ENV, "3")
    assert current() == Calibration(3.0) and current().to_json()["fixed"] is True
    assert f"fixed by {ENV}" in current().text()
    for bad in ("abc", "0", "-1", "nan", "inf", "1e9"):
        monkeypatch.setenv(ENV, bad)
        with pytest.raises(InputError, match=ENV):
            fixed_factor()
    monkeypatch.setenv(ENV, " ")
    assert fixed_factor() is None


def test_a_bad_factor_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(ENV, "fast")
    assert main(["gate", "--target", "range", "--stages", "properties", "--report-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and ENV in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_the_profiles_budgets_are_reference_seconds_scaled_by_the_factor():
    quick = PROFILES["quick"]
    slow = quick.calibrated(3.0)
    assert (slow.budget_s, slow.scale_s) == (3 * quick.budget_s, 3 * quick.scale_s)
    assert (slow.properties_s, slow.examples) == (quick.properties_s, quick.examples)  # work budgets: as they are


def test_a_recorded_budget_is_replayed_in_this_machines_units(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv(ENV, "0.5")
    assert rescaled(6.0, 3.0) == pytest.approx(1.0)  # 2 reference s, on a machine twice as fast
    assert rescaled(6.0, None) == 6.0  # no factor recorded: an absolute budget
    # a reproducer of a 2-reference-second budget written on a machine of factor 4, replayed here at factor 0.5
    doc = {"format": 1, "kind": "consumer", "topics": {"t": 2}, "members": [{"id": "a", "subscription": ["t"]}],
           "finding": {"target": "range", "invariant": "H3", "budget_s": 8.0, "hang_s": 80.0, "cpu_factor": 4.0}}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    assert record_of(doc).cpu_factor == 4.0
    assert main(["replay", str(path)]) == 0
    assert "budget 1 s of CPU per call: the file's 2 reference s" in capsys.readouterr().err
    doc["finding"]["cpu_factor"] = -1
    path.write_text(json.dumps(doc))
    assert main(["replay", str(path)]) == 2
    assert "finding.cpu_factor: must be a positive number" in capsys.readouterr().err

