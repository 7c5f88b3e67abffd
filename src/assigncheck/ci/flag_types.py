"""Shared argparse `type=` helpers and up-front checks for the CLI's flags.

A helper raises `InputError` without a path; `ci.cli`'s parser fills in the flag's name, so a bad value is
one line, `assigncheck: error: --jobs: must be ... got '10000'`, and exit 2. Output paths are checked with
`output_dir` / `output_file` in a verb's `run` before any work starts, so a gate never runs all its stages
only to fail on an unwritable report directory.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from assigncheck.spec.errors import InputError

MAX_SEED = 2**31 - 1  # libFuzzer takes an unsigned 32-bit -seed and job j uses seed + j: room for any --jobs
MAX_SECONDS = 86_400.0  # a day: longer than any budget, short enough that a typo is caught
MAX_INSTANCES = 100_000_000  # campaign rows per target (the campaign benchmark runs 1 M)
MAX_SHARDS = 100_000
# More processes than cores slow CPU-bound proofs and fuzz jobs down; 4x leaves room for I/O waits.
MAX_JOBS = 4 * (os.cpu_count() or 1)
# Spark's master URL forms (local[N], local[N,F], local-cluster[...], spark://, yarn, k8s://, mesos://).
_SPARK_MASTER = re.compile(r"local(\[(\*|\d+)(,\d+)?\])?|local-cluster\[\d+,\d+,\d+\]|yarn|"
                           r"(spark|k8s|mesos)://\S+")


# An error quoting a name from a problem file is one line of plain text, at most a screenful.
MAX_ERROR_CHARS = 2000


def one_line(message: str) -> str:
    """`message` with line breaks, control and format characters and lone surrogates escaped
    (`formats.bounded.printable`), and cut to a screenful."""
    from assigncheck.formats.bounded import printable

    message = printable(message)
    return message if len(message) <= MAX_ERROR_CHARS else message[:MAX_ERROR_CHARS - 3] + "..."


def int_in(lo: int, hi: int) -> Callable[[str], int]:
    """A whole number in [lo, hi]."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise InputError("", f"must be a whole number, got {text[:40]!r}") from None
        if not lo <= value <= hi:
            raise InputError("", f"must be between {lo:,} and {hi:,}, got {text[:40]!r}")
        return value

    parse.__name__ = "whole number"
    return parse


def seconds(lo: float = 0.0, hi: float = MAX_SECONDS) -> Callable[[str], float]:
    """A finite number of seconds in (lo, hi]: nan, inf and negative budgets are refused."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise InputError("", f"must be a number of seconds, got {text[:40]!r}") from None
        if not math.isfinite(value) or not lo < value <= hi:
            raise InputError("", f"must be more than {lo:g} and at most {hi:g} seconds, got {text[:40]!r}")
        return value

    parse.__name__ = "seconds"
    return parse


def nonempty(text: str) -> str:
    """Any text but the empty one (`--out ''` is a mistake, not the current directory)."""
    if not text.strip():
        raise InputError("", "must not be empty")
    return text


def env_name(text: str) -> str:
    """An environment variable's name."""
    if not text or "=" in text or "\0" in text or text != text.strip():
        raise InputError("", f"must be an environment variable's name, got {text[:40]!r}")
    return text


def promises(text: str) -> str:
    """A `--promises` text that `Promises.parse` accepts (checked now, kept as text)."""
    from assigncheck.spec.promises import Promises

    try:
        Promises.parse(text)
    except InputError as e:
        raise InputError("", e.message) from None
    return text


def maven(text: str) -> tuple[str, ...]:
    """`--maven`: group:artifact:version coordinates, comma-separated."""
    from assigncheck.toolchains.maven import parse

    try:
        return parse(text)
    except InputError as e:
        raise InputError("", e.message) from None


def spark_master(text: str) -> str:
    """A Spark master URL, checked before a JVM is started for it."""
    if not _SPARK_MASTER.fullmatch(text):
        raise InputError("", f"is not a Spark master URL (local[*], local[N], spark://HOST:PORT, yarn, k8s://...), "
                             f"got {text[:60]!r}")
    return text


def distinct(items: Sequence[str] | None) -> list[str]:
    """A repeatable flag's values with repeats dropped (`--target a --target a` is one target)."""
    return list(dict.fromkeys(items or ()))


def output_dir(path: str | os.PathLike[str], flag: str) -> Path:
    """Check now that `path` is, or can be made, a directory we can write in (creating it)."""
    from assigncheck.formats.documents import check_writable

    try:
        return check_writable(path, directory=True)
    except InputError as e:
        raise InputError(flag, f"{path}: {e.message}") from None


def output_file(path: str | os.PathLike[str], flag: str) -> Path:
    """Check now that `path` is a regular file or a new path in a folder we can write in."""
    from assigncheck.formats.documents import check_writable

    try:
        return check_writable(path)
    except InputError as e:
        raise InputError(flag, f"{path}: {e.message}") from None
