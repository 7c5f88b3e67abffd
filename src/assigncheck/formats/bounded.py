"""Text that came from a target (member ids, messages, stderr), cut to a size every report and terminal holds.

A target may answer with a 100 MB member id; copied whole, every report that quotes it (JSON, JUnit, HTML,
Markdown, the console, a reproducer's message) grows by as much. Each quotes at most `MAX_CHARS` characters of
any one text, and says how much it left out.
"""

from __future__ import annotations

MAX_CHARS = 2000


def bounded(text: str, limit: int = MAX_CHARS) -> str:
    """`text`, or its first characters and a marker saying how many were cut, `limit` characters in all (so a
    cut text is never cut again)."""
    if len(text) <= limit:
        return text
    marker = f"... [{len(text):,} characters, cut]"
    return text[:max(0, limit - len(marker))] + marker

__all__ = ["MAX_CHARS", "bounded"]
