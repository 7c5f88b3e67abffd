"""The spec's reference assignors: plain Python written for obviousness, not speed (docs/SPEC.md §7).

Fast built-in assignors that promise `exact=<name>` must reproduce these outputs exactly.
"""

from __future__ import annotations

from assigncheck.spec.promises import Assignor
from assigncheck.spec.reference.lag import LagReference
from assigncheck.spec.reference.range import RangeReference
from assigncheck.spec.reference.roundrobin import RoundRobinReference
from assigncheck.spec.reference.streams import StreamsReference

REFERENCES: dict[str, Assignor] = {
    a.name: a for a in (RangeReference(), RoundRobinReference(), LagReference(), StreamsReference())
}

__all__ = ["REFERENCES", "LagReference", "RangeReference", "RoundRobinReference", "StreamsReference"]
