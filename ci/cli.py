"""The `assigncheck` command. Each verb lives in its own module under `assigncheck.ci.commands`.

A verb module defines `register(subparsers)`, which adds its parser and sets `run(args) -> int`.
Heavy dependencies (Spark, Z3, atheris) are imported inside `run`, so `assigncheck assign` starts fast.
Exit codes: 0 all good, 1 a violation or finding, 2 bad usage or input (one line on stderr).
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from assigncheck.ci import commands
from assigncheck.spec.errors import InputError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse prints usage; one line is enough
        print(f"assigncheck: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="assigncheck", description="Verify and fuzz Kafka-style partition assignors against "
                     "an executable spec. Exit codes: 0 clean, 1 a violation or finding, 2 bad usage or input.")
    sub = parser.add_subparsers(dest="verb", required=True, parser_class=_Parser)
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # `--target package.module:object` names the user's own code: import it from where they stand, as
    # `python -m` would (the console script's sys.path has only its own directory).
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except InputError as e:
        print(f"assigncheck: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("assigncheck: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
