"""`assigncheck list`: the built-in assignors, one line each with the promises they declare."""

from __future__ import annotations

import argparse
from dataclasses import fields

from assigncheck.impl import registry
from assigncheck.spec.errors import InputError
from assigncheck.spec.promises import Promises


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("list", help="list the built-in assignors and their promises")
    parser.set_defaults(run=run)


def describe(promises: Promises) -> str:
    """The non-default promises in `--promises` syntax (what `Promises.parse` reads back)."""
    default = Promises()
    parts = []
    for f in fields(Promises):
        value = getattr(promises, f.name)
        if value == getattr(default, f.name):
            continue
        if value is True:
            parts.append(f.name)
        else:
            parts.append(f"{f.name}={str(value).lower() if isinstance(value, bool) else value}")
    return ",".join(parts) or "-"


def run(args: argparse.Namespace) -> int:
    width = max(len(n) for n in registry.names())
    for name in registry.names():
        try:
            text = describe(registry.get(name).promises)
        except InputError as e:  # a built-in whose module is not there (yet): say so, list the rest
            text = f"(unavailable: {e.message})"
        print(f"{name:<{width}}  {text}")
    return 0
