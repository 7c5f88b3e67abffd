"""What replaying a reproducer would run of the file's own choosing, beyond assigncheck and its built-ins.

A reproducer is made to be passed around (attached to a bug, committed, sent to a library's maintainers), and its
target is code: `cmd:sh -c ...` runs a program, `os:system` imports a module and calls it, a `java:` class comes
from the jars its classpath and Maven coordinates name, and the environment variable of an H8-across-processes
finding is set in the target's processes (`LD_PRELOAD`, `PYTHONPATH`: code too). `assigncheck replay` runs such a
target only with consent (`ci.commands.replay`): the file was written on this machine (`formats.trust`), the user
names the target on the command line (`--target`), or says so (`--trust`). `outside_code` says what would run,
in one line, or None when nothing would but assigncheck's own code: a built-in assignor, a codec, kafka-python's
and aiokafka's own assignors, Kafka's classes from Kafka's own artifacts (the pinned jars, or `org.apache.kafka`
coordinates), a live group's built-in clients.
"""

from __future__ import annotations

import shlex
from typing import Any

from assigncheck.findings.processes import ENV, Processes
from assigncheck.findings.replay import Reproducer
from assigncheck.formats.bounded import bounded
from assigncheck.formats.reproducer import TargetRef
from assigncheck.impl import BUILTINS

SHOWN = 400  # characters of a command or a path list in the one line
KAFKA = "org.apache.kafka"  # Apache Kafka's group id on Maven Central, and its classes' package


def _target_code(ref: TargetRef) -> str | None:
    """What loading `ref` runs of anyone else's (None: nothing but built-ins and Kafka's pinned jars)."""
    spec = ref.spec
    prefix, sep, rest = spec.partition(":")
    if spec in BUILTINS or prefix in ("kafka-python", "aiokafka", "codec"):
        return None  # fixed names: the loaders refuse any other
    if prefix in ("cmd", "cmd2"):
        where = f" in {ref.cwd}" if ref.cwd else ""
        return f"the program {bounded(rest, SHOWN)!r}{where} (target {prefix}:)"
    if prefix == "java":
        if not ref.classpath and rest.startswith(KAFKA) and all(c.startswith(KAFKA + ":") for c in ref.maven):
            return None  # a class of Kafka's, from Kafka's own artifacts (the pinned jars, or those named)
        jars = [*ref.classpath, *(f"Maven {c}" for c in ref.maven)]
        return f"the Java class {bounded(rest, SHOWN)} from {bounded(', '.join(jars), SHOWN)}"
    if sep:
        return f"the Python module {bounded(prefix, SHOWN)!r} imported and {bounded(rest, SHOWN)!r} called"
    return None  # no loader takes it: loading it fails with one line


def _environment(record: Any) -> str | None:
    """An H8-across-processes finding's variable, unless it is `PYTHONHASHSEED` with two whole numbers."""
    doc = record.extra.get("processes") if record is not None else None
    if doc is None:
        return None
    processes = Processes.from_json(doc)
    if processes.env == ENV and all(v.isdigit() for v in processes.values):
        return None
    values = " and ".join(shlex.quote(v) for v in processes.values)
    return f"with the environment variable {bounded(processes.env, 100)} set to {bounded(values, SHOWN)}"


def _live(record: Any) -> str | None:
    live = record.extra.get("live") if record is not None else None
    if not isinstance(live, dict) or not live.get("classpath"):
        return None
    classpath = ", ".join(map(str, live.get("classpath", [])))
    return f"a live group's Java members with the class {bounded(str(live.get('assignor')), SHOWN)} from " \
           f"{bounded(classpath, SHOWN)}"


def outside_code(found: Reproducer, ref: TargetRef | None) -> str | None:
    """What a replay of `found` on `ref` (the file's target, or the one the command line names: None when it runs no
    target, a codec finding) would run that is not assigncheck's, in one line; None when nothing."""
    parts = [p for p in (_target_code(ref) if ref is not None else None, _environment(found.record),
                         _live(found.record)) if p]
    return "; ".join(parts) or None

__all__ = ["outside_code"]
