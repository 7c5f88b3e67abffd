"""Reading JSON input safely: one bounded file reader and one strict parser for every document.

Every document assigncheck reads (problems, assignments, scenarios, campaign manifests, reproducer notes,
`cmd:` answers) goes through `parse_json`, so each rule holds everywhere:
- a repeated key is an error, not "the last one wins" (an assignment listing a member twice would
  otherwise hide the first entry from the checker);
- nesting deeper than `MAX_JSON_DEPTH`, an integer longer than Python's 4300-digit conversion limit,
  NaN/Infinity and lone UTF-16 surrogates (`"\\ud800"`, which cannot be printed or written back) are
  errors naming where they are;
and `read_input` reads only regular files or standard input (`-`), at most `MAX_INPUT_BYTES`, so
`/dev/zero` or a FIFO is refused instead of read forever.
"""

from __future__ import annotations

import gc
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import chain
from typing import Any

from assigncheck.spec.errors import FormatError
from assigncheck.spec.limits import MAX_INPUT_BYTES, MAX_JSON_DEPTH

STDIN = "-"
_SCALARS = frozenset({int, float, bool, type(None)})
_LIST = frozenset({list})
# A JSON escape that may decode to a surrogate; only documents containing one need their strings checked.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_LONG_INTEGER = re.compile(r"-?\d{4301,}")


def _source(path: str | os.PathLike[str]) -> str:
    return "standard input" if str(path) == STDIN else str(path)


