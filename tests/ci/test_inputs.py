"""The CLI on bad flags and bad files: exit 2 with one line naming the flag or field,
never a traceback; argparse's usage line on usage errors; quiet exit on a closed pipe. In-process where
a subprocess adds nothing."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from assigncheck.ci import flag_types
from assigncheck.ci.cli import main
from assigncheck.formats.documents import save_problem
from assigncheck.spec.model import Member, Problem

CLI = str(Path(sys.executable).with_name("assigncheck"))
CEILING = "tests.fixtures.broken_assignors:CeilingForAllSticky"
PROBLEM = {"format": 1, "topics": {"orders": 3},
           "members": [{"id": "c0", "subscription": ["orders"]}, {"id": "c1", "subscription": ["orders"]}]}


@pytest.fixture
def problem(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(PROBLEM))
    return str(path)


def one_error(capsys, code, argv, *expected):
    """main(argv) exits `code` with exactly one stderr line, no traceback, containing each of `expected`."""
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == code, (argv, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for text in expected:
        assert text in err, (text, err)
    return err


# ---- flags -------------------------------------------------------------------------------------------


def test_empty_and_bad_values_name_the_flag(tmp_path, problem, capsys):
    cases = [
        (["check", problem, problem, "--promises", "balance="], "--promises: balance needs a value"),
        (["assign", "--assignor", "", problem], "--assignor: must not be empty"),
        (["assign", "--target", " ", problem], "--target: must not be empty"),
        (["replay", problem, "--budget", "-1"], "--budget: must be more than 0"),
        (["replay", problem, "--budget", "nan"], "--budget"),
        (["replay", problem, "--budget", "inf"], "--budget"),
        (["prove", "--seconds", "nan"], "--seconds"),
        (["prove", "--seconds", "inf"], "--seconds"),
        (["prove", "--members", "1000"], "--members: must be between 1 and 64"),
        (["prove", "--partitions", "0"], "--partitions"),
        (["prove", "--members", "64", "--partitions", "200", "--topics", "3"], "shapes; at most 100,000"),
        (["prove", "--jobs", "10000"], f"--jobs: must be between 1 and {flag_types.MAX_JOBS}"),
        (["prove", "--out", ""], "--out: must not be empty"),
        (["prove", "--exhaustive", ""], "--exhaustive: must not be empty"),  # '' used to prove every model
        (["fuzz", "--target", "range", "--jobs", "10000"], "--jobs"),
        (["fuzz", "--target", "range", "--seconds", "0"], "--seconds"),
        (["fuzz", "--target", "range", "--out", ""], "--out: must not be empty"),
        (["gate", "--stages", ""], "--stages: names no stage"),
        (["gate", "--stages", "properties,magic"], "--stages: unknown stage 'magic'"),
        (["gate", "--report-dir", ""], "--report-dir: must not be empty"),
        (["gate", "--seed", "-1"], "--seed"),
        (["gate", "--master", "nope://x"], "--master: is not a Spark master URL"),
        (["campaign", "diff", "--target", "range", "--instances", "10000000000", "--out", str(tmp_path / "c")],
         "--instances"),
        (["campaign", "diff", "--target", "range", "--instances", "1", "--out", ""], "--out: must not be empty"),
        (["campaign", "diff", "--target", "range", "--instances", "1", "--out", str(tmp_path / "c"),
          "--master", "nope://x"], "--master"),
        (["campaign", "fuzz", "--target", "range", "--tasks", "0", "--out", str(tmp_path / "f")], "--tasks"),
    ]
    for argv, expected in cases:
        one_error(capsys, 2, argv, expected)
    assert not (tmp_path / "c").exists() and not (tmp_path / "f").exists()


def test_output_paths_are_checked_before_any_work(tmp_path, problem, capsys):
    existing = tmp_path / "a-file"
    existing.write_text("keep me")
    for argv, expected in [
        (["gate", "--target", "range", "--stages", "properties", "--report-dir", str(existing)], "is a regular file"),
        (["gate", "--target", "range", "--stages", "properties", "--report-dir", "/proc/x"], "cannot be written"),
        (["campaign", "diff", "--target", "range", "--instances", "4", "--out", str(existing)], "is a regular file"),
        (["campaign", "diff", "--target", "range", "--instances", "4", "--out", "/proc/x"], "cannot be written"),
        (["campaign", "diff", "--target", "range", "--instances", "4", "--out", str(existing / "sub")],
         "cannot be written"),
        (["prove", "--assignor", "range", "--out", str(existing)], "is a regular file"),
        (["replay", problem, "--target", "range", "--minimize", str(tmp_path)], "--minimize"),
        (["replay", problem, "--target", "range", "--minimize", "/dev/full"], "is a character device"),
        (["replay", problem, "--target", "range", "--minimize", "/proc/x/y.json"], "cannot be written"),
    ]:
        one_error(capsys, 2, argv, expected)
    assert existing.read_text() == "keep me" and stat.S_ISCHR(os.stat("/dev/full").st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "p.json"]


def test_replay_minimize_to_a_device_leaves_the_device(tmp_path, capsys):
    problem = Problem({"t": 4}, (Member("a", {"t"}, {"t": [0, 1]}), Member("b", {"t"}, {"t": [2, 3]}),
                                 Member("c", {"t"})))
    path = save_problem(problem, tmp_path / "r.json", note=f"fuzz finding; target={CEILING}; "
                                                           "invariant=balance.perfect; message=m")
    one_error(capsys, 2, ["replay", str(path), "--minimize", "/dev/full"], "/dev/full")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    assert main(["replay", str(path), "--minimize", str(tmp_path / "out" / "small.json"), "--trust"]) == 1
    assert json.loads((tmp_path / "out" / "small.json").read_text())["members"]


def test_argparse_usage_errors_keep_the_usage_line(capsys):
    for argv in (["assign", "--bogus", "x"], ["gate", "--profile", "huge"], ["check"],
                 ["campaign", "diff", "--target", "range", "--instances", "1", "--out", "x", "--profile", "tiny"]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.startswith("usage: assigncheck") and "Traceback" not in err
        assert err.strip().splitlines()[-1].startswith("assigncheck") and "error:" in err


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.startswith("assigncheck 0.")


def test_a_repeated_target_is_one_target(tmp_path, capsys):
    out = tmp_path / "c"
    rc = main(["campaign", "diff", "--target", "range", "--target", "range", "--instances", "2", "--executor",
               "plain", "--out", str(out)])
    assert rc == 0, capsys.readouterr()
    assert list(json.loads((out / "summary.json").read_text())["targets"]) == ["range"]
    assert flag_types.distinct(["b", "a", "b"]) == ["b", "a"]


# ---- targets -----------------------------------------------------------------------------------------


def test_targets_that_break_on_import_or_on_call_are_one_line(tmp_path, problem, capsys, monkeypatch):
    (tmp_path / "raises_on_import.py").write_text("raise RuntimeError('boom\\nsecond line')\n")
    (tmp_path / "bad_syntax.py").write_text("def broken(:\n")
    (tmp_path / "exits_on_import.py").write_text("import sys\nsys.exit(3)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    one_error(capsys, 2, ["assign", "--target", "raises_on_import:X", problem], "RuntimeError: boom\\nsecond line")
    one_error(capsys, 2, ["assign", "--target", "bad_syntax:X", problem], "SyntaxError")
    one_error(capsys, 2, ["assign", "--target", "exits_on_import:X", problem], "SystemExit: 3")
    one_error(capsys, 2, ["assign", "--target", "cmd:'unterminated", problem], "No closing quotation")
    # Loading a plain function is fine; one that gives no assignment is said in one line (H7), exit 2.
    one_error(capsys, 2, ["assign", "--target", "os:getcwd", problem], "os:getcwd gave no assignment", "(H7)")
    one_error(capsys, 2, ["assign", "--target", "builtins:print", problem], "not an Assignment")


# ---- files -------------------------------------------------------------------------------------------


def test_check_refuses_an_assignment_with_a_repeated_member(tmp_path, problem, capsys):
    # "c1" twice, the violating entry first: a reader that let the last key win would pass the assignment
    # ("OK", exit 0) without ever seeing the violation; a repeated key is a format error.
    bad = tmp_path / "a.json"
    bad.write_text('{"format":1,"assignment":{"c1":{"orders":[99]},"c0":{},"c1":{"orders":[0,1,2]}}}')
    one_error(capsys, 2, ["check", problem, str(bad)], "repeats the key 'c1'")


def test_replay_of_a_missing_empty_or_garbage_file_names_the_file(tmp_path, capsys):
    (tmp_path / "empty.json").write_bytes(b"")
    (tmp_path / "garbage.json").write_bytes(b"\x00\xffnot json")
    (tmp_path / "text.json").write_text("hello")
    for name, expected in (("missing.json", "No such file"), ("empty.json", "is empty"),
                           ("garbage.json", "is not UTF-8"), ("text.json", "is not valid JSON")):
        err = one_error(capsys, 2, ["replay", str(tmp_path / name)], str(tmp_path / name), expected)
        assert "no target" not in err
    one_error(capsys, 2, ["replay", "/dev/zero"], "/dev/zero: is a character device")


def test_standard_input_is_dash(problem, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(PROBLEM).encode())))
    assert main(["assign", "--assignor", "range", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["assignment"]["c0"] == {"orders": [0, 1]}
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"{}")))
    one_error(capsys, 2, ["check", "-", "-"], "only one of PROBLEM and ASSIGNMENT")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"[1,")))
    one_error(capsys, 2, ["assign", "--assignor", "range", "-"], "standard input: is not valid JSON")


def test_errors_name_json_types_and_say_each_word_once(tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_text('{"format": 1, "topics": {"orders": 3}, "members": [{"id": "c0')
    err = one_error(capsys, 2, ["assign", "--assignor", "range", str(path)], "Unterminated string starting at line 1")
    assert "at at" not in err
    for value, named in ((None, "got null"), ({}, "got an object"), ([1], "got an array"), (1.5, "got a decimal"),
                         ("3", "got a string"), (True, "got a boolean")):
        path.write_text(json.dumps({**PROBLEM, "topics": {"orders": value}}))
        err = one_error(capsys, 2, ["assign", "--assignor", "range", str(path)], "topics.orders", named)
        assert not re.search(r"\b(NoneType|dict|list|float|str|bool|int)\b", err), err
    path.write_text(json.dumps({"format": 1, "kind": "scenario", "initial": PROBLEM, "steps": None}))
    err = one_error(capsys, 2, ["assign", "--assignor", "range", str(path)])
    assert "NoneType" not in err, err


def test_errors_quoting_names_with_line_breaks_stay_one_line(tmp_path, capsys):
    path = tmp_path / "p.json"
    for name in ("bad\nkey", "bad\u2028key", "bad\u2029key", "bad\rkey", "bad\x85key"):
        path.write_text(json.dumps({**PROBLEM, name: 1}, ensure_ascii=False), encoding="utf-8")
        err = one_error(capsys, 2, ["assign", "--assignor", "range", str(path)], "is not a known field")
        assert name not in err and len(err.splitlines()) == 1
    assert flag_types.one_line("a\u2028b\nc") == "a\\u2028b\\nc" and flag_types.one_line("x" * 5000).endswith("...")


# ---- a closed pipe -----------------------------------------------------------------------------------


def test_a_closed_pipe_exits_quietly_with_141(tmp_path):
    path = tmp_path / "big.json"
    path.write_text(json.dumps({**PROBLEM, "topics": {"orders": 100_000}}))  # > 64 KiB of pretty output
    proc = subprocess.Popen([CLI, "assign", "--pretty", "--assignor", "range", str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.read(10)
    proc.stdout.close()  # what `| head` does
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGPIPE and err == b""
