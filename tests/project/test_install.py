"""The README's install commands, exactly as written, on a fresh clone into a fresh venv (slow: they install
every engine, from pip's cache when it has them)."""

import os
import re
import subprocess
import sys
import zipfile

import pytest

from tests.paths import ROOT


def readme_install_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Install\n"):text.index("## Quick start")]
    (block,) = re.findall(r"```\n(.*?)```", section, re.S)
    return [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]


def test_the_install_block_is_pip_commands_from_the_clone():
    commands = readme_install_commands()
    assert commands[0] == "pip install '.[all]'" and all(c.startswith("pip ") for c in commands)
    extras = {m for c in commands for m in re.findall(r"\.\[(\w+)\]", c)}
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert extras == set(declared) - {"dev"}  # every extra a user may want, and no other


@pytest.mark.slow
def test_the_readme_install_commands_work_as_written(tmp_path):
    clone = tmp_path / "assigncheck"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=300)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env.update(VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{env['PATH']}",
               PIP_CONSTRAINT=str(ROOT / "constraints.txt"))
    for command in readme_install_commands():
        run = subprocess.run(["bash", "-e", "-c", command], cwd=clone, env=env, capture_output=True, text=True,
                             timeout=1800)
        assert run.returncode == 0, (command, run.stdout[-2000:], run.stderr[-2000:])
    (wheel,) = (clone / "dist").glob("assigncheck-*.whl")
    assert "assigncheck/spec/model.py" in zipfile.ZipFile(wheel).namelist()
    listed = subprocess.run([str(venv / "bin" / "assigncheck"), "list"], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=600)
    assert listed.returncode == 0 and "sticky-constrained" in listed.stdout, listed.stderr
    gate = subprocess.run([str(venv / "bin" / "assigncheck"), "gate", "--target", "roundrobin", "--stages",
                           "properties,proofs", "--report-dir", str(tmp_path / "reports")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)
    assert gate.returncode == 0, gate.stdout[-2000:] + gate.stderr[-2000:]
