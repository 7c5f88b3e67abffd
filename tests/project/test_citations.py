"""What the docs, docstrings and comments cite exists: a module, function or class named in backticks
(`spec.model.Problem`, `assigncheck.run.scale.retime`), and a repository file (`tests/findings/test_replay.py`,
`impl/flow.py`, `examples/kafka-findings/`). A module renamed or a file moved breaks the sentences that name it;
this test names each of them, so they are mended with the change."""

from __future__ import annotations

import importlib
import re
from functools import cache
from pathlib import Path

import pytest

from assigncheck.spec.violations import INVARIANTS
from tests.paths import PACKAGE, ROOT

SUBPACKAGES = tuple(sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()))
FILES = {"log", "json", "jsonl", "md", "py", "txt", "xml", "html", "yml", "java", "go"}  # `spark.log` is a file
SPAN = re.compile(r"`([^`\n]{3,200})`")
DOTTED = re.compile(r"(?:assigncheck\.)?(?:" + "|".join(SUBPACKAGES) + r")(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
PATH = re.compile(r"(?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]*")
# Where a repository path in a citation may start: the clone's root, the package's folder (`impl/flow.py`), or
# the installed package's layout (`assigncheck/formats/schemas/`).
BASES = (ROOT, PACKAGE, PACKAGE.parent)
# Paths that name what is not in the clone: a user's files, a machine's, a run's outputs, the project's sources
# of origin, a Maven, Go or npm module path.
NOT_OURS = re.compile(r"^(/|~|\$|\.venv/|\.github/|reports/|build/|dist/|target/|out/|fuzz-out/|campaigns?/|"
                      r"mutants/|shared/|kafkajs/|node_modules/|org/|com/|io/(?!assigncheck)|github\.com/|java/|\.\.?/|[a-z]+://|[A-Z_]+/)|"
                      r"\*|<|\{|\.[ch]$|\b(my|your|some|path|dir|directory|DIR|PATH|FILE|NAME)\b")


def _texts() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for folder in (PACKAGE, ROOT / "benchmarks", ROOT / "tests"):
        files += sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)
    return [f for f in files if f != Path(__file__)]


@cache
def _resolves(dotted: str) -> bool:
    parts = dotted.removeprefix("assigncheck.").split(".")
    for cut in range(len(parts), 0, -1):
        name = "assigncheck." + ".".join(parts[:cut])
        try:
            value: object = importlib.import_module(name)
        except ImportError:
            continue
        for attr in parts[cut:]:
            if attr in getattr(value, "__dataclass_fields__", {}):  # a field, with or without a default
                return attr == parts[-1]
            if not hasattr(value, attr):
                return False
            value = getattr(value, attr)
        return True
    return False


def _exists(path: str) -> bool:
    path = path.rstrip("/.,:;")
    return any((base / path).exists() for base in BASES)


def cited(text: str) -> tuple[list[str], list[str]]:
    """The dotted names and the repository paths a text cites in backticks."""
    names, paths = [], []
    for span in SPAN.findall(text):
        for word in span.split():
            word = word.strip("(),;:'\"")
            if DOTTED.fullmatch(word) and word not in INVARIANTS and word.rsplit(".", 1)[-1] not in FILES:
                names.append(word)
            elif PATH.fullmatch(word) and not NOT_OURS.search(word) and (
                    word.count("/") > 1 if word.endswith("/") else "." in word.rsplit("/", 1)[-1]):
                paths.append(word)  # a file with a suffix, or a folder with its parent (`reproducers/` is a word)
    return names, paths


@pytest.mark.parametrize("path", _texts(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_cited_module_and_file_exists(path: Path) -> None:
    names, paths = cited(path.read_text(encoding="utf-8"))
    missing = sorted({n for n in names if not _resolves(n)} | {p for p in paths if not _exists(p)})
    assert not missing, f"{path.relative_to(ROOT)} cites what does not exist: {missing}"


def test_the_check_sees_a_stale_name_and_a_moved_file() -> None:
    names, paths = cited("see `spec.model.Problem`, `ci.gone.confirm` and `tests/test_gone.py` or `impl/flow.py`")
    assert names == ["spec.model.Problem", "ci.gone.confirm"] and paths == ["tests/test_gone.py", "impl/flow.py"]
    assert _resolves("spec.model.Problem") and not _resolves("ci.gone.confirm")
    assert _exists("impl/flow.py") and not _exists("tests/test_gone.py")
