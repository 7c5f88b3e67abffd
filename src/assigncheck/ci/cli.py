"""The `assigncheck` command. Each verb lives in its own module under `assigncheck.ci.commands`.

A verb module defines `register(subparsers)`, which adds its parser and sets `run(args) -> int`.
Heavy dependencies (Spark, Z3, atheris) are imported inside `run`, so `assigncheck assign` starts fast.
Exit codes: 0 all good, 1 a violation or finding, 2 bad usage or input (one line on stderr).
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import importlib.metadata
import os
import pkgutil
import re
import select
import signal
import sys
from collections.abc import Sequence
from typing import NoReturn

from assigncheck.ci import commands
from assigncheck.ci.flag_types import one_line
from assigncheck.run.cache import keep_state_in_cache
from assigncheck.run.interrupt import Terminated, ctrl_c_stops, exit_code
from assigncheck.spec.errors import InputError


def _flag(action: argparse.Action) -> str:
    longest = [o for o in action.option_strings if o.startswith("--")] or list(action.option_strings)
    return longest[0] if longest else str(action.metavar or action.dest)


_NO_VALUE = re.compile(r"argument (\S+): expected (?:one argument|\d+ arguments?)")


class _Parser(argparse.ArgumentParser):
    """argparse with the usage line on usage errors (unknown flag, missing argument, bad choice), and
    one line naming the flag when a value fails one of `ci.flag_types`' checks or is missing."""

    def _get_value(self, action: argparse.Action, arg_string: str) -> object:
        try:
            return super()._get_value(action, arg_string)
        except argparse.ArgumentError as e:
            if isinstance(e.__context__, InputError):  # a ci.flag_types check: its message, named by the flag
                raise InputError(_flag(action), e.__context__.message) from None
            raise

    def error(self, message: str) -> NoReturn:
        missing = _NO_VALUE.fullmatch(message)
        if missing:  # `--maven -Dx=1:a:1`: a value taken for a flag; one line naming the flag, not the usage
            flag = missing.group(1).split("/")[-1]
            raise InputError(flag, f"needs a value (a value that starts with '-' is written {flag}=VALUE)")
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {one_line(message)}\n")


def _version() -> str:
    try:
        return importlib.metadata.version("assigncheck")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree without installing
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="assigncheck", description="Verify and fuzz Kafka-style partition assignors against "
                     "an executable spec. Exit codes: 0 clean, 1 a violation or finding, 2 bad usage or input.")
    parser.add_argument("--version", action="version", version=f"assigncheck {_version()}")
    sub = parser.add_subparsers(dest="verb", required=True, parser_class=_Parser)
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    return parser


def _stdout_is_broken() -> bool:
    """After a BrokenPipeError: is it our standard output whose reader left (`assigncheck ... | head`)? If
    so, point the descriptor at /dev/null so the interpreter's final flush does not complain again."""
    try:
        fd = sys.stdout.fileno()
        poll = select.poll()
        poll.register(fd, select.POLLOUT)
        if not any(events & select.POLLERR for _, events in poll.poll(0)):  # a pipe without reader: POLLERR
            return False
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real descriptor (an in-process test's capture)
        return False
    return True


def _own_descendants() -> None:
    """Whatever a target starts (a `setsid` daemon too) is re-parented to this process and killed at exit,
    after every other exit handler (registered first, so it runs last: Spark's gateway stops first)."""
    from assigncheck.toolchains.reaper import become_subreaper, end_descendants

    if become_subreaper():
        atexit.register(end_descendants)


def main(argv: Sequence[str] | None = None) -> int:
    # `--target package.module:object` names the user's own code: import it from where they stand, as
    # `python -m` would (the console script's sys.path has only its own directory).
    try:
        cwd = os.getcwd()
    except OSError:  # the current directory was deleted: nothing to import from there
        cwd = ""
    if cwd and "" not in sys.path and cwd not in sys.path:
        sys.path.insert(0, cwd)
    if argv is None:  # this process is the command (not a caller's in-process run)
        keep_state_in_cache()
        _own_descendants()
    try:
        args = build_parser().parse_args(argv)
        with ctrl_c_stops():
            return int(args.run(args))
    except InputError as e:
        print(f"assigncheck: error: {one_line(str(e))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        if not _stdout_is_broken():
            raise
        return 128 + signal.SIGPIPE  # 141, what a shell reports for a pipeline cut short by `head`
    except MemoryError:  # a valid input past this machine's memory: the user's to resize, not a finding (exit 1)
        print("assigncheck: error: out of memory: the input needs more memory than this process may use (see the "
              "README's limits)", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        print(f"assigncheck: {'terminated' if isinstance(e, Terminated) else 'interrupted'}", file=sys.stderr)
        return exit_code(e)


if __name__ == "__main__":
    sys.exit(main())
