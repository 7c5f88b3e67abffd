"""The distribution: a built wheel holds every subpackage of src/assigncheck/ and nothing generic at the top."""

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.paths import PACKAGE, ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
DIST_INFO = f"assigncheck-{PYPROJECT['project']['version']}.dist-info"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(out), str(ROOT)], check=True, capture_output=True, timeout=300)
    (built,) = out.glob("assigncheck-*.whl")
    return built


def test_wheel_file_list(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"assigncheck", DIST_INFO}, tops
    packaged = {n.rsplit("/", 1)[0] for n in names if n.endswith("/__init__.py")}
    expected = {f"assigncheck/{p.parent.relative_to(PACKAGE).as_posix()}".rstrip("/.")
                for p in PACKAGE.rglob("__init__.py") if "__pycache__" not in p.parts}
    assert packaged == expected  # every subpackage in the tree made it into the wheel
    assert "assigncheck/ci/templates/github-actions.yml" in names
    java = "assigncheck/drivers/java/src/main/java/io/assigncheck"
    assert f"{java}/bridge/AssigncheckBridge.java" in names  # java: targets compile it
    drivers = PACKAGE / "drivers" / "java"
    maven_project = {f"assigncheck/{p.relative_to(PACKAGE).as_posix()}" for p in drivers.rglob("*")
                     if p.suffix in (".java", ".xml") and "target" not in p.parts}
    assert {n for n in names if n.startswith("assigncheck/drivers/java/")} == maven_project  # pom.xml and sources
    schemas = {n for n in names if n.startswith("assigncheck/formats/schemas/") and n.endswith(".json")}
    assert schemas == {f"assigncheck/formats/schemas/{p.name}"
                       for p in (PACKAGE / "formats" / "schemas").glob("*.json")}
    assert "assigncheck/py.typed" in names  # PEP 561: typed for users' mypy
    assert f"{java}/live/LiveMember.java" in names  # live groups' Java members compile it
    # the compiled helpers, built by cargo for this interpreter, and their stubs for users' type checkers: the
    # checker's in the spec's room, the built-in assignors' kernels in impl's
    for room in ("spec", "impl"):
        built = [n for n in names if n.startswith(f"assigncheck/{room}/native.cpython-311-") and n.endswith(".so")]
        assert len(built) == 1, names
        assert f"assigncheck/{room}/native.pyi" in names
    entry_points = zipfile.ZipFile(wheel).read(f"{DIST_INFO}/entry_points.txt").decode()
    assert "assigncheck = assigncheck.ci.cli:main" in entry_points and "pytest11" in entry_points
    vectors = {n for n in names if n.startswith("assigncheck/fuzz/vectors/") and n.endswith(".json")}
    assert len(vectors) == len(list((PACKAGE / "fuzz" / "vectors").glob("*.json"))) > 0  # the fuzz seed corpus
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)


def test_the_installed_package_reads_its_own_files_wherever_it_runs(wheel, tmp_path):
    """The wheel's code, not the clone's (no editable finder: `-S`, the dependencies' directory on the path),
    run from a directory with nothing of assigncheck in it: the seed corpus comes from the package."""
    installed = tmp_path / "installed"
    zipfile.ZipFile(wheel).extractall(installed)
    site_packages = next(p for p in sys.path if p.endswith("site-packages"))
    code = ("import sys; from assigncheck.fuzz.runner import VECTORS, build_seeds; "
            "print(VECTORS); print(build_seeds(VECTORS, __import__('pathlib').Path(sys.argv[1]), 'consumer'))")
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    run = subprocess.run([sys.executable, "-S", "-c", code, str(tmp_path / "seeds")], cwd=cwd, capture_output=True,
                         text=True, timeout=120, env={"PYTHONPATH": f"{installed}:{site_packages}", "PATH": "/usr/bin"})
    assert run.returncode == 0, run.stderr
    where, seeds = run.stdout.split()
    assert Path(where).is_relative_to(installed)
    assert int(seeds) > 0


@pytest.mark.slow
def test_a_first_run_that_compiles_says_so_and_the_next_one_does_not(wheel, tmp_path):
    """A fresh install (the wheel unpacked, no machine code cached yet) compiles the numba kernels on the first
    command that loads the sticky assignors: the user is told, once; the next run loads them from the cache."""
    installed = tmp_path / "installed"
    zipfile.ZipFile(wheel).extractall(installed)
    site_packages = next(p for p in sys.path if p.endswith("site-packages"))
    env = {"PYTHONPATH": f"{installed}:{site_packages}", "PATH": "/usr/bin", "HOME": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-S", "-m", "assigncheck.ci", "list"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=600) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0] and runs[0].stdout == runs[1].stdout
    assert runs[0].stderr.count("compiling its numba kernels") == 1, runs[0].stderr
    assert "compiling" not in runs[1].stderr, runs[1].stderr


def test_type_checker_covers_the_package():
    """`make test` runs mypy over the whole package, which is marked typed."""
    assert PYPROJECT["tool"]["mypy"]["packages"] == ["assigncheck"]
    assert (PACKAGE / "py.typed").is_file()


def test_the_package_is_an_ordinary_src_layout():
    """setuptools finds the package under src/ (no folder mapped in by hand), and a tool that reads imports from
    the sources sees one package: every folder with Python under src/assigncheck is a regular package."""
    assert PYPROJECT["tool"]["setuptools"]["packages"]["find"]["where"] == ["src"]
    assert "package-dir" not in PYPROJECT["tool"]["setuptools"]
    tops = [p.name for p in (ROOT / "src").iterdir() if p.is_dir() and not p.name.endswith(".egg-info")]
    assert tops == ["assigncheck"]
    folders = {p.parent for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    assert not [str(f) for f in folders if not (f / "__init__.py").is_file()]


def test_console_script_starts_fast_without_heavy_engines():
    code = ("import sys; from assigncheck.ci.cli import build_parser; build_parser(); "
            "heavy = [m for m in ('pyspark', 'z3', 'atheris', 'ortools') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
