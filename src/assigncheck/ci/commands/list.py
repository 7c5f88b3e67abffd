"""`assigncheck list`: the built-in assignors, one line each with the promises they declare."""

from __future__ import annotations

import argparse

from assigncheck.spec.errors import InputError
from assigncheck.spec.promises import Promises
from assigncheck.targets import registry


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("list", help="list the built-in assignors and their promises")
    parser.set_defaults(run=run)


def describe(promises: Promises) -> str:
    """The non-default promises in `--promises` syntax (what `Promises.parse` reads back)."""
    return promises.to_text() or "-"


def run(args: argparse.Namespace) -> int:
    width = max(len(n) for n in registry.names())
    for name in registry.names():
        try:
            text = describe(registry.get(name).promises)
        except InputError as e:  # a built-in whose module is not there (yet): say so, list the rest
            text = f"(unavailable: {e.message})"
        print(f"{name:<{width}}  {text}")
    return 0
