"""Every table the docs may hold, by name (`TABLES`): the layouts register themselves when imported here."""

from __future__ import annotations

from benchmarks.figures import glance, speed_tables, verdict_tables
from benchmarks.figures.source import TABLES, Missing, Table

__all__ = ["TABLES", "Missing", "Table", "glance", "speed_tables", "verdict_tables"]