def read_input(path: str | os.PathLike[str], *, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file, or of standard input when `path` is `-`, refusing more than `limit`.

    Devices, FIFOs, sockets and directories are refused without reading (or blocking on) them."""
    where = _source(path)
    if str(path) == STDIN:
        stream = getattr(sys.stdin, "buffer", None)  # None when the process was started with stdin closed
        if stream is None:
            raise FormatError(where, "is not open")
        try:
            data = stream.read(limit + 1)
        except OSError as e:
            raise FormatError(where, f"cannot be read: {e.strerror or e}") from None
    else:
        try:
            # O_NONBLOCK: opening a FIFO must not wait for a writer; we refuse it below anyway.
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError as e:
            raise FormatError(where, f"cannot be read: {e.strerror or e}") from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise FormatError(where, f"is {file_kind(info.st_mode)}, not a regular file")
            if info.st_size > limit:
                raise FormatError(where, f"is {info.st_size:,} bytes; assigncheck reads at most {limit:,}")
            os.set_blocking(fd, True)
            with os.fdopen(fd, "rb", closefd=False) as f:
                data = f.read(limit + 1)  # st_size is 0 for /proc files: the read is bounded all the same
        except OSError as e:
            raise FormatError(where, f"cannot be read: {e.strerror or e}") from None
        finally:
            os.close(fd)
    if len(data) > limit:
        raise FormatError(where, f"is more than {limit:,} bytes; assigncheck reads at most {limit:,}")
    return data


def file_kind(mode: int) -> str:
    """What a file is, for messages: "a directory", "a character device", ..."""
    for test, name in ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a file"


class JSONSyntaxError(FormatError):
    """Text that is not one JSON document (as opposed to a document that breaks a rule)."""


class _Constant(Exception):
    """NaN, Infinity or -Infinity: Python's json accepts them, JSON does not."""


def json_type(value: Any) -> str:
    """What the user wrote, in JSON's words ("null", "an object"): messages never name Python's types."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"  # not from a JSON document (a caller's own object)


def _reject_constant(name: str) -> Any:
    raise _Constant(name)


def _position(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"line {line} column {offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def decode(data: str | bytes, source: str = "") -> str:
    """UTF-8 bytes as text (text is returned as is)."""
    if isinstance(data, str):
        return data
    if len(data) > MAX_INPUT_BYTES:
        raise FormatError(source, f"is more than {MAX_INPUT_BYTES:,} bytes; assigncheck reads at most "
                                  f"{MAX_INPUT_BYTES:,}")
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError as e:
        raise FormatError(source, f"is not UTF-8 text (byte {e.start})") from None


def parse_json(data: str | bytes, source: str = "") -> Any:
    """One JSON document from text or UTF-8 bytes, under the rules above. Errors are `FormatError`s
    whose path starts with `source` (a file name, `standard input`, ...) and names the field."""
    text = decode(data, source)
    if not text or text.isspace():
        raise JSONSyntaxError(source, "is empty")
    repeated: dict[int, tuple[str, Any]] = {}

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):  # rare: find the repeated key, report it after parsing (with its path)
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    break
                seen.add(key)
            repeated[id(obj)] = (key, obj)  # holding obj keeps its id from being reused
        return obj

    try:
        with gc_paused():
            doc = json.loads(text, object_pairs_hook=pairs_hook, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        # json's own message may end in "at" ("Unterminated string starting at"): say the place once
        what = e.msg.removesuffix(" at")
        raise JSONSyntaxError(source, f"is not valid JSON: {what} at line {e.lineno} column {e.colno}") from None
    except RecursionError:
        raise FormatError(source, f"nests deeper than {MAX_JSON_DEPTH} levels") from None
    except _Constant as e:
        raise JSONSyntaxError(source, f"is not valid JSON: {e} is not a JSON number") from None
    except ValueError:  # int() refused a number past the interpreter's digit limit
        match = _LONG_INTEGER.search(text)
        where = f" at {_position(text, match.start())}" if match else ""
        raise FormatError(source, f"has an integer of more than 4300 digits{where}") from None
    _check_tree(doc, source, repeated, strings=_SURROGATE_ESCAPE.search(text) is not None)
    return doc


def _path(node: tuple[Any, ...] | None) -> str:
    parts: list[str] = []
    while node is not None:
        node, key = node
        parts.append(f"[{key}]" if isinstance(key, int) else f".{key}")
    text = "".join(reversed(parts))
    return text[1:] if text.startswith(".") else text


_Node = tuple[Any, ...] | None  # (parent node, key), None at the root: the path to a value
_Frame = tuple[Any, int, _Node]  # a container, its depth, its node


def _check_tree(doc: Any, source: str, repeated: dict[int, tuple[str, Any]], *, strings: bool) -> None:
    """Depth, repeated keys and (when the text has a surrogate escape) strings, without recursion."""
    tree = _Tree(source, repeated, strings)
    if type(doc) is str and tree.bad(doc):
        raise tree.fail(None, "contains a lone surrogate (not Unicode text)")
    stack: list[_Frame] = [(doc, 1, None)]
    while stack:
        value, depth, node = stack.pop()
        if type(value) is dict:
            tree.check_object(value, depth, node, stack.append)
        elif type(value) is list:
            tree.check_array(value, depth, node, stack.append)


class _Tree:
    """One document's checks, a container at a time; the containers still to check go to `push`."""

    def __init__(self, source: str, repeated: dict[int, tuple[str, Any]], strings: bool) -> None:
        self.source, self.repeated, self.strings = source, repeated, strings

    def fail(self, node: _Node, message: str) -> FormatError:
        path = _path(node)
        return FormatError(f"{self.source}: {path}" if self.source and path else self.source or path, message)

    def bad(self, s: str) -> bool:
        return self.strings and not s.isascii() and _SURROGATE.search(s) is not None

    def check_object(self, value: dict, depth: int, node: _Node, push: Callable[[_Frame], None]) -> None:
        if depth > MAX_JSON_DEPTH:
            raise self.fail(None, f"nests deeper than {MAX_JSON_DEPTH} levels")
        if id(value) in self.repeated:
            raise self.fail(node, f"repeats the key {self.repeated[id(value)][0]!r}")
        if not self.strings and depth < MAX_JSON_DEPTH:
            # The common shapes, checked in C: an object of scalars, or of lists of scalars
            # (a member's owned indices per topic, an assignment's partitions).
            kinds = set(map(type, value.values()))
            if kinds <= _SCALARS or (kinds == _LIST and set(map(type, chain.from_iterable(value.values())))
                                     <= _SCALARS):
                return
        for key, item in value.items():
            if self.bad(key):
                raise self.fail(node, f"has a key with a lone surrogate: {key!a}")
            kind = type(item)
            if kind is list and depth < MAX_JSON_DEPTH and set(map(type, item)) <= _SCALARS:
                continue  # the common case (indices, offsets), checked in C without a push
            if kind is dict or kind is list:
                push((item, depth + 1, (node, key)))
            elif kind is str and self.bad(item):
                raise self.fail((node, key), "contains a lone surrogate (not Unicode text)")

    def check_array(self, value: list, depth: int, node: _Node, push: Callable[[_Frame], None]) -> None:
        if depth > MAX_JSON_DEPTH:
            raise self.fail(None, f"nests deeper than {MAX_JSON_DEPTH} levels")
        if set(map(type, value)) <= _SCALARS:
            return
        for i, item in enumerate(value):
            kind = type(item)
            if kind is dict or kind is list:
                push((item, depth + 1, (node, i)))
            elif kind is str and self.bad(item):
                raise self.fail((node, i), "contains a lone surrogate (not Unicode text)")


def load_json(path: str | os.PathLike[str]) -> Any:
    """`parse_json(read_input(path))`: one document from a file or `-`, errors naming the file."""
    text = decode(read_input(path), _source(path))  # the bytes are freed before parsing: up to 128 MiB less
    return parse_json(text, _source(path))


# Millions of new objects that are never cyclic garbage: a young collection runs every 700 new tracked objects
# and the older generations walk the survivors again and again; a 32 MiB problem parses in about half the time
# with the collector paused while it is built.
@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a batch of acyclic objects is made (a parsed document and the problem
    built from it). Restored as it was; collection is delayed, never skipped."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()

__all__ = [
    "JSONSyntaxError", "MAX_JSON_DEPTH", "decode", "file_kind", "gc_paused", "json_type", "load_json", "parse_json",
    "read_input"
]
