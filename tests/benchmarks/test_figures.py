"""The docs' tables of measured figures agree with the results files they are rendered from
(`python -m benchmarks.figures`), and the check catches a table that does not."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from benchmarks import record
from benchmarks.figures.__main__ import main, results_problems
from benchmarks.figures.markers import BLOCK, docs, render
from benchmarks.figures.source import read_runs
from benchmarks.figures.tables import TABLES
from tests.paths import ROOT

RESULTS_DOC = ROOT / "docs" / "RESULTS.md"


def test_committed_docs_agree_with_their_results_files(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--check"]) == 0, capsys.readouterr().err


def test_every_table_is_in_a_doc_and_every_results_file_in_a_table() -> None:
    shown = {m["name"] for doc in docs() for m in BLOCK.finditer(doc.read_text())}
    assert shown == set(TABLES), f"tables in no doc: {set(TABLES) - shown}; unknown: {shown - set(TABLES)}"
    read = {s for t in TABLES.values() for s in t.sources}
    files = {p.stem for p in record.RESULTS.glob("*.json")}
    assert files <= read, f"results files no table reads: {files - read}"


def _copies(tmp_path: Path) -> tuple[Path, Path]:
    results = tmp_path / "results"
    shutil.copytree(record.RESULTS, results)
    doc = tmp_path / "RESULTS.md"
    shutil.copy(RESULTS_DOC, doc)
    return results, doc


def test_a_changed_figure_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results, doc = _copies(tmp_path)
    text = doc.read_text()
    block = next(m for m in BLOCK.finditer(text) if m["name"] == "bench_java")
    row = next(line for line in block["body"].splitlines() if line.startswith("| 2100 x 2100"))
    figure = re.search(r"\| (\d+\.\d+) \|", row)
    assert figure is not None, row
    changed = row.replace(figure[0], f"| {float(figure[1]) + 1:.2f} |", 1)
    doc.write_text(text.replace(row, changed, 1))
    assert main(["--check", "--results", str(results), str(doc)]) == 1
    assert "table bench_java disagrees with benchmarks/results/bench_java.json" in capsys.readouterr().err
    # rendering writes the file's figure back, after which the check passes
    assert main(["--results", str(results), str(doc)]) == 0
    assert doc.read_text() == text
    assert main(["--check", "--results", str(results), str(doc)]) == 0


def test_a_marker_whose_results_file_does_not_exist_is_caught(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    results, doc = _copies(tmp_path)
    (results / "bench_java.json").unlink()
    assert main(["--check", "--results", str(results), str(doc)]) == 1
    err = capsys.readouterr().err
    assert "table bench_java: results file" in err and "bench_java.json does not exist" in err


def test_a_marker_naming_no_table_is_caught(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("# x\n<!-- figures: bench_nonesuch -->\n| a |\n<!-- /figures -->\n")
    outcome = render(doc)
    assert outcome.problems and "no table named 'bench_nonesuch'" in outcome.problems[0]
    doc.write_text("# x\n<!-- figures: bench_java -->\n| a |\n")  # never closed
    assert any("markers but 0" in p for p in render(doc).problems)


@pytest.mark.parametrize("field", ["command", "date", "load"])
def test_a_results_file_without_its_frame_is_caught(tmp_path: Path, field: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    results, doc = _copies(tmp_path)
    path = results / "bench_java.json"
    data = json.loads(path.read_text())
    del data["runs"][-1][field]
    path.write_text(json.dumps(data))
    assert any(f"lacks {field}" in p for p in results_problems(results))
    assert main(["--check", "--results", str(results), str(doc)]) == 1
    assert f"bench_java.json: run {len(data['runs'])} lacks {field}" in capsys.readouterr().err


def test_every_committed_run_has_its_frame() -> None:
    for path in sorted(record.RESULTS.glob("*.json")):
        for run in read_runs(path.stem, record.RESULTS):
            assert run["machine"]["cores"], path.name
            if not run.get("carried_from"):
                assert run["load"]["start"] is not None and run["load"]["end"] is not None, path.name


def test_a_rendered_table_says_where_its_figures_come_from(tmp_path: Path) -> None:
    body = "\n".join(TABLES["bench_java"].render(record.RESULTS))
    run = read_runs("bench_java", record.RESULTS)[-1]
    said = body.splitlines()[-1]
    assert said.startswith("Measured by `python -m benchmarks") and run["date"] in said and "load" in said


def test_a_results_file_keeps_the_last_runs_of_each_variant(tmp_path: Path) -> None:
    for k in range(4):
        for variant in ("idle", "busy"):
            run = record.begin("python -m benchmarks.example").finish([{"k": k}], variant=variant)
            record.save("example", run, keep=3, why="a range over three runs", directory=tmp_path)
    doc = json.loads((tmp_path / "example.json").read_text())
    assert doc["keep"] == 3 and doc["why_keep"] == "a range over three runs"
    for variant in ("idle", "busy"):
        kept = [r["rows"][0]["k"] for r in doc["runs"] if r["variant"] == variant]
        assert kept == [1, 2, 3]
    assert all(r["command"] == "python -m benchmarks.example" and r["load"]["start"] >= 0 for r in doc["runs"])
