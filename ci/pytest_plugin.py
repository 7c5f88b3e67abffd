"""pytest plugin (`pytest11` entry point `assigncheck`): check your own assignor inside your test suite.

    def test_my_assignor_meets_the_spec(assigncheck):
        assigncheck.check(MyAssignor(), promises="balance=perfect,fixpoint")

    from assigncheck.generate import strategies   # the spec's hypothesis strategies, for your own properties

    @given(strategies.problems(equal_subscriptions=True))
    def test_my_property(problem): ...

`assigncheck.check` runs the chosen profile's stages (default: properties and proofs of the quick
profile; `--assigncheck-profile full`, `--assigncheck-stages ...` on the pytest command line) and fails
the test with each finding and its minimized reproducer (the JSON is in the message, and on disk).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
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
        from assigncheck.formats.documents import load_problem, problem_to_json
        from assigncheck.formats.reproducer import TargetRef
        from assigncheck.impl.registry import Declared, load, probe
        from assigncheck.spec.errors import InputError
        from assigncheck.spec.promises import Promises

        if isinstance(assignor, str):  # a target spec: loaded as the command line loads it
            jars = tuple(classpath.split(os.pathsep) if isinstance(classpath, str) else classpath)
            entries = tuple(sorted((config or {}).items()))
            target = probe(load(TargetRef(assignor, promises, tuple(j for j in jars if j), entries)))
        elif classpath or config:
            raise InputError("classpath", "applies to a target spec string such as 'java:CLASS', not an object")
        else:
            target = _as_target(assignor)
            if promises is not None:
                declared = Promises.parse(promises)
                target = Declared(target, declared, TargetRef(target.name, declared.to_text()))
        result = run_gate([target], Plan.of(self.profile, self.report_dir, stages or self.stages), seed)
        if result.exit_code:
            lines = [f"assigncheck: {target.name} failed the {self.profile} gate:"]
            for f in [f for f in result.findings if f.fails][:5]:
                lines.append(f"- {f.stage} / {f.invariant}: {f.message}")
                if f.reproducer:
                    import json

                    doc = json.dumps(problem_to_json(load_problem(f.reproducer)))
                    lines.append(f"  reproducer {f.reproducer}:\n  {doc}")
            lines += [f"- {s.stage}: stage error: {s.error}" for s in result.stages if s.error]
            pytest.fail("\n".join(lines), pytrace=False)
        return result


def _as_target(obj: Any) -> Any:
    from assigncheck.impl.registry import from_object

    return from_object(getattr(obj, "name", type(obj).__name__), obj)


@pytest.fixture
def assigncheck(request: pytest.FixtureRequest, tmp_path: Path) -> AssignCheck:
    opts = request.config.option
    stages = [s.strip() for s in opts.assigncheck_stages.split(",") if s.strip()]
    return AssignCheck(opts.assigncheck_profile, stages, tmp_path / "assigncheck")
