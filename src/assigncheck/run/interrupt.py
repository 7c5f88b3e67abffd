"""Ctrl-C and SIGTERM: one process-wide stop flag that the command line sets (`ctrl_c_stops`) and every long loop
checks (`stop_if_interrupted`), from the gate's stages down to minimization.

SIGTERM (what a CI runner sends on cancel or timeout) stops a command the way Ctrl-C does: every `finally` runs,
so work directories go, target processes are ended and the previous reports stay; the exit code says which
signal came (130 or 143). CPython ignores an exception raised inside a gc callback (hypothesis installs one), so
a KeyboardInterrupt can be lost there; the handler also sets the flag, and the loops check it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_INTERRUPTED = threading.Event()
_STOPPED_BY = [signal.SIGINT]


class Terminated(KeyboardInterrupt):
    """SIGTERM came: stop as for Ctrl-C, exit 143."""


def _stop() -> KeyboardInterrupt:
    return Terminated() if _STOPPED_BY[0] == signal.SIGTERM else KeyboardInterrupt()


def exit_code(stopped: KeyboardInterrupt) -> int:
    """What a shell reports for a process ended by the signal that stopped it: 130 (SIGINT) or 143 (SIGTERM)."""
    return 128 + (signal.SIGTERM if isinstance(stopped, Terminated) else signal.SIGINT)


def stop_if_interrupted() -> None:
    """Raise KeyboardInterrupt (Terminated for SIGTERM) if a stop signal came, even if its first exception was
    swallowed."""
    if _INTERRUPTED.is_set():
        raise _stop()


@contextmanager
def ctrl_c_stops() -> Iterator[None]:
    """While the block runs (main thread), Ctrl-C raises KeyboardInterrupt and SIGTERM Terminated, and the
    signal is remembered."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_signal(signum: int, frame: object) -> None:
        _STOPPED_BY[0] = signal.Signals(signum)
        _INTERRUPTED.set()
        raise _stop()

    _INTERRUPTED.clear()
    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        _INTERRUPTED.clear()


__all__ = ["Terminated", "ctrl_c_stops", "exit_code", "stop_if_interrupted"]
