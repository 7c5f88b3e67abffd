"""Which test framework reaches which target, read from the target's reference alone: a `java:` class is called by a
JUnit 5 test, a Go client's balancer (our drivers of franz-go, sarama and kafka-go) by a `go test`, KafkaJS's
assigners by a `node --test` file, a Python object or library assignor by a pytest. Any other target (a `cmd:`
program of unknown make) is reached by none: its code is not a call a test can make."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import PurePath

from assigncheck.formats.reproducer import TargetRef
from assigncheck.spec.errors import InputError

LANGUAGES = ("junit", "go", "pytest", "node")

# Our Go drivers (go/cmd/NAME): the client library whose balancers each serves.
GO_DRIVERS = {"franz-go-driver": "franz-go", "sarama-driver": "sarama", "kafka-go-driver": "kafka-go"}
GO_BALANCERS = {
    "franz-go": ("range", "roundrobin", "sticky", "cooperative-sticky"),
    "sarama": ("range", "roundrobin", "sticky", "cooperative-sticky"),
    "kafka-go": ("range", "roundrobin", "rack-affinity"),
}
# KafkaJS's own assigners served by js/targets/ (file name -> the name in KafkaJS's PartitionAssigners).
KAFKAJS = {"kafkajs-roundrobin.js": "roundRobin"}
PYTHON_LIBRARIES = ("kafka-python", "aiokafka")
_OBJECT = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")


@dataclass(frozen=True)
class Reach:
    """How a test of `language` reaches the target: `kind` of code, `name` of the class, balancer, assigner or
    object, and `options` (a Go driver's flags; for a `java:` class once loaded, its Kafka version and protocols)."""

    language: str
    kind: str
    name: str
    options: tuple[str, ...] = ()


def _command(spec: str) -> list[str] | None:
    prefix, sep, rest = spec.partition(":")
    if not sep or prefix not in ("cmd", "cmd2"):
        return None
    try:
        return shlex.split(rest)
    except ValueError:
        return None


def _go(words: list[str]) -> Reach | None:
    library = GO_DRIVERS.get(PurePath(words[0]).name)
    if library is None:
        return None
    options: tuple[str, ...] = ()
    rest = words[1:]
    if rest[:1] == ["-version"] and len(rest) >= 2:  # sarama-driver's: the members' Config.Version
        options, rest = tuple(rest[:2]), rest[2:]
    if len(rest) != 1 or rest[0] not in GO_BALANCERS[library]:
        return None
    return Reach("go", library, rest[0], options)


def _node(words: list[str]) -> Reach | None:
    if len(words) != 2 or PurePath(words[0]).name not in ("node", "nodejs"):
        return None
    assigner = KAFKAJS.get(PurePath(words[1]).name)
    return None if assigner is None else Reach("node", "kafkajs", assigner)


def reach(ref: TargetRef) -> Reach | None:
    """How a test reaches the target `ref` names, or None when no framework does. A `java:` target's API (classic,
    KIP-848, KIP-932, KIP-924, KIP-1071) is known only once its class is loaded: `kind` is "java" here."""
    from assigncheck.impl import BUILTINS

    spec = ref.spec
    if spec.startswith("java:"):
        return Reach("junit", "java", spec.removeprefix("java:"))
    words = _command(spec)
    if words:
        return _go(words) or _node(words)
    library, sep, name = spec.partition(":")
    if sep and library in PYTHON_LIBRARIES:
        return Reach("pytest", library, name)
    if spec in BUILTINS:
        return Reach("pytest", "builtin", spec)
    if _OBJECT.fullmatch(spec):
        return Reach("pytest", "object", spec)
    return None


def language_of(ref: TargetRef) -> str | None:
    """The `--as` that exports a finding on `ref` (None: none does)."""
    found = reach(ref)
    return None if found is None else found.language


def reached(ref: TargetRef, language: str) -> Reach:
    """How a `language` test reaches `ref`; an `InputError` naming --as when it cannot."""
    if language not in LANGUAGES:
        raise InputError("--as", f"unknown test framework {language!r}: one of {', '.join(LANGUAGES)}")
    found = reach(ref)
    if found is None:
        raise InputError("--as", f"no test framework reaches {ref.spec!r}: a {language} test calls a java: class, "
                                 "a Go client's balancer, a KafkaJS assigner or a Python object, not a program")
    if found.language != language:
        raise InputError("--as", f"a {language} test cannot reach {ref.spec!r}: export it --as {found.language}")
    return found


__all__ = ["GO_BALANCERS", "GO_DRIVERS", "KAFKAJS", "LANGUAGES", "PYTHON_LIBRARIES", "Reach", "language_of",
           "reach", "reached"]
