"""Any target in a process of its own: H8 across processes compares two of them.

    python -m assigncheck.targets.worker REFERENCE

loads the target a reference names (`targets.registry.load`: a built-in, `package.module:object`, kafka-python,
`cmd:`, `java:` ...) and serves it over the `cmd:` protocol's version 2, batch requests included, on the
standard output it had when it started: whatever the target prints goes to standard error. A `cmd:` or `java:`
target's own program runs under the worker, with the worker's environment. `in_own_process(ref, env)` is that
worker as a target of its own (`CommandTarget`), started with `env` added to its environment.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

from assigncheck.formats.bounded import bounded
from assigncheck.formats.reproducer import TargetRef
from assigncheck.targets.command import CommandTarget


def in_own_process(ref: TargetRef, env: Mapping[str, str], name: str = "") -> CommandTarget:
    """The target `ref` names, run by a worker process of its own started with `env` in its environment."""
    return CommandTarget([sys.executable, "-m", "assigncheck.targets.worker", ref.key()], protocol=2,
                         env=env, name=name or ref.spec)


def _answer(target: Any, request: dict[str, Any]) -> dict[str, Any]:
    from assigncheck.formats.documents import assignment_to_json, problem_from_json
    from assigncheck.run.calls import crash_cause
    from assigncheck.spec.errors import TargetFailure

    doc: dict[str, Any] = {"format": 2, "id": request.get("id"), "batch": True}
    try:
        out = target.assign(problem_from_json(request["problem"]))
        return {**doc, **{k: v for k, v in assignment_to_json(out).items() if k != "format"}}
    except TargetFailure as e:  # a cmd: or java: target under the worker: its failure, as the harness saw it
        return {**doc, "error": bounded(str(e)), "exception": e.cause}
    except Exception as e:  # noqa: BLE001 - the target's crash, with its identity
        exception, _, frame = crash_cause(e).partition("@")
        return {**doc, "error": bounded(f"{type(e).__name__}: {e}"), "exception": exception, "frame": frame}


def main(argv: list[str]) -> int:
    from assigncheck.formats.documents import dumps, parse_json
    from assigncheck.targets.registry import load

    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # the target's own prints never pass for answers
    sys.stdout = sys.stderr
    CommandTarget.own_session = False  # a cmd:/java: program dies with this worker, whoever kills it
    target = load(TargetRef.parse(argv[0]))
    for line in sys.stdin:
        request = parse_json(line, "request")
        lines = [dumps(_answer(target, one)) + "\n" for one in request.get("batch", [request])]
        answers.write("".join(lines))
        answers.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
