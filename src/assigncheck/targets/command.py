"""`cmd:COMMAND` targets: an assignor in any language, spoken to over JSON lines.

The harness starts COMMAND once per worker (in its own session, so everything it starts is killed with it)
and keeps it running. One request at a time, one line each way.

Protocol version 1 (`cmd:COMMAND`): the request is the problem document of `formats.documents`
(`{"format": 1, "kind": "consumer", ...}`); the answer is `{"format": 1, "assignment": {member: {topic:
[indices]}}}`, or `{"format": 1, "error": "message"}` when the target gives up.

Protocol version 2 (`cmd2:COMMAND`): each request carries an id, `{"format": 2, "id": 7, "problem": {...}}`,
and the answer repeats it: `{"format": 2, "id": 7, "assignment": {...}}` or `{"format": 2, "id": 7, "error":
"message"}`. An answer to an earlier id (a late answer) is discarded. A program whose answers say `"batch":
true` also takes batch requests, `{"format": 2, "batch": [request, request, ...]}`: several single requests in
one line, each answered by its own answer line, in any order. The checker asks for the runs it knows it will make
of one problem (`prefetch`: twice, and listed in another order) in one round trip; a batch over one call's CPU
budget, or one that breaks the protocol or hangs, is dropped and its problems asked again one by one (and no
batch is sent to that program again), so a failure is always met, and judged, on a single request.

Either version may add `"exception"` (a type name) and `"frame"` (where it was raised) to an error answer: a
crash's identity, so two different crashes count as two bugs; and `"adapted"` to any answer: how the target
had to express the problem (e.g. claims its protocol cannot carry), which reports show beside its findings.

Whatever the version, an answer is only ever read from a process that has had no failure: a crash, an answer
that is not such a document, a hang past the wall-clock limit, CPU time past the budget, or any interruption
(Ctrl-C, the checker's own timer) kills the process group, and the next problem starts a fresh one. Output
the target writes out of turn (a second answer to one request) is discarded with the process before the next
request, and counted (`out_of_turn`). Standard error keeps only a bounded tail; an answer line is capped at
`MAX_ANSWER_BYTES` and read in linear time.

CPU time is read from /proc once per exchange, when its answer is in (and every `CPU_POLL_S` while it is
awaited): a call's CPU is the process tree's growth since the previous answer (the program waits for its
input in between), so a fresh process's start-up counts towards its first call.
"""

from __future__ import annotations

import json
import os
import selectors
import shlex
import signal
import subprocess
import time
from collections import deque
from collections.abc import Mapping, Sequence
from typing import IO, Any, NamedTuple

from assigncheck.formats.documents import assignment_from_json, dumps, parse_json, problem_to_json
from assigncheck.spec.errors import FormatError, InputError, TargetFailure, TargetUnavailable
from assigncheck.spec.model import AnyProblem, Assignment
from assigncheck.spec.promises import Promises
from assigncheck.toolchains.reaper import tree

PROTOCOLS = (1, 2)
MAX_ANSWER_BYTES = 256 << 20  # a 10 M-partition assignment is about 100 MB of JSON
STDERR_TAIL_BYTES = 2048
HANG_S = 60.0  # wall-clock limit per problem when the caller gives none: generous, since a busy machine is slow
CPU_POLL_S = 0.1
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class TargetError(TargetFailure):
    """The target failed on this problem (crash, hang, over budget, malformed or error reply)."""


