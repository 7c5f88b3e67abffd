"""The command line's targets: `--target`, `--promises`, `--classpath`, `--maven`, `--config` -> target references,
loaded and probed the one way (`targets.registry.load`, `targets.registry.probe`). `--classpath` takes jars and
directories as `java -cp` does (`dir/*`: the jars in `dir`), each checked before anything reads it, and recorded
absolute with its content's digest (`pinned_classpath`)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from assigncheck.ci import flag_types
from assigncheck.formats.reproducer import TargetRef
from assigncheck.spec.errors import InputError
from assigncheck.spec.promises import Assignor, Promises

TARGET_HELP = ("a built-in name, package.module:object, cmd:COMMAND (cmd2: for protocol 2), java:CLASS, "
               "kafka-python:NAME, aiokafka:NAME")


def add_target_options(parser: argparse.ArgumentParser, *, required: bool = False, many: bool = True) -> None:
    parser.add_argument("--target", action="append" if many else "store", default=[] if many else None,
                        required=required, metavar="SPEC", type=flag_types.nonempty,
                        help=TARGET_HELP + (" (repeatable)" if many else ""))
    parser.add_argument("--promises", metavar="TEXT", default=None, type=flag_types.promises,
                        help="what the --target(s) promise, e.g. balance=perfect,fixpoint (outside targets "
                             "promise nothing beyond H1-H8 unless told)")
    add_java_options(parser)


def add_java_options(parser: argparse.ArgumentParser) -> None:
    """`--classpath` and `--config`, for commands that take a `java:` target."""
    parser.add_argument("--classpath", metavar="JARS", default=None,
                        help=f"java: targets: jars and directories, separated by {os.pathsep!r}, 'dir/*' for the "
                             "jars in dir (default: Kafka's pinned jars from Maven Central for Kafka's own classes)")
    parser.add_argument("--maven", metavar="G:A:V[,G:A:V...]", default=None, type=flag_types.maven,
                        help="java: targets: artifacts resolved by your mvn (with their dependencies) and added to "
                             "the classpath, e.g. org.apache.kafka:kafka-group-coordinator:4.0.0")
    parser.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                        help="java: targets: an assignor configuration entry (repeatable)")


def refs_from_args(specs: str | Sequence[str] | None, promises: str | None, classpath: str | None = None,
                   config: Sequence[str] = (), maven: Sequence[str] | None = None) -> list[TargetRef]:
    """One reference per distinct `--target` (in order), with the declared promises and Java options."""
    specs = [specs] if isinstance(specs, str) else list(specs or [])
    if promises is not None and not specs:
        raise InputError("--promises", "declares what --target targets promise: name a --target")
    declared = None if promises is None else Promises.parse(promises).to_text()
    entries = []
    for item in config:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError("--config", f"must be KEY=VALUE, got {item!r}")
        entries.append((key.strip(), value))
    jars, digests = pinned_classpath(tuple(p for p in (classpath or "").split(os.pathsep) if p))
    refs = [TargetRef(s, declared, jars, tuple(sorted(entries)), tuple(maven or ()), digests)
            for s in dict.fromkeys(specs)]
    return refs


def pinned_classpath(entries: Sequence[str], flag: str = "--classpath") -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A classpath as a reproducer records it: `dir/*` expanded to its jars, each entry checked to be a jar or a
    directory before anything reads it, made absolute (a replay from any directory finds it), and the digest of
    each entry's content (a replay says when it changed since)."""
    from assigncheck.toolchains import digests, java_build

    jars = java_build.resolve_classpath(entries, flag)
    return jars, tuple(digests.entry(j) for j in jars)


def open_targets(refs: Sequence[TargetRef]) -> list[Assignor]:
    """Load each target and check it runs at all (a usage error, exit 2, if it does not)."""
    from assigncheck.targets.registry import load, probe

    return [probe(load(ref)) for ref in refs]


def targets_from_args(args: argparse.Namespace) -> list[Assignor]:
    """The targets a command names, or every built-in assignor when it names none."""
    from assigncheck.targets.registry import get, names

    refs = refs_from_args(args.target, args.promises, args.classpath, args.config, args.maven)
    return open_targets(refs) if refs else [get(n) for n in names()]
