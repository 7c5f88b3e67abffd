"""The README's layout block lists every subpackage of src/assigncheck once, in the order of the import contract's
layers (pyproject.toml), bottom first: a subpackage added, removed or moved between layers changes both."""

from __future__ import annotations

import re
import tomllib

from tests.paths import PACKAGE, ROOT


def _layers() -> list[list[str]]:
    """The layers contract's subpackages, bottom layer first (siblings in a layer in their listed order)."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["type"] == "layers"]
    return [[name.strip() for name in layer.split("|")] for layer in reversed(layers)]


def _readme_block() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Layout and development"):]
    block = section[section.index("```\n") + 4:section.index("\n```", section.index("```\n") + 4)]
    return re.findall(r"^([a-z_]+)/ ", block, flags=re.M)


def test_the_readme_lists_the_subpackages_in_the_contracts_order() -> None:
    listed = _readme_block()
    subpackages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert sorted(listed) == sorted(subpackages), "the README's layout block and src/assigncheck differ"
    layer_of = {name: k for k, layer in enumerate(_layers()) for name in layer}
    assert set(layer_of) == subpackages, "the layers contract and src/assigncheck differ"
    assert [layer_of[name] for name in listed] == sorted(layer_of[name] for name in listed), listed
