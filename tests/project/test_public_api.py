"""The public surface of the definition and the lower layers every stage shares (`spec`, `drivers`, `formats`,
`run`, `generate`, `impl`, `toolchains`, `targets`, `findings`): each module says what it offers in `__all__`, every
name there exists, and no module of the package reaches past it (tests may, to test a private part)."""

import ast
import importlib
from pathlib import Path

import pytest

from tests.paths import PACKAGE, ROOT

LAYERS = ("spec", "drivers", "formats", "run", "generate", "impl", "toolchains", "targets", "findings")


def _name(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


MODULES = sorted(_name(p) for layer in LAYERS for p in (PACKAGE / layer).rglob("*.py")
                 if p.name != "__init__.py" and "__pycache__" not in p.parts)


@pytest.mark.parametrize("name", MODULES)
def test_every_module_declares_what_it_offers(name):
    module = importlib.import_module(name)
    offered = getattr(module, "__all__", None)
    assert offered, f"{name} has no __all__"
    assert sorted(offered) == sorted(set(offered))
    assert not [n for n in offered if not hasattr(module, n)]


def test_no_module_imports_what_another_does_not_offer():
    offered = {name: set(importlib.import_module(name).__all__) for name in MODULES}
    reached = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module in offered and node.module != _name(path):
                reached += [f"{path.relative_to(ROOT)}: {node.module}.{a.name}" for a in node.names
                            if a.name not in offered[node.module]]
    assert not reached