def _proc_cpu(pid: int) -> float:
    """CPU seconds of a process (all its threads, and the children it has reaped) plus its live descendants,
    from /proc; 0 where /proc is not there."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except OSError:
        return 0.0
    total = sum(int(x) for x in fields[11:15]) / _TICKS  # utime, stime, cutime, cstime
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                total += sum(_proc_cpu(int(c)) for c in f.read().split())
    except OSError:
        pass
    return total


class _Prefetched(NamedTuple):
    """One answer of a batch, waiting for the call that asks for its problem."""

    problem: AnyProblem
    body: str  # the problem's JSON, as sent
    doc: dict[str, Any]
    cpu: float  # its share of the batch's CPU time


class CommandTarget:
    # The program starts in a session of its own, so that everything it starts dies with it. A worker process
    # (`targets.worker`) keeps its target's program in its own group instead: killing the worker kills it.
    own_session = True

    def __init__(self, command: str | list[str], *, protocol: int = 1, hang_s: float = HANG_S,
                 promises: Promises | None = None, name: str | None = None, timeout_s: float | None = None,
                 env: Mapping[str, str] | None = None, cwd: str | None = None) -> None:
        try:
            argv = shlex.split(command) if isinstance(command, str) else list(command)
        except ValueError as e:
            raise InputError("--target", f"cannot split the command {command!r}: {e}") from None
        if not argv:
            raise InputError("--target", "cmd: needs a command, e.g. cmd:'node roundrobin.js'")
        if protocol not in PROTOCOLS:
            raise InputError("--target", f"protocol version must be one of {PROTOCOLS}, got {protocol}")
        self.argv = argv
        self.protocol = protocol
        prefix = "cmd:" if protocol == 1 else f"cmd{protocol}:"
        self.name = name or f"{prefix}{command if isinstance(command, str) else shlex.join(argv)}"
        self.hang_s = timeout_s if timeout_s is not None else hang_s
        self.promises = promises or Promises()
        self.env = dict(env or {})  # added to the environment the program starts with
        self.cwd = cwd  # the directory it runs in (None: the current one)
        self.out_of_turn = 0  # answers written when none was asked for (discarded with their process)
        self.adapted = ""  # the last answer's "adapted" note
        self.batches = False  # the program said it takes batch requests (protocol 2: `"batch": true`)
        self.batching = True  # no batch has failed or gone over budget yet
        self._proc: subprocess.Popen[bytes] | None = None
        self._selector: selectors.BaseSelector | None = None
        self._cpu_mark = 0.0  # the process tree's CPU seconds when its last answer came in
        self._prefetched: deque[_Prefetched] = deque()
        self._seq = 0
        self._reset_buffers()

    def _reset_buffers(self) -> None:
        self._out = bytearray()
        self._err = bytearray()

    # Each worker process starts its own child: never pickle a running process.
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.update(_proc=None, _selector=None, _out=bytearray(), _err=bytearray(), _prefetched=deque())
        return state

    # ---- the process ------------------------------------------------------------------------------------

    def _start(self) -> subprocess.Popen[bytes]:
        self.close()
        try:
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, bufsize=0, start_new_session=self.own_session,
                                          env={**os.environ, **self.env} if self.env else None, cwd=self.cwd)
        except OSError as e:
            where = f" in {self.cwd}" if self.cwd else ""
            raise TargetUnavailable("--target", f"cannot start {self.argv[0]!r}{where}: {e.strerror or e}") from None
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            os.set_blocking(stream.fileno(), False)  # type: ignore[union-attr]  # PIPE: never None
        self._selector = selectors.DefaultSelector()  # one per process: an exchange only (un)registers stdin
        self._selector.register(self._proc.stdout, selectors.EVENT_READ, "out")  # type: ignore[arg-type]  # PIPE
        self._selector.register(self._proc.stderr, selectors.EVENT_READ, "err")  # type: ignore[arg-type]  # PIPE
        self._cpu_mark = 0.0
        self._reset_buffers()
        return self._proc

    def close(self) -> None:
        """Kill the process and everything it started (its session's process group, or its process tree)."""
        proc, self._proc = self._proc, None
        self._prefetched.clear()
        if self._selector is not None:
            self._selector.close()
            self._selector = None
        if proc is None:
            return
        for pid in [-proc.pid] if self.own_session else tree(proc.pid):
            try:
                os.kill(pid, signal.SIGKILL)  # a negative pid: the whole process group
            except (ProcessLookupError, PermissionError):
                pass
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream:
                stream.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def start(self) -> None:
        """Start the program now unless it runs (it then loads while the caller does something else)."""
        self._alive()

    def cpu_seconds(self) -> float:
        """CPU time the running process (and its descendants) has used so far."""
        return _proc_cpu(self._proc.pid) if self._proc is not None else 0.0

    def _alive(self) -> subprocess.Popen[bytes]:
        proc = self._proc
        if proc is None or proc.poll() is not None:
            return self._start()
        if self.protocol == 1 and (self._out or self._readable()):
            # it wrote when nobody asked (protocol 1 has no ids): never let that be read as an answer
            self.out_of_turn += 1
            return self._start()
        return proc

    def _readable(self) -> bool:
        assert self._selector is not None
        return any(key.data == "out" for key, _ in self._selector.select(0))

    # ---- one exchange -----------------------------------------------------------------------------------

    def _fail(self, what: str, cause: str, *, exited: bool = False) -> TargetError:
        proc = self._proc
        code = None
        if proc is not None:
            try:  # a process that closed its output is usually exiting: give it a moment to say how
                code = proc.wait(timeout=2) if exited else proc.poll()
            except subprocess.TimeoutExpired:
                code = None
            if exited and proc.stderr is not None:
                self._drain_stderr()
        tail = self._err.decode("utf-8", "replace").strip()[-400:]
        self.close()
        if code is not None and cause == "cmd.crash":
            cause = f"cmd.exit={code}" if code >= 0 else f"cmd.signal={signal.Signals(-code).name}"
        detail = what + (f"; exit code {code}" if code is not None else "") + (f"; stderr: {tail}" if tail else "")
        return TargetError(detail, cause)

    def _drain_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        try:
            while chunk := os.read(self._proc.stderr.fileno(), 1 << 16):
                self._err += chunk
                del self._err[:-STDERR_TAIL_BYTES]  # a bounded tail, whatever the target writes
        except (BlockingIOError, OSError):
            pass

    def _exchange(self, request: bytes, hang_s: float, cpu_limit: float | None) -> bytes:
        """Write `request` (if any) and read one answer line, draining stderr meanwhile; raise TargetError on any
        failure (the process is then dead). The process tree's CPU time is read once a line it waited for is in
        (and every CPU_POLL_S meanwhile when there is a `cpu_limit`)."""
        proc, sel = self._proc, self._selector
        assert proc is not None and sel is not None and proc.stdin and proc.stdout and proc.stderr
        now = time.monotonic()
        deadline, next_cpu = now + hang_s, now + CPU_POLL_S
        pending = memoryview(request)
        if pending:
            sel.register(proc.stdin, selectors.EVENT_WRITE, "in")
        searched, end, waited = 0, -1, False  # each byte is searched for the newline once
        try:
            while True:
                if end < 0:
                    end, searched = self._line_end(searched)
                if end >= 0 and not pending:  # (a line read with an earlier chunk is answered after the write)
                    return self._take_line(end, waited)
                now = time.monotonic()
                next_cpu = self._within_limits(now, deadline, hang_s, cpu_limit, next_cpu)
                waited = True
                pending = self._pump(proc, sel, pending,
                                     min(deadline - now, CPU_POLL_S) if cpu_limit is not None else deadline - now)
        finally:
            if self._selector is sel and proc.stdin in sel.get_map():  # still writing (the process lives on)
                sel.unregister(proc.stdin)

    def _line_end(self, searched: int) -> tuple[int, int]:
        """Where the first line in the output buffer ends (-1: no line yet), searching only the bytes after
        `searched`; and how far the buffer is searched now."""
        end = self._out.find(b"\n", searched)
        searched = len(self._out)
        if end < 0 and searched > MAX_ANSWER_BYTES:
            raise self._fail(f"answer over {MAX_ANSWER_BYTES >> 20} MiB without a line end", "cmd.malformed")
        return end, searched

    def _take_line(self, end: int, waited: bool) -> bytes:
        line = bytes(self._out[:end])
        del self._out[: end + 1]
        if waited:  # (a line that came with an earlier one came with its CPU time too)
            self._cpu_mark = self.cpu_seconds()
        return line

    def _within_limits(self, now: float, deadline: float, hang_s: float, cpu_limit: float | None,
                       next_cpu: float) -> float:
        """Raise TargetError past the hang deadline or the CPU limit (read every CPU_POLL_S); the next CPU read."""
        if now >= deadline:
            raise self._fail(f"hang: no answer within {hang_s:g} s (wall clock)", "cmd.hang")
        if cpu_limit is None or now < next_cpu:
            return next_cpu
        if self.cpu_seconds() > cpu_limit:
            raise self._fail("over its CPU budget: still computing", "cmd.timeout")
        return now + CPU_POLL_S

    def _pump(self, proc: subprocess.Popen[bytes], sel: selectors.BaseSelector, pending: memoryview,
              timeout: float) -> memoryview:
        """Wait up to `timeout` for the process's pipes, then write what is pending of the request, drain stderr
        and read its output into the buffer; what is still to write."""
        assert proc.stdin and proc.stdout  # PIPE: never None
        for key, _ in sel.select(timeout):
            if key.data == "in":
                pending = self._write(proc.stdin, sel, pending)
            elif key.data == "err":
                self._drain_stderr()
            else:
                self._read(proc.stdout)
        return pending

    def _write(self, stdin: IO[bytes], sel: selectors.BaseSelector, pending: memoryview) -> memoryview:
        try:
            written = os.write(stdin.fileno(), pending)
        except BlockingIOError:
            return pending
        except OSError:  # EPIPE: it stopped reading
            raise self._fail("crash: the process stopped reading its input", "cmd.crash", exited=True) from None
        pending = pending[written:]
        if not pending:
            sel.unregister(stdin)
        return pending

    def _read(self, stdout: IO[bytes]) -> None:
        try:
            chunk = os.read(stdout.fileno(), 1 << 20)
        except BlockingIOError:
            return
        if not chunk:
            raise self._fail("crash: the process closed its output", "cmd.crash", exited=True)
        self._out += chunk

    def _body(self, problem: AnyProblem) -> str:
        return dumps(problem_to_json(problem))

    def _request(self, body: str, request_id: int) -> str:
        return f'{{"format":2,"id":{request_id},"problem":{body}}}' if self.protocol == 2 else body

    def _answer(self, line: bytes) -> dict[str, Any]:
        try:  # the safe reader: no repeated keys, bounded nesting and numbers
            doc = parse_json(line, "answer")
        except FormatError as e:
            raise self._fail(f"malformed answer (not JSON): {e.message}: {line[:200]!r}", "cmd.malformed") from None
        if not isinstance(doc, dict):
            raise self._fail(f"malformed answer (not an object): {line[:200]!r}", "cmd.malformed")
        return doc

    def assign(self, problem: AnyProblem) -> Assignment:
        return self.assign_metered(problem)[0]

    def assign_metered(self, problem: AnyProblem, *, cpu_budget_s: float | None = None,
                       hang_s: float | None = None) -> tuple[Assignment, float]:
        """The target's answer and the CPU seconds its process spent on it. Over `cpu_budget_s` of CPU, or
        `hang_s` of wall clock (default: the target's own limit), it is stopped: TargetError. An answer
        `prefetch` got for this very problem, next in line, is served instead of asking again."""
        body = None
        if self._prefetched:
            head = self._prefetched.popleft()
            if head.problem is problem or head.body == (body := self._body(problem)):
                return self._result(head.doc), head.cpu
            self._prefetched.clear()  # the calls went another way: nothing prefetched is served any more
        self._alive()
        self._seq += 1
        cpu0 = self._cpu_mark
        request = (self._request(body or self._body(problem), self._seq) + "\n").encode("utf-8", "surrogatepass")
        try:
            while True:
                doc = self._answer(self._exchange(
                    request, hang_s or self.hang_s, None if cpu_budget_s is None else cpu0 + cpu_budget_s))
                request = b""
                if self.protocol == 1 or doc.get("id") == self._seq:
                    break
                if _earlier(doc.get("id"), self._seq):
                    continue  # a late answer to an earlier request: never this one's
                raise self._fail(f"answer id {doc.get('id')!r} to request {self._seq}", "cmd.malformed")
        except BaseException:
            self.close()  # interrupted mid-exchange (Ctrl-C, a timer): its pending answer must never be read
            raise
        return self._result(doc), max(0.0, self._cpu_mark - cpu0)

    def _result(self, doc: dict[str, Any]) -> Assignment:
        """The assignment an answer carries, or the TargetError it amounts to."""
        self.adapted = str(doc.get("adapted", ""))[:500]
        if self.protocol == 2 and doc.get("batch") is True:
            self.batches = True
        if "error" in doc:
            exception, frame = doc.get("exception"), doc.get("frame")
            cause = f"{exception}@{frame}" if exception and frame else str(exception or "cmd.error")
            raise TargetError(f"target reported an error: {str(doc['error'])[:500]}", cause[:300])
        if doc.get("format") != self.protocol or "assignment" not in doc:
            self.close()
            raise TargetError(f"malformed answer: expected {{\"format\": {self.protocol}, \"assignment\": ...}}, "
                              f"got {json.dumps(doc)[:200]}", "cmd.malformed")
        try:
            return assignment_from_json({"format": 1, "assignment": doc["assignment"],
                                         **({"standby": doc["standby"]} if "standby" in doc else {})})
        except FormatError as e:
            raise TargetError(f"malformed answer: {e}", "cmd.malformed") from None

    def prefetch(self, problems: Sequence[AnyProblem], *, cpu_budget_s: float | None = None,
                 hang_s: float | None = None) -> None:
        """Ask for the answers to `problems` in one batch request, for the calls that ask for them next, in this
        order (`assign_metered` serves them; an error answer is that call's). Only a program that said it takes
        batches gets one. A batch that dies, hangs, breaks the protocol or spends more CPU than one call's
        budget is dropped, and its problems are asked again one by one, where the failure is met and judged;
        after a hang, a protocol break or a batch over budget the program gets no batch again."""
        self._prefetched.clear()
        if self.protocol != 2 or not (self.batches and self.batching) or len(problems) < 2:
            return
        self._alive()
        bodies = self._bodies(problems)
        first, self._seq = self._seq + 1, self._seq + len(problems)
        line = ('{"format":2,"batch":[' + ",".join(self._request(bodies[id(p)], first + k)
                                                   for k, p in enumerate(problems)) + "]}\n")
        cpu0 = self._cpu_mark
        limit = None if cpu_budget_s is None else cpu0 + cpu_budget_s * len(problems)
        try:
            answers = self._batch_answers(line.encode("utf-8", "surrogatepass"), first, hang_s or self.hang_s, limit)
        except TargetError as e:  # the process is gone: each call asks again, alone
            if e.cause in ("cmd.hang", "cmd.timeout", "cmd.malformed"):
                self.batching = False
            return
        except BaseException:
            self.close()
            raise
        cpu = max(0.0, self._cpu_mark - cpu0)
        if cpu_budget_s is not None and cpu > cpu_budget_s:
            self.batching = False  # which call spent it is unknown: each is asked again, and metered, alone
            return
        self._prefetched.extend(_Prefetched(p, bodies[id(p)], answers[first + k], cpu / len(problems))
                                for k, p in enumerate(problems))

    def _bodies(self, problems: Sequence[AnyProblem]) -> dict[int, str]:
        """Each distinct problem object's JSON, made once."""
        bodies: dict[int, str] = {}
        for p in problems:
            if id(p) not in bodies:
                bodies[id(p)] = self._body(p)
        return bodies

    def _batch_answers(self, request: bytes, first: int, hang_s: float, cpu_limit: float | None
                       ) -> dict[int, dict[str, Any]]:
        """The answers to the batch `request` of ids `first` to `self._seq`, by id; TargetError (the process is
        then dead) on an answer to no request of the batch."""
        answers: dict[int, dict[str, Any]] = {}
        while len(answers) <= self._seq - first:
            doc = self._answer(self._exchange(request, hang_s, cpu_limit))
            request = b""
            rid = doc.get("id")
            if _earlier(rid, first):
                continue  # a late answer to a request before this batch
            if type(rid) is not int or rid > self._seq or rid in answers:
                raise self._fail(f"answer id {rid!r} to a batch of requests {first}-{self._seq}", "cmd.malformed")
            answers[rid] = doc
        return answers


def _earlier(request_id: Any, than: int) -> bool:
    return type(request_id) is int and request_id < than


def relative_paths(command: str) -> list[str]:
    """The words of `command` that name a path relative to the directory it runs in (`./my-assignor`,
    `js/targets/kafkajs-roundrobin.js`, `.venv/bin/driver`: a word with a slash that is neither absolute nor an
    option, nor a script for a shell)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return []
    return [w for w in words if "/" in w and not w.startswith(("/", "-", "~")) and "://" not in w
            and not any(c.isspace() or c in "=;|&<>$`*?" for c in w)]


def load(command: str, *, cwd: str | None = None) -> CommandTarget:
    return CommandTarget(command, cwd=cwd)


def load_v2(command: str, *, cwd: str | None = None) -> CommandTarget:
    return CommandTarget(command, protocol=2, cwd=cwd)


__all__ = [
    "CPU_POLL_S", "CommandTarget", "HANG_S", "MAX_ANSWER_BYTES", "PROTOCOLS", "STDERR_TAIL_BYTES", "TargetError",
    "load", "load_v2", "relative_paths"
]
