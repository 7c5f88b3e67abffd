"""The mutation driver (benchmarks/mutation.py): mutants come from mutmut's operators, each differs from the
source exactly where its diff says, and the control source is the file itself. (Judging mutants runs the
gate and belongs to `make bench`.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import mutation


# cooperative's mutants take 19 s to make and check the same driver as roundrobin's: `make test-slow` runs them
@pytest.mark.parametrize("module", ["roundrobin", pytest.param("cooperative", marks=pytest.mark.slow)])
def test_mutants_are_single_edits_of_the_module_at_their_line(module):
    source = (Path(mutation.ROOT) / "src" / "assigncheck" / "impl" / f"{module}.py").read_text()
    found = mutation.mutants(module)
    assert len(found) > 10
    assert [m.index for m in found] == list(range(len(found)))
    assert mutation.mutated_source(module, -1) == source
    original = source.splitlines()
    for m in found[:: max(1, len(found) // 8)]:
        mutated = mutation.mutated_source(module, m.index).splitlines()
        assert mutated != original
        assert mutated[m.line - 1] != original[m.line - 1]
        assert m.diff.startswith("- ")


def test_label_mutants_touch_only_the_name_attribute():
    labels = [m for m in mutation.mutants("roundrobin") if m.label_only]
    assert labels
    assert all("name = " in m.diff for m in labels)


def test_the_score_leaves_out_survivors_argued_equivalent_and_only_those(tmp_path, monkeypatch):
    listed = tmp_path / "equivalent.json"
    listed.write_text('[{"module": "range", "line": 3, "diff": "- a / + b", "kind": "equivalent", "why": "same"}]')
    monkeypatch.setattr(mutation, "EQUIVALENT", listed)
    rows = [
        {"module": "range", "index": 1, "status": "killed", "diff": "- a / + b"},  # killed: stays killed
        {"module": "range", "index": 2, "status": "survived", "diff": "- a / + b"},  # argued
        {"module": "range", "index": 3, "status": "survived", "diff": "- a / + c"},  # not argued
        {"module": "roundrobin", "index": 4, "status": "survived", "diff": "- a / + b"},  # other module
        {"module": "range", "index": 5, "status": "label", "diff": "- a / + b"},
    ]
    s = mutation.scored(rows)
    assert (s["mutants"], s["killed"], s["equivalent"]) == (4, 1, 1)
    assert s["score"] == round(1 / 3, 4) and s["score_raw"] == 0.25
    assert [r["index"] for r in s["survivors"] if "equivalent" in r] == [2]


def test_every_argued_survivor_names_a_line_that_exists_in_its_module():
    import json

    for e in json.loads(mutation.EQUIVALENT.read_text()):
        assert e["why"] and e["kind"] in ("equivalent", "deleted")
        if e["kind"] == "equivalent":
            old = e["diff"].split(" / + ")[0].removeprefix("- ").strip()
            source = (mutation.ROOT / "src" / "assigncheck" / "impl" / f"{e['module']}.py").read_text()
            assert old.split("\n")[0].strip() in source, (e["module"], e["line"])
