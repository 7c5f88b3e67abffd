"""What the export tests share: the kept findings that are bugs (a `finding.<library>.verdict` of "bug"), the framework
that exports each, and running an exported directory's own test command (`pytest`, `node --test`, `go test`, `mvn
test`) as its user would, to read its verdict and the rule it states."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from assigncheck.findings.export.reach import language_of
from assigncheck.formats.reproducer import TargetRef
from tests.paths import ROOT

RUN_S = 600.0  # one exported run: Maven's first JUnit download, a cold Go build cache


@dataclass(frozen=True)
class Kept:
    """A kept finding: its file (relative to the clone), verdict block and the framework that exports it."""

    path: str
    verdict: dict
    language: str | None

    @property
    def name(self) -> str:
        return Path(self.path).stem

    @property
    def report(self) -> Path:
        return ROOT / Path(self.path).with_suffix(".md")


def kept() -> list[Kept]:
    out = []
    for path in sorted((ROOT / "examples").glob("*-findings/*.json")):
        finding = json.loads(path.read_text()).get("finding", {})
        verdicts = [v for v in finding.values() if isinstance(v, dict) and "verdict" in v]
        if verdicts:
            language = language_of(TargetRef.from_json(finding["target"]))
            out.append(Kept(str(path.relative_to(ROOT)), verdicts[0], language))
    return out


BUGS = [k for k in kept() if k.verdict["verdict"] == "bug"]


def export(path: str, language: str, out: Path, pythonpath: str = "") -> list[Path]:
    """`assigncheck export PATH --as LANGUAGE --out OUT` in a fresh process from the clone (where the files' relative
    target paths point): the files written. `pythonpath`: where a Python object target is imported from."""
    env = {**os.environ, "PYTHONPATH": pythonpath} if pythonpath else None
    done = subprocess.run([sys.executable, "-m", "assigncheck.ci", "export", path, "--as", language, "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=RUN_S, env=env)
    assert done.returncode == 0, done.stderr
    return [Path(line) if Path(line).is_absolute() else ROOT / line for line in done.stdout.split()]


@dataclass(frozen=True)
class Run:
    code: int
    output: str

    @property
    def red(self) -> bool:
        return self.code != 0


def _run(argv: list[str], cwd: Path, env: dict | None = None) -> Run:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=RUN_S,
                          env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)
    return Run(done.returncode, done.stdout + done.stderr)


def run_pytest(directory: Path, pythonpath: str = "") -> Run:
    """The exported pytest alone: its directory as the root, none of this suite's plugins or configuration."""
    env = {"PYTHONPATH": pythonpath} if pythonpath else {}
    return _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:assigncheck",
                 "-W", "ignore::DeprecationWarning", "--rootdir", str(directory), str(directory)], directory, env)


def run_node(directory: Path) -> Run:
    """npm ci (KafkaJS from the npm cache, or npm's registry) and node --test, as the exported package says."""
    installed = _run(["npm", "ci", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], directory)
    assert installed.code == 0, installed.output
    return _run(["node", "--test"], directory)


def run_go(directory: Path) -> Run:
    vet = _run(["go", "vet", "./..."], directory)
    assert vet.code == 0, vet.output
    unformatted = _run(["gofmt", "-l", "."], directory)
    assert unformatted.output.strip() == "", f"not gofmt-clean: {unformatted.output}"
    return _run(["go", "test", "-count=1", "./..."], directory)


def run_maven(directory: Path, kafka_version: str | None = None) -> Run:
    argv = [shutil.which("mvn") or "mvn", "-q", "-B", "test"]
    if kafka_version is not None:
        argv.append(f"-Dkafka.version={kafka_version}")
    return _run(argv, directory)


__all__ = ["BUGS", "Kept", "Run", "export", "kept", "run_go", "run_maven", "run_node", "run_pytest"]
