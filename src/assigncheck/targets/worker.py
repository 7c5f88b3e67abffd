"""Any target in a process of its own: H8 across processes compares two of them.

    python -m assigncheck.targets.worker REFERENCE

loads the target a reference names (`targets.registry.load`: a built-in, `package.module:object`, kafka-python,
`cmd:`, `java:` ...) and serves it over the `cmd:` protocol's version 2, batch requests included, on the
standard output it had when it started: whatever the target prints goes to standard error. A `cmd:` or `java:`
target's own program runs under the worker, with the worker's environment. `in_own_process(ref, env)` is that
worker as a target of its own (`CommandTarget`), started with `env` added to its environment. The worker ends when
its input closes, whatever threads the target started, or when the process that started it is gone.
"""

from __future__ import annotations

import os
import sys
import threading
import time
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
    _halt_with_parent()
    target = load(TargetRef.parse(argv[0]))
    try:
        for line in sys.stdin:
            request = parse_json(line, "request")
            lines = [dumps(_answer(target, one)) + "\n" for one in request.get("batch", [request])]
            answers.write("".join(lines))
            answers.flush()
    finally:
        close = getattr(target, "close", None)
        if close is not None:
            close()
    return 0


def _halt_with_parent() -> None:
    """End this process when the one that started it is gone (the gate killed by SIGKILL while a call is still
    running: its input is then never read again): it is re-parented, and a watcher sees its parent change."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os._exit(4)

    threading.Thread(target=watch, name="assigncheck-parent-watch", daemon=True).start()


PARENT_POLL_S = 0.5

if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stderr.flush()
    os._exit(code)  # input closed: a thread the target left running does not keep this process alive


__all__ = [
    "PARENT_POLL_S", "in_own_process", "main"
]
