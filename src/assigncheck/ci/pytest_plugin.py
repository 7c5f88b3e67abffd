"""pytest plugin (`pytest11` entry point `assigncheck`): check your own assignor inside your test suite.

    def test_my_assignor_meets_the_spec(assigncheck):
        assigncheck.check(MyAssignor(), promises="balance=perfect,fixpoint")

    from assigncheck.generate import strategies   # the spec's hypothesis strategies, for your own properties

    @given(strategies.problems(equal_subscriptions=True))
    def test_my_property(problem): ...

`assigncheck.check` runs the chosen profile's stages (default: properties and proofs of the quick
profile; `--assigncheck-profile full`, `--assigncheck-stages ...` on the pytest command line) and fails
the test with each finding and its minimized reproducer (the JSON is in the message, and on disk).

A reproducer names the assignor as `module:object` when the object is reachable that way (a class, a function,
or an instance assigned at module level), so `assigncheck replay FILE` loads it, and the stages that run the
target in other processes (fuzz, campaign) can run; an object made inside a test has no such name: those
stages are refused with one line, and its reproducers say how to replay them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("assigncheck")
    group.addoption("--assigncheck-profile", default="quick", help="gate profile for the assigncheck fixture")
    group.addoption("--assigncheck-stages", default="properties,proofs",
                    help="comma-separated gate stages the assigncheck fixture runs")


class AssignCheck:
    """The `assigncheck` fixture: run gate stages on an assignor object and fail with the reproducers."""

    @property
    def strategies(self) -> Any:
        from assigncheck.generate import strategies

        return strategies

    def __init__(self, profile: str, stages: Sequence[str], report_dir: Path) -> None:
        self.profile, self.stages, self.report_dir = profile, tuple(stages), report_dir

    def check(self, assignor: Any, *, promises: str | None = None, stages: Sequence[str] | None = None,
              seed: int = 0, classpath: str | Sequence[str] = (), config: Mapping[str, str] | None = None) -> Any:
        """Run the stages on `assignor` (an object, or a target spec such as "java:CLASS", which also takes a
        `classpath`, as one os.pathsep-separated string or a list, and a `config` mapping)."""
        from assigncheck.ci.pipeline import Plan, run_gate
        from assigncheck.spec.errors import InputError

        stages = tuple(stages or self.stages)
        if isinstance(assignor, str):  # a target spec: loaded as the command line loads it
            target, root, how = _spec_target(assignor, promises, classpath, config), None, "assigncheck replay {file}"
        elif classpath or config:
            raise InputError("classpath", "applies to a target spec string such as 'java:CLASS', not an object")
        else:
            target, root = _object_target(assignor, promises, stages)
            how = _how_to_replay(target, root)
        with _on_python_path(root):
            result = run_gate([target], Plan.of(self.profile, self.report_dir, stages), seed)
        if result.exit_code:
            noted = not isinstance(assignor, str) and root is None  # its files say how to replay them
            pytest.fail(_failure(result, target.name, self.profile, how, noted), pytrace=False)
        return result


def _spec_target(spec: str, promises: str | None, classpath: str | Sequence[str],
                 config: Mapping[str, str] | None) -> Any:
    from assigncheck.ci.target_flags import pinned_classpath
    from assigncheck.formats.reproducer import TargetRef
    from assigncheck.targets.registry import load, probe

    given = tuple(classpath.split(os.pathsep) if isinstance(classpath, str) else classpath)
    jars, digests = pinned_classpath(tuple(j for j in given if j), "classpath")
    entries = tuple(sorted((config or {}).items()))
    return probe(load(TargetRef(spec, promises, jars, entries, digests=digests)))


def _object_target(assignor: Any, promises: str | None, stages: Sequence[str]) -> tuple[Any, Path | None]:
    """The object as a target (named `module:object` when it is one), and the directory its module needs on the
    path; an object made in a test is refused for the stages that load the target in other processes."""
    from assigncheck.formats.reproducer import TargetRef
    from assigncheck.spec.promises import Promises
    from assigncheck.targets.registry import Declared

    found = _import_path(assignor)
    elsewhere = [s for s in stages if s in OTHER_PROCESSES]
    if found is None and elsewhere:
        pytest.fail(f"assigncheck: the {', '.join(elsewhere)} stage runs the target in other processes, "
                    f"which load it by a 'module:object' name; {type(assignor).__name__} was made inside "
                    "the test: define it at module level, or leave those stages out", pytrace=False)
    target = _as_target(assignor, found[0] if found else None)
    if promises is not None:
        declared = Promises.parse(promises)
        target = Declared(target, declared, TargetRef(getattr(target, "spec", target.name), declared.to_text()))
    return target, found[1] if found else None


def _failure(result: Any, name: str, profile: str, how: str, noted: bool) -> str:
    """The test's failure: each failing finding (at most five), its reproducer and how to replay it."""
    import json

    from assigncheck.formats.documents import load_problem, problem_to_json

    lines = [f"assigncheck: {name} failed the {profile} gate:"]
    for f in [f for f in result.findings if f.fails][:5]:
        lines.append(f"- {f.stage} / {f.invariant}: {f.message}")
        if f.reproducer:
            if noted:
                _note(f.reproducer, how)
            doc = json.dumps(problem_to_json(load_problem(f.reproducer)))
            lines.append(f"  reproducer {f.reproducer} (replay: {how.format(file=f.reproducer)}):\n  {doc}")
    lines += [f"- {s.stage}: stage error: {s.error}" for s in result.stages if s.error]
    return "\n".join(lines)


