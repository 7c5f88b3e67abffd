"""The spec's reference assignors: plain Python written for obviousness, not speed (docs/SPEC.md §7).

Fast built-in assignors that promise `exact=<name>` must reproduce these outputs exactly.
"""

from __future__ import annotations

from ..promises import Assignor
from .lag import LagReference
from .range import RangeReference
from .roundrobin import RoundRobinReference
from .streams import StreamsReference

REFERENCES: dict[str, Assignor] = {
    a.name: a for a in (RangeReference(), RoundRobinReference(), LagReference(), StreamsReference())
}

__all__ = ["REFERENCES", "LagReference", "RangeReference", "RoundRobinReference", "StreamsReference"]
