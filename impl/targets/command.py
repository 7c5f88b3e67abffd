"""`cmd:COMMAND` targets: an assignor in any language, spoken to over JSON lines (protocol v1).

The harness starts COMMAND once per worker and keeps it running. For each problem it writes one line,
the problem document of `spec.json_format` (`{"format": 1, ...}`), and reads one line back: an
assignment document `{"format": 1, "assignment": {member: {topic: [indices]}}}`, or
`{"format": 1, "error": "message"}` when the target gives up. A crash, a hang past the per-problem
timeout, a malformed reply or an error reply raises `TargetError`; the checker records it as an H7
finding with the problem as reproducer, and the next problem starts a fresh process.
"""

from __future__ import annotations

import json
import os
import selectors
import shlex
import subprocess
import tempfile
import time
from typing import Any

from assigncheck.spec.errors import FormatError, InputError
from assigncheck.spec.json_format import assignment_from_json, dumps, problem_to_json
from assigncheck.spec.model import AnyProblem, Assignment
from assigncheck.spec.promises import Promises

PROTOCOL_VERSION = 1


class TargetError(RuntimeError):
    """The target failed on this problem (crash, hang, malformed or error reply)."""


class CommandTarget:
    def __init__(self, command: str, *, timeout_s: float = 10.0, promises: Promises | None = None) -> None:
        try:
            argv = shlex.split(command)
        except ValueError as e:  # an unterminated quote
            raise InputError("--target", f"cmd:{command} is not a command line: {e}") from None
        if not argv:
            raise InputError("--target", "cmd: needs a command, e.g. cmd:'java -cp build RangeAssignor'")
        self.argv = argv
        self.name = f"cmd:{command}"
        self.timeout_s = timeout_s
        self.promises = promises or Promises()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: Any = None
        self._buffer = b""

    # Each worker process starts its own child: never pickle a running process.
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.update(_proc=None, _stderr=None, _buffer=b"")
        return state

    def _start(self) -> subprocess.Popen[bytes]:
        self.close()
        self._stderr = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, bufsize=0
            )
        except OSError as e:
            raise InputError("--target", f"cannot start {self.argv[0]!r}: {e.strerror or e}") from None
        self._buffer = b""
        return self._proc

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait()
            for stream in (self._proc.stdin, self._proc.stdout):
                if stream:
                    stream.close()
            self._proc = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0, os.SEEK_END)
        size = self._stderr.tell()
        self._stderr.seek(max(0, size - 400))
        return self._stderr.read().decode("utf-8", "replace").strip()

    def _fail(self, what: str, *, exited: bool = False) -> TargetError:
        proc = self._proc
        code = None
        if proc is not None:
            try:  # a process that closed its output is usually exiting: give it a moment to report how
                code = proc.wait(timeout=2) if exited else proc.poll()
            except subprocess.TimeoutExpired:
                code = None
        tail = self._stderr_tail()
        self.close()
        detail = f"{what}" + (f"; exit code {code}" if code is not None else "") + (f"; stderr: {tail}" if tail else "")
        return TargetError(detail)

    def _readline(self, deadline: float) -> bytes:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise self._fail(f"hang: no reply within {self.timeout_s:g} s")
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise self._fail("crash: the process closed its output", exited=True)
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def assign(self, problem: AnyProblem) -> Assignment:
        proc = self._proc if self._proc is not None and self._proc.poll() is None else self._start()
        request = (dumps(problem_to_json(problem)) + "\n").encode()
        try:
            assert proc.stdin is not None
            proc.stdin.write(request)
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._fail("crash: the process stopped reading its input", exited=True) from None
        line = self._readline(time.monotonic() + self.timeout_s)
        try:
            doc = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise self._fail(f"malformed reply (not JSON): {line[:200]!r}") from None  # stream out of step
        if isinstance(doc, dict) and "error" in doc:
            raise TargetError(f"target reported an error: {str(doc['error'])[:500]}")
        try:
            return assignment_from_json(doc)
        except FormatError as e:
            raise TargetError(f"malformed reply: {e}") from None


def load(command: str) -> CommandTarget:
    return CommandTarget(command)
