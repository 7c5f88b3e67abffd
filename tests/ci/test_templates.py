"""The CI templates never give a green for work the gate did not do: the GitHub Actions workflow installs every
stage's engine, caches pip, declares its permissions and runs once per pull request; the pre-commit hook names
the stages it runs and installs their engines. The slow tests run each template's shell steps, read from the
YAML with the user's parts swapped for tests/example_project/, in a fresh venv under CI=true."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement

from assigncheck.ci.engines import EXTRAS, STAGE_ENGINES
from assigncheck.ci.stages import FULL_ONLY, STAGES
from tests.paths import PACKAGE, ROOT

ACTIONS = PACKAGE / "ci" / "templates" / "github-actions.yml"
HOOKS = ROOT / ".pre-commit-hooks.yaml"
EXAMPLE = ROOT / "tests" / "example_project"
# The user's parts of the templates, and the example project's in their place.
USER_PARTS = {"mypackage.assignor:MyAssignor": "my_assignor:SimpleRoundRobin",
              "balance=perfect,fixpoint": "balance=per-topic"}


def _workflow() -> dict:
    return yaml.safe_load(ACTIONS.read_text(encoding="utf-8"))


def _steps() -> list[dict]:
    return _workflow()["jobs"]["gate"]["steps"]


def _uses(action: str) -> dict:
    (step,) = [s for s in _steps() if s.get("uses", "").startswith(f"{action}@")]
    return step


def _run_steps() -> list[str]:
    return [s["run"] for s in _steps() if "run" in s]


def _hook() -> dict:
    (hook,) = yaml.safe_load(HOOKS.read_text(encoding="utf-8"))
    return hook


def _stages_named(argv: list[str]) -> tuple[str, ...]:
    return tuple(argv[argv.index("--stages") + 1].split(",")) if "--stages" in argv else STAGES


def _extras(stages: tuple[str, ...]) -> set[str]:
    return {EXTRAS[m] for s in stages for m in STAGE_ENGINES[s]}


def _gate_argv() -> list[str]:
    (command,) = [r for r in _run_steps() if r.startswith("assigncheck gate")]
    return shlex.split(command)


def test_the_workflow_runs_once_per_pull_request():
    triggers = _workflow()[True]  # YAML 1.1 reads the key `on` as true
    assert set(triggers) == {"pull_request", "push"}
    assert triggers["push"] == {"branches": ["main"]}  # not every branch's push: a pull request's runs once


def test_the_workflow_declares_the_permissions_it_uses():
    assert _workflow()["permissions"] == {"contents": "read", "checks": "write"}
    _uses("actions/checkout")  # reads the contents
    junit = _uses("mikepenz/action-junit-report")  # writes a check run, except on a fork's read-only token
    assert "fork" in junit["with"]["annotate_only"]


def test_the_workflow_caches_pip_and_brings_java():
    python = _uses("actions/setup-python")["with"]
    assert python["cache"] == "pip"
    path = ACTIONS.read_text(encoding="utf-8").split(":")[0].removeprefix("# ")  # where its first line puts it
    assert path in python["cache-dependency-path"].split()  # the key changes with the assigncheck it pins
    assert _uses("actions/setup-java")["with"]["java-version"] == "17"


def test_the_workflow_installs_every_extra_its_gate_runs():
    argv = _gate_argv()
    assert "--stages" not in argv  # all four stages: under CI a gate missing one fails instead of passing
    requirement = Requirement(_workflow()["env"]["ASSIGNCHECK"])
    assert requirement.name == "assigncheck" and requirement.url  # not on PyPI: a git URL or a wheel
    assert _extras(_stages_named(argv)) <= requirement.extras
    (install,) = [r for r in _run_steps() if '"$ASSIGNCHECK"' in r]
    assert install.splitlines()[0] == 'python -m pip install "$ASSIGNCHECK"'


def test_the_pre_commit_hook_names_and_installs_its_stages():
    assert HOOKS.read_text(encoding="utf-8") == (PACKAGE / "ci" / "templates" / "pre-commit-hooks.yaml").read_text(
        encoding="utf-8")  # the packaged copy is the one pre-commit reads
    hook = _hook()
    stages = _stages_named(shlex.split(hook["entry"]))
    assert "--stages" in hook["entry"] and set(stages) < set(STAGES)
    assert f"assigncheck gate: {', '.join(stages)} (" in hook["name"]  # pre-commit prints the name as it passes
    assert all(s in hook["name"] for s in STAGES if s not in stages)  # and where the others run
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert sorted(hook["additional_dependencies"]) == sorted(d for e in _extras(stages) for d in extras[e])


# --- the templates' steps, for real -----------------------------------------------------------------------------

def _fresh_venv(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A new venv and the environment of a CI runner using it: CI=true, its bin first on PATH, the pinned versions
    (constraints.txt, so pip's cache answers) and a step summary file."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env.update(CI="true", VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{env['PATH']}",
               PIP_CONSTRAINT=str(ROOT / "constraints.txt"), GITHUB_STEP_SUMMARY=str(tmp_path / "step-summary.md"))
    return venv, env


def _example_project(tmp_path: Path) -> Path:
    """tests/example_project/ as a user's repository: its assignors and the metadata `pip install -e .` needs."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(EXAMPLE / "my_assignor.py", project)
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "example-assignors"\nversion = "0"\n[tool.setuptools]\npy-modules = ["my_assignor"]\n',
        encoding="utf-8")
    return project


