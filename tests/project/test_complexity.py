"""No function in the package is graded below C by radon's cyclomatic complexity (D is 21 or more) unless the comment
block just above its `def` (or its decorators) has a line starting `# complexity:` that says why."""

from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_rank, cc_visit
from radon.visitors import Function

from tests.paths import PACKAGE


def _functions(source: str) -> list[Function]:
    """Every function, method and closure once (radon lists a class's methods both in the class and beside it)."""
    found: dict[tuple[str, int], Function] = {}

    def add(f: Function) -> None:
        found.setdefault((f.fullname, f.lineno), f)
        for c in f.closures:
            add(c)

    for block in cc_visit(source):
        for f in [block] if isinstance(block, Function) else block.methods:
            add(f)
    return list(found.values())


def _explained(lines: list[str], lineno: int) -> bool:
    """Is there a `# complexity:` line in the comments and decorators right above line `lineno` (1-based)?"""
    i = lineno - 2
    while i >= 0 and lines[i].lstrip().startswith(("#", "@")):
        if lines[i].lstrip().startswith("# complexity:"):
            return True
        i -= 1
    return False


def graded_below_c(root: Path = PACKAGE) -> list[str]:
    """`path:name (grade score)` for every function graded D or worse without a `# complexity:` comment."""
    out = []
    for path in sorted(root.rglob("*.py")):
        source = path.read_text()
        lines = source.splitlines()
        for f in _functions(source):
            name = f"{path.relative_to(root).as_posix()}:{f.fullname}"
            if cc_rank(f.complexity) in "ABC" or _explained(lines, f.lineno):
                continue
            out.append(f"{name} ({cc_rank(f.complexity)} {f.complexity})")
    return out


def test_no_function_below_grade_c() -> None:
    assert graded_below_c() == []


def test_the_check_sees_a_complex_function_and_its_reason(tmp_path: Path) -> None:
    branches = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(25))
    body = f"def tangled(x):\n{branches}\n    return -1\n"
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "m.py").write_text(body)
    assert graded_below_c(tmp_path) == ["spec/m.py:tangled (D 26)"]
    (tmp_path / "spec" / "m.py").write_text("# complexity: one flat dispatch reads best\n@decorated\n" + body)
    assert graded_below_c(tmp_path) == []
