"""Nothing a target starts outlives the command that ran it.

A `cmd:` program runs in a session of its own (or a worker's process group) and is killed with it, but a child
that calls `setsid` or double-forks (a daemon) leaves both. Unprivileged users get neither cgroups nor PID
namespaces on every machine, so the command's own process becomes a child subreaper (Linux `prctl`): every
orphaned descendant, whatever its session, is re-parented to it instead of to init, stays in its process tree,
and `end_descendants` kills the whole tree when the command is done.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_CHILD_SUBREAPER = 36
ROUNDS = 5  # a tree that forks while it is being killed: walk it again, a few times


def tree(pid: int) -> list[int]:
    """A process and its live descendants (from /proc), descendants first."""
    found: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                for child in f.read().split():
                    found += tree(int(child))
    except OSError:
        pass
    return [*found, pid]


def become_subreaper() -> bool:
    """Make this process the child subreaper of its descendants; False where the platform has none."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def end_descendants() -> int:
    """Kill every live descendant of this process and reap what was re-parented to it: how many were killed."""
    me, killed = os.getpid(), set()
    for _ in range(ROUNDS):
        alive = [pid for pid in tree(me) if pid != me and pid not in killed and not _zombie(pid)]
        if not alive:
            break
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except (ProcessLookupError, PermissionError):
                pass
    try:  # the command is ending: nobody else waits for what was re-parented to it
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass
    return len(killed)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (OSError, IndexError):
        return True


__all__ = [
    "PR_SET_CHILD_SUBREAPER", "ROUNDS", "become_subreaper", "end_descendants", "tree"
]