def _for_example(command: str) -> str:
    for user, example in USER_PARTS.items():
        assert user in command, user
        command = command.replace(user, example)
    return command


def _bash(command: str, cwd: Path, env: dict[str, str], timeout: int) -> subprocess.CompletedProcess:
    # GitHub's default shell for `run:` on Linux runners: bash -e
    return subprocess.run(["bash", "-e", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _stages_run(report_dir: Path) -> set[str]:
    doc = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    return {s["stage"] for s in doc["stages"]
            if s["error"] is None and "skipped" not in s["stats"] and s["work"] and s["work"]["done"] > 0}


def _one_line_exit_2(run: subprocess.CompletedProcess, extras: set[str]) -> None:
    assert run.returncode == 2, run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert f"assigncheck[{','.join(sorted(extras))}]" in line, line


@pytest.mark.slow
def test_the_workflow_s_steps_run_all_four_stages_in_a_fresh_venv(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist),
                    str(ROOT)], check=True, capture_output=True, timeout=300)
    (wheel,) = dist.glob("assigncheck-*.whl")
    venv, env = _fresh_venv(tmp_path)
    project = _example_project(tmp_path)
    pinned = Requirement(_workflow()["env"]["ASSIGNCHECK"])  # the same extras, from this tree's wheel
    env["ASSIGNCHECK"] = f"{pinned.name}[{','.join(sorted(pinned.extras))}] @ {wheel.as_uri()}"
    install, gate = _run_steps()
    step = _bash(install, project, env, timeout=1800)
    assert step.returncode == 0, step.stdout + step.stderr
    step = _bash(_for_example(gate), project, env, timeout=1200)
    assert step.returncode == 0, step.stderr
    assert _stages_run(project / "assigncheck-report") == set(STAGES) - set(FULL_ONLY)
    assert "## assigncheck gate (quick): passed" in (tmp_path / "step-summary.md").read_text(encoding="utf-8")

    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "uninstall", "-q", "-y", "atheris"], check=True,
                   env=env, timeout=300)
    _one_line_exit_2(_bash(_for_example(gate), project, env, timeout=300), {"fuzz"})


@pytest.mark.slow
def test_the_pre_commit_hook_runs_the_stages_it_names_in_a_fresh_venv(tmp_path):
    hook = _hook()
    venv, env = _fresh_venv(tmp_path)
    project = _example_project(tmp_path)
    # what pre-commit's python language does: this repository and the hook's dependencies in a venv of its own
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(ROOT),
                    *hook["additional_dependencies"]], check=True, env=env, timeout=1800)
    args = _for_example("--target mypackage.assignor:MyAssignor --promises balance=perfect,fixpoint")
    step = _bash(f"{hook['entry']} {args}", project, env, timeout=600)
    assert step.returncode == 0, step.stderr
    assert _stages_run(project / "reports") == set(_stages_named(shlex.split(hook["entry"])))
    # the same venv lacks the other stages' engines: under CI the gate without --stages refuses, in one line
    _one_line_exit_2(_bash(f"assigncheck gate {args}", project, env, timeout=300), {"fuzz", "spark"})
