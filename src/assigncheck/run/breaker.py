"""The circuit breaker: after `HANGS_IN_A_ROW` calls in a row that hit the wall-clock hang limit, a stage (or a
campaign shard) stops sending the target problems, so a hanging target costs a few hang limits, not hours."""

from __future__ import annotations

from collections.abc import Iterable

from assigncheck.spec.violations import Violation

HANG_CAUSES = ("hang", "cmd.hang")  # H7's causes for a call stopped at the hang limit (in process; a cmd: program)
HANGS_IN_A_ROW = 2
NOTE = f"circuit breaker: the target hung {HANGS_IN_A_ROW} times in a row; stopped sending"


def hung(violations: Iterable[Violation]) -> bool:
    """Whether the call these violations come from hit the hang limit."""
    return any(v.invariant == "H7" and v.cause in HANG_CAUSES for v in violations)


class Breaker:
    """Counts the calls in a row that hung; open (stop sending) once there are `limit` of them."""

    def __init__(self, limit: int = HANGS_IN_A_ROW) -> None:
        self.limit = limit
        self.in_a_row = 0

    def count(self, call_hung: bool) -> bool:
        """Count one call; whether the breaker is now open."""
        self.in_a_row = self.in_a_row + 1 if call_hung else 0
        return self.open

    @property
    def open(self) -> bool:
        return self.in_a_row >= self.limit

__all__ = ["Breaker", "HANGS_IN_A_ROW", "HANG_CAUSES", "NOTE", "hung"]
