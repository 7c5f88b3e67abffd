"""`assigncheck prove`: proved lines and exit 0, a counterexample file and exit 1, bad input exit 2."""

import json

from assigncheck.ci.cli import main


def test_prove_range_exit_0(capsys, tmp_path):
    rc = main(["prove", "--assignor", "range", "--members", "2", "--partitions", "3", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "range" in out and "H5" in out and "proved" in out and "counterexample" not in out
    assert not list(tmp_path.iterdir())


def test_prove_broken_variant_exit_1_and_writes_problem(capsys, tmp_path):
    rc = main(["prove", "--assignor", "sticky-constrained:ceiling-for-all", "--members", "3", "--partitions", "4",
               "--first", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 1
    assert "counterexample" in out and "replay on impl: nothing (model only)" in out
    files = sorted(tmp_path.glob("*.json"))
    assert files
    doc = json.loads(files[0].read_text())
    assert doc["format"] == 1 and "ceiling-for-all" in doc["note"]


def test_prove_bad_input_exit_2(capsys):
    assert main(["prove", "--assignor", "nope"]) == 2
    assert "no symbolic model" in capsys.readouterr().err
    assert main(["prove", "--assignor", "range", "--members", "0"]) == 2
    assert main(["prove", "--assignor", "range", "--jobs", "0"]) == 2
    assert "--jobs" in capsys.readouterr().err


def test_prove_composed_cells_with_two_jobs(capsys):
    rc = main(["prove", "--assignor", "sticky-constrained", "--members", "2", "--partitions", "3", "--jobs", "2"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "12/12 shapes (6 composed cells)" in out and "counterexample" not in out


def test_exhaustive_mode(capsys, tmp_path):
    args = ["prove", "--members", "2", "--partitions", "2", "--topics", "1", "--generations", "0",
            "--out", str(tmp_path)]
    assert main([*args, "--exhaustive", "sticky"]) == 0
    assert "0 violations" in capsys.readouterr().out
    rc = main([*args, "--exhaustive", "roundrobin", "--promises", "balance=perfect,stickiness=max_retained"])
    assert rc == 1
    assert "stickiness.max_retained" in capsys.readouterr().out
    assert list(tmp_path.glob("exhaustive-*.json"))


def test_exhaustive_only_flags_are_refused_without_exhaustive(capsys, tmp_path):
    for extra in (["--racks"], ["--protocol", "cooperative"], ["--promises", "balance=perfect"]):
        assert main(["prove", "--assignor", "range", "--members", "1", "--out", str(tmp_path), *extra]) == 2
        err = capsys.readouterr().err
        assert extra[0] in err and "--exhaustive" in err and len(err.strip().splitlines()) == 1


def test_exhaustive_racks_mode_finds_a_rack_blind_promise(capsys, tmp_path):
    args = ["prove", "--members", "2", "--partitions", "2", "--topics", "1", "--generations", "0", "--racks",
            "--out", str(tmp_path)]
    assert main([*args, "--exhaustive", "range", "--promises", "balance=perfect,racks"]) == 1
    out = capsys.readouterr().out
    assert "rack-aware problems" in out and "racks" in out
    assert list(tmp_path.glob("exhaustive-*.json"))
