"""What every check returns: structured violations, never bare booleans."""

from __future__ import annotations

from dataclasses import dataclass

from .model import TopicPartition


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken invariant or promise (SPEC.md §9): which, who, what, and why in one sentence."""

    invariant: str  # "H1".."H8", "balance.perfect", "stickiness.max_retained", "fixpoint", ...
    message: str
    members: tuple[str, ...] = ()
    partitions: tuple[TopicPartition, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "invariant": self.invariant,
            "message": self.message,
            "members": list(self.members),
            "partitions": [list(tp) for tp in self.partitions],
        }

    def __str__(self) -> str:
        return f"{self.invariant}: {self.message}"
