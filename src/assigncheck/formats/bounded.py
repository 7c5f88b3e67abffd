"""Text that came from a target (member ids, topic names, messages, stderr), cut to a size every report and
terminal holds, and made printable.

A target may answer with a 100 MB member id; copied whole, every report that quotes it (JSON, JUnit, HTML,
Markdown, the console, a reproducer's message) grows by as much. Each quotes at most `MAX_CHARS` characters of
any one text, and says how much it left out (`bounded`).

A target may also answer with any character: NUL and `\\x01` (not allowed in XML: a JUnit report that holds one
is not well-formed), ESC sequences (`\\x1b[2J` clears a terminal, an OSC sequence sets its title), line and
paragraph separators, bidirectional overrides. Every report and the console show such a character as its
escape instead (`printable`: `\\x1b[2J`), so the text reads as it was and does nothing to whoever reads it.
"""

from __future__ import annotations

import unicodedata

MAX_CHARS = 2000
# Control and format characters, surrogates, private use and unassigned code points (U+FFFE, U+FFFF: not XML),
# line and paragraph separators.
_UNPRINTABLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def printable(text: str) -> str:
    """`text` with every character that is not plain printable text written as its Python escape (`\\x1b`,
    `\\u202e`); the common case costs one scan."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(c.encode("unicode_escape", "backslashreplace").decode("ascii")
                   if unicodedata.category(c) in _UNPRINTABLE else c for c in text)


def shown(text: str, limit: int = MAX_CHARS) -> str:
    """`text` as every report and the console show it: printable, then bounded."""
    return bounded(printable(text), limit)


def bounded(text: str, limit: int = MAX_CHARS) -> str:
    """`text`, or its first characters and a marker saying how many were cut, `limit` characters in all (so a
    cut text is never cut again)."""
    if len(text) <= limit:
        return text
    marker = f"... [{len(text):,} characters, cut]"
    return text[:max(0, limit - len(marker))] + marker

__all__ = ["MAX_CHARS", "bounded", "printable", "shown"]
