"""`assigncheck replay` runs the program, module or jars a reproducer names only with consent: the file was written
by assigncheck on this machine (`formats.trust`), the command line names the target (`--target`), or `--trust`
says to run it. Otherwise one line says exactly what would run and how to allow it, exit 2, and nothing runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from assigncheck.ci.cli import main
from assigncheck.formats.documents import problem_to_json
from assigncheck.formats.reproducer import Record, TargetRef, save
from assigncheck.spec.model import Member, Problem
from tests.paths import ROOT

PROBLEM = Problem({"t": 2}, (Member("a", {"t"}), Member("b", {"t"})))
# A cmd: target that leaves a mark when it runs, and answers with nothing for anyone (H5 on every problem).
MARKING = """import json, pathlib, sys
pathlib.Path(sys.argv[1]).write_text("ran")
for line in sys.stdin:
    members = [m["id"] for m in json.loads(line)["members"]]
    print(json.dumps({"format": 1, "assignment": {m: {} for m in members}}), flush=True)
"""


def _marking(tmp_path: Path) -> tuple[str, Path]:
    script, mark = tmp_path / "marking.py", tmp_path / "ran"
    script.write_text(MARKING)
    return f"cmd:{sys.executable} {script} {mark}", mark


def _written_here(tmp_path: Path, ref: TargetRef, invariant: str = "H5", **extra: object) -> Path:
    return save(problem_to_json(PROBLEM), Record(ref, invariant, stage="test", extra=dict(extra)),
                tmp_path / "r.json", "a finding")


def _by_hand(tmp_path: Path, target: object, invariant: str = "H5", name: str = "r.json", **extra: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({**problem_to_json(PROBLEM),
                                "finding": {"target": target, "invariant": invariant, **extra}}))
    return path


def _refused(capsys, argv: list[str], *said: str) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    for text in said:
        assert text in err, err
    return err


def test_a_file_written_here_replays_without_a_word(tmp_path, capsys):
    spec, mark = _marking(tmp_path)
    path = _written_here(tmp_path, TargetRef(spec))
    assert main(["replay", str(path)]) == 1
    assert mark.exists() and "reproduces: H5" in capsys.readouterr().out


def test_an_edited_file_runs_nothing_without_consent(tmp_path, capsys):
    spec, mark = _marking(tmp_path)
    path = _written_here(tmp_path, TargetRef(spec))
    path.write_text(path.read_text().replace("a finding", "a finding, edited"))
    _refused(capsys, ["replay", str(path)], f"would run the program {spec[4:]!r}", "--trust", "--target")
    assert not mark.exists()
    assert main(["replay", str(path), "--trust"]) == 1 and mark.exists()


def test_a_shell_command_from_a_file_is_shown_and_not_run(tmp_path, capsys):
    mark = tmp_path / "pwned"
    command = f'sh -c "touch {mark}; cat >/dev/null"'
    path = _by_hand(tmp_path, f"cmd:{command}")
    _refused(capsys, ["replay", str(path)], f"would run the program {command!r}", "replay it with --trust")
    assert not mark.exists()


def test_a_module_a_file_names_is_not_imported(tmp_path, capsys):
    _refused(capsys, ["replay", str(_by_hand(tmp_path, "os:system"))],
             "would run the Python module 'os' imported and 'system' called")


def test_a_target_named_on_the_command_line_needs_no_consent(tmp_path, capsys):
    spec, mark = _marking(tmp_path)
    path = _by_hand(tmp_path, f"{spec}-elsewhere")
    assert main(["replay", str(path), "--target", spec]) == 1 and mark.exists()
    assert main(["replay", str(path), "--target", "range"]) == 0


def test_built_ins_and_kafkas_own_classes_need_none(tmp_path, capsys):
    assert main(["replay", str(_by_hand(tmp_path, "range", "H1"))]) == 0
    from assigncheck.findings.consent import outside_code
    from assigncheck.findings.replay import Reproducer

    found = Reproducer("r.json", "check")
    kafka = "java:org.apache.kafka.clients.consumer.RangeAssignor"
    assert outside_code(found, TargetRef(kafka)) is None
    assert outside_code(found, TargetRef(kafka, maven=("org.apache.kafka:kafka-clients:3.9.1",))) is None
    assert outside_code(found, TargetRef("kafka-python:sticky")) is None
    assert "Maven com.example:evil:1" in outside_code(found, TargetRef(kafka, maven=("com.example:evil:1",)))
    assert "/x/y.jar" in outside_code(found, TargetRef("java:com.example.A", classpath=("/x/y.jar",)))


def test_an_environment_variable_for_the_target_s_processes_is_code_too(tmp_path, capsys):
    path = _by_hand(tmp_path, "range", "H8", processes={"env": "LD_PRELOAD", "values": ["/tmp/a.so", "/tmp/b.so"]})
    _refused(capsys, ["replay", str(path)], "the environment variable LD_PRELOAD set to /tmp/a.so and /tmp/b.so")
    _refused(capsys, ["replay", str(path), "--target", "sticky"], "LD_PRELOAD")  # the file's variable all the same


def test_a_file_from_another_machine_is_not_trusted(tmp_path):
    """Another user's cache (another machine's) has another key: the same bytes are not recorded there."""
    spec, mark = _marking(tmp_path)
    path = _written_here(tmp_path, TargetRef(spec))
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "elsewhere"), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "assigncheck.ci", "replay", str(path)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--trust" in done.stderr and not mark.exists(), done.stderr


def test_the_file_s_coordinates_and_classpath_get_the_flags_checks(tmp_path, capsys):
    kafka = "java:org.apache.kafka.clients.consumer.RangeAssignor"
    latest = _by_hand(tmp_path, {"spec": kafka, "maven": ["org.apache.kafka:kafka-clients:LATEST"]}, name="m.json")
    _refused(capsys, ["replay", str(latest)], "finding.target.maven", "LATEST is not one version")
    for device in ("/dev/zero", str(_fifo(tmp_path))):  # refused before anything reads it: no hang
        path = _by_hand(tmp_path, {"spec": "java:com.example.A", "classpath": [device]}, name="c.json")
        _refused(capsys, ["replay", str(path), "--trust"], "finding.target.classpath", "not a jar or a directory")


def test_the_classpath_flag_is_checked_before_any_read(tmp_path, capsys):
    problem = tmp_path / "p.json"
    problem.write_text(json.dumps(problem_to_json(PROBLEM)))
    for device in ("/dev/zero", str(_fifo(tmp_path))):
        _refused(capsys, ["assign", "--target", "java:com.example.A", "--classpath", device, str(problem)],
                 "--classpath", "not a jar or a directory")


def _fifo(tmp_path: Path) -> Path:
    fifo = tmp_path / "fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    return fifo


def test_the_gate_s_own_confirmation_needs_neither_flag(tmp_path):
    """The gate replays its reproducers in fresh processes (`findings.confirm`): files it wrote itself."""
    from assigncheck.ci.pipeline import Plan, run_gate
    from assigncheck.targets.registry import load, probe

    spec, _ = _marking(tmp_path)
    target = probe(load(TargetRef(spec, "balance=none")))
    try:
        result = run_gate([target], Plan.of("quick", tmp_path / "reports", ["scale"]))
    finally:
        target.close()
    assert result.exit_code == 1 and any(f.status == "confirmed" and f.invariant == "H5" for f in result.findings)
    reproducer = next(f.reproducer for f in result.findings if f.invariant == "H5")
    assert main(["replay", reproducer]) == 1  # and a user's replay of it here, too
