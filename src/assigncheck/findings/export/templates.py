"""The exported tests' code in each language, kept as files beside this module
(`findings/export/templates/<language>/`): per API or client the imports and the driver that calls the target as
assigncheck's own driver does, the problem's types, the helpers, and one check per invariant
(`checks/<invariant>.tmpl`). A writer reads them with `text` and fills in only what is the finding's own: the problem,
the figures, the rule's words."""

from __future__ import annotations

from functools import cache
from importlib.resources import files


@cache
def text(language: str, name: str) -> str:
    """The template `findings/export/templates/<language>/<name>.tmpl` (a `FileNotFoundError` when there is none)."""
    return (files(__package__) / "templates" / language / f"{name}.tmpl").read_text(encoding="utf-8")


def check(language: str, invariant: str) -> str | None:
    """The check of `invariant` in `language`, or None when the test needs none (it runs the target otherwise)."""
    try:
        return text(language, f"checks/{invariant}")
    except FileNotFoundError:
        return None


# The test's own function, per way it runs the target (`plan`): "once", "crash", "repeated", "rounds", "fed back".
RUNNERS = {"once": "test-once", "crash": "test-crash", "repeated": "test-repeated", "rounds": "test-rounds",
           "fed back": "test-fed-back"}


def runner(language: str, run: str, name: str, listed: bool = False) -> str:
    """The test function of `language` for the plan's `run`, named `name` (its `METHOD` or `TITLE`); `listed`: an H8
    test also runs the problem listed in another order (its `LISTED` line)."""
    code = text(language, RUNNERS[run]).replace("METHOD", name).replace("TITLE", name)
    extra = text(language, "test-repeated-listed").rstrip("\n") if listed else ""
    return "\n".join(extra if line.strip() == "LISTED" else line for line in code.split("\n")
                     if line.strip() != "LISTED" or extra)


def fill(code: str, **values: str) -> str:
    """A template with its upper-case placeholders replaced."""
    for key, value in values.items():
        code = code.replace(key, value)
    return code


__all__ = ["RUNNERS", "check", "fill", "runner", "text"]
