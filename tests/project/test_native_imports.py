"""The layers contract over the compiled modules. import-linter builds its graph from Python sources, so an import of
an extension module (`assigncheck.spec.native`, `assigncheck.impl.native`: a `.so` beside its `.pyi`) is not in it
and no contract sees it; this test reads every module's imports and holds those to the same layers: a compiled
module is imported from its own room or a layer above, so the spec never reaches the built-in assignors' kernels."""

import ast
import tomllib

from tests.paths import PACKAGE, ROOT

CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
(LAYERS,) = [c["layers"] for c in CONTRACTS if c["type"] == "layers" and c["containers"] == ["assigncheck"]]
DEPTH = {room.strip(): depth for depth, rooms in enumerate(LAYERS) for room in rooms.split("|")}  # 0: the top
COMPILED = {".".join(("assigncheck", *p.relative_to(PACKAGE).with_suffix("").parts)) for p in PACKAGE.rglob("*.pyi")}


def imported(tree: ast.Module) -> set[str]:
    """Every module an import statement names, `from package import module` included."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return names


def test_every_compiled_module_is_known_to_the_layers():
    assert COMPILED == {"assigncheck.spec.native", "assigncheck.impl.native"}
    assert all(name.split(".")[1] in DEPTH for name in COMPILED)


def test_compiled_modules_are_imported_from_their_room_or_above():
    reached = []
    for path in PACKAGE.rglob("*.py"):
        room = path.relative_to(PACKAGE).parts[0]
        if room not in DEPTH:
            continue  # the root package names its public types only
        for name in imported(ast.parse(path.read_text())) & COMPILED:
            owner = name.split(".")[1]
            if owner != room and DEPTH[room] >= DEPTH[owner]:
                reached.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not reached
