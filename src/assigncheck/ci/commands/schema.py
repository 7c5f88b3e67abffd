"""`assigncheck schema NAME`: the JSON Schema (draft 2020-12) of a document, so that a target in any language can
validate what it reads and writes (docs/TARGETS.md). Exit 0 with the schema on standard output (or in `--out`);
2 for an unknown name, in one line."""

from __future__ import annotations

import argparse

from assigncheck.formats.schemas import NAMES
from assigncheck.spec.errors import InputError


def _name(text: str) -> str:
    if text not in NAMES:
        raise InputError("", f"unknown schema {text[:40]!r}; schemas are {', '.join(NAMES)}")
    return text


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("schema", help="print the JSON Schema of a document: " + ", ".join(NAMES))
    parser.add_argument("name", type=_name, help=f"one of {', '.join(NAMES)}")
    parser.add_argument("--out", help="write it to this file instead")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from assigncheck.ci.flag_types import output_file
    from assigncheck.formats.documents import dumps, write_atomic
    from assigncheck.formats.schemas import schema

    text = dumps(schema(args.name), pretty=True) + "\n"
    if args.out is None:
        print(text, end="")
    else:
        write_atomic(output_file(args.out, "--out"), text)
    return 0
