"""JSON Schemas (draft 2020-12) of every document assigncheck reads or writes, shipped with the package as
`<name>.json` beside this module: `problem` (consumer and Streams), `assignment`, `reproducer`, `cmd-request` and
`cmd-answer` (the `cmd:`/`cmd2:` protocol, versions 1 and 2). docs/TARGETS.md describes them field by field.

Each file is self-contained (its `$defs` hold every definition it uses; a definition shared by two files is the
same in both), so any validator can load one alone. They describe the documents' shape; the reader
(`formats.documents`) also checks what a schema cannot say (unique member ids, racks and offsets for exactly the
topics and partitions that exist, size limits): docs/TARGETS.md lists the differences."""

from __future__ import annotations

from importlib import resources
from typing import Any

from assigncheck.formats.json_input import parse_json
from assigncheck.spec.errors import InputError

NAMES = ("problem", "assignment", "reproducer", "cmd-request", "cmd-answer")


def schema(name: str) -> dict[str, Any]:
    """The schema called `name` (one of `NAMES`), as a fresh parsed document."""
    if name not in NAMES:
        raise InputError("schema", f"unknown schema {name!r}; known: {', '.join(NAMES)}")
    text = resources.files(__package__).joinpath(f"{name}.json").read_text(encoding="utf-8")
    return parse_json(text, f"{name}.json")


__all__ = ["NAMES", "schema"]
