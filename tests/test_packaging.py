"""The distribution: a built wheel holds every subpackage under assigncheck/ and nothing generic at the top."""

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"spec", "impl", "verify", "fuzz", "live", "spark", "ci"}


def test_wheel_file_list(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path), str(ROOT)], check=True, capture_output=True, timeout=300)
    (wheel,) = tmp_path.glob("assigncheck-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"assigncheck", wheel.name.split("-py3")[0] + ".dist-info"}, tops
    packaged = {n.rsplit("/", 1)[0] for n in names if n.endswith("/__init__.py")}
    expected = {f"assigncheck/{p.parent.relative_to(ROOT).as_posix()}"
                for folder in FOLDERS for p in (ROOT / folder).rglob("__init__.py")
                if "__pycache__" not in p.parts}
    assert packaged == expected  # every subpackage in the tree made it into the wheel
    assert "assigncheck/ci/templates/github-actions.yml" in names
    assert "assigncheck/impl/targets/java_bridge/AssigncheckBridge.java" in names  # java: targets compile it
    assert "assigncheck/live/LiveMember.java" in names  # live groups' Java members compile it
    entry_points = zipfile.ZipFile(wheel).read(f"{wheel.name.split('-py3')[0]}.dist-info/entry_points.txt").decode()
    assert "assigncheck = assigncheck.ci.cli:main" in entry_points and "pytest11" in entry_points


def test_console_script_starts_fast_without_heavy_engines():
    code = ("import sys; from assigncheck.ci.cli import build_parser; build_parser(); "
            "heavy = [m for m in ('pyspark', 'z3', 'atheris', 'ortools') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
