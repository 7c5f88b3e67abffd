"""The mutation driver (benchmarks/mutation.py): mutants come from mutmut's operators, each differs from the
source exactly where its diff says, and the control source is the file itself. (Judging mutants runs the
gate and belongs to `make bench`.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import mutation


@pytest.mark.parametrize("module", ["roundrobin", "cooperative"])
def test_mutants_are_single_edits_of_the_module_at_their_line(module):
    source = (Path(mutation.ROOT) / "impl" / f"{module}.py").read_text()
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