OTHER_PROCESSES = ("fuzz", "campaign")  # the stages that load the target again in processes of their own


def _import_path(obj: Any) -> tuple[str, Path] | None:
    """`module:name` under which `obj` itself is a module-level attribute, and the directory that must be on the
    Python path for another process to import that module; None for an object made inside a function."""
    for module_name in (getattr(obj, "__module__", None), type(obj).__module__):
        module = sys.modules.get(module_name or "")
        file = getattr(module, "__file__", None)
        if module is None or module_name is None or module_name == "__main__" or not file:
            continue
        for name, value in vars(module).items():
            if value is obj and not name.startswith("_"):
                depth = module_name.count(".") + (Path(file).name == "__init__.py")
                return f"{module_name}:{name}", Path(file).resolve().parents[depth]
    return None


def _as_target(obj: Any, spec: str | None) -> Any:
    from assigncheck.targets.registry import from_object

    target: Any = from_object(getattr(obj, "name", None) or type(obj).__name__, obj)
    if spec is not None:
        target.spec = spec  # what a reproducer records, and how other processes load it
    return target


@contextmanager
def _on_python_path(root: Path | None) -> Iterator[None]:
    """The target's module importable by the gate's other processes (fuzz jobs, Spark tasks, H8's workers)."""
    if root is None:
        yield
        return
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), before]))
    try:
        yield
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before


def _how_to_replay(target: Any, root: Path | None) -> str:
    if root is not None:
        return f"PYTHONPATH={root} assigncheck replay {{file}}"
    return (f"assigncheck replay {{file}} --target MODULE:OBJECT (the file names {target.name!r}, an object made "
            "inside a test: give one importable as MODULE:OBJECT)")


def _note(path: str, how: str) -> None:
    """Say in the reproducer itself how to replay it, when its target name cannot be loaded."""
    from assigncheck.formats.documents import dumps, load_json
    from assigncheck.formats.reproducer import write_trusted

    doc = load_json(path)
    said = f"replay: {how.format(file=Path(path).name)}"
    if said not in str(doc.get("note", "")):
        doc["note"] = f"{doc.get('note', '')} {said}".strip()
        write_trusted(path, dumps(doc))


@pytest.fixture
def assigncheck(request: pytest.FixtureRequest, tmp_path: Path) -> AssignCheck:
    opts = request.config.option
    stages = [s.strip() for s in opts.assigncheck_stages.split(",") if s.strip()]
    return AssignCheck(opts.assigncheck_profile, stages, tmp_path / "assigncheck")
