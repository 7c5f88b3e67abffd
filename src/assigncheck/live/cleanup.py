"""Processes a live run started (the broker, the members) are stopped however the run ends: a `with` block on
the way out, `atexit` for a normal exit, and SIGTERM turned into `SystemExit` so both run (Ctrl-C already raises
KeyboardInterrupt)."""

from __future__ import annotations

import atexit
import signal
import threading
from typing import Any, Protocol


class Stoppable(Protocol):
    def stop(self) -> None: ...


_running: dict[int, Stoppable] = {}
_lock = threading.Lock()


def _terminated(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def register(thing: Stoppable) -> None:
    with _lock:
        _running[id(thing)] = thing
    if threading.current_thread() is threading.main_thread() \
            and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _terminated)


def forget(thing: Stoppable) -> None:
    with _lock:
        _running.pop(id(thing), None)


@atexit.register
def stop_all() -> None:
    with _lock:
        things = list(_running.values())
    for thing in reversed(things):
        thing.stop()
