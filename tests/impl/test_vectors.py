"""Every regression vector under `fuzz/vectors/` (DEVELOPING.md): each names the assignors it concerns in
its `"note"`, and each of them must now pass every hard invariant and every promise it declares.

Note convention: the first sentence (up to the first ". ") starts with "assignor" or "assignors" and
names the built-in assignors, e.g. "assignors: sticky-constrained, cooperative-sticky. KAFKA-12984: ...".
"""

from __future__ import annotations

import json
import re

import pytest

from assigncheck.formats.documents import load_problem
from assigncheck.fuzz import runner
from assigncheck.run.assignor_check import check_assignor
from assigncheck.targets import registry

VECTORS = sorted(runner.VECTORS.glob("*.json"))


def named_assignors(note: str) -> list[str]:
    """The built-in names in the note's first sentence; a hyphen is part of a name, so "sticky" is not
    found inside "cooperative-sticky"."""
    first = re.split(r"\.\s", note, maxsplit=1)[0]
    if not re.match(r"\s*assignors?\b", first, re.IGNORECASE):
        return []
    return [n for n in registry.names() if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", first)]


def test_the_note_convention():
    assert named_assignors("assignors: sticky-constrained, cooperative-sticky. Not sticky.") == [
        "cooperative-sticky", "sticky-constrained"]
    assert named_assignors("assignor: sticky (general). KAFKA-15106") == ["sticky"]
    assert named_assignors("KAFKA-1: range.") == []


def test_there_are_vectors_and_each_names_its_assignors():
    assert len(VECTORS) >= 8
    for path in VECTORS:
        note = json.loads(path.read_text()).get("note", "")
        assert named_assignors(note), f"{path.name}: the note must start with 'assignor(s): NAME, ...'"


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_vector(path):
    problem = load_problem(path)
    for name in named_assignors(json.loads(path.read_text())["note"]):
        out, report = check_assignor(registry.get(name), problem, oracle=True, budget_s=60)
        assert out is not None and report.ok, (name, [v.message for v in report.violations])
