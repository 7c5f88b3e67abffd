"""`assigncheck export REPRODUCER --as junit|go|pytest|node [--out DIR]`: a finding as a standalone test in its
target's own language and test framework (`findings.export`).

The directory holds the test and its own build (a `pom.xml` with JUnit 5 and the reproducer's Maven coordinates, a
`go.mod` and `go.sum` with the pinned client, a `package.json` with KafkaJS; pytest needs nothing), so `mvn -q test`,
`go test ./...`, `pytest` or `npm ci && node --test` runs it alone: red while the bug is there, green once it is
fixed. Exit 0 with the files written on standard output, 2 when the finding or the target cannot be exported (a
timing finding, a target the framework cannot reach, an unwritable --out), in one line naming the field or flag."""

from __future__ import annotations

import argparse
from pathlib import Path

from assigncheck.ci import flag_types
from assigncheck.spec.errors import InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export", help="write a finding as a standalone test in its target's language (JUnit, go test, pytest, node)",
        description="Write REPRODUCER's finding as a test that calls the target directly on its problem and asserts "
                    "the broken invariant, with its own build. Exit 0, or 2 on bad input.")
    parser.add_argument("file", help="a reproducer file (written by the gate, `fuzz`, a campaign or `replay "
                                     "--minimize`), or - for standard input")
    parser.add_argument("--as", dest="language", required=True, metavar="FRAMEWORK",
                        type=_language, help="junit (a java: class), go (franz-go's, sarama's or kafka-go's "
                                             "balancers), pytest (a Python object, kafka-python, aiokafka) or node "
                                             "(KafkaJS's assigners)")
    parser.add_argument("--out", metavar="DIR", type=_out,
                        help="the directory to write (default: the reproducer's name and the framework, "
                             "in the current directory)")
    parser.set_defaults(run=run)


def _language(text: str) -> str:
    from assigncheck.findings.export.write import check_language

    return check_language(text)


def _out(text: str) -> Path:
    return flag_types.output_dir(flag_types.nonempty(text), "--out")


def run(args: argparse.Namespace) -> int:
    from assigncheck.findings.export.write import export
    from assigncheck.findings.replay import read
    from assigncheck.formats.documents import load_json

    where = "standard input" if args.file == "-" else args.file
    doc = load_json(args.file)
    try:
        found = read(doc, str(args.file))
    except InputError as e:
        raise InputError(f"{where}: {e.path}" if e.path else str(where), e.message) from None
    for path in export(found, args.language, args.out):
        print(path)
    return 0
