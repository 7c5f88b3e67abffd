"""Size limits on what a document or a flag may ask for, checked before anything big is allocated.

Each limit admits every benchmark (`benchmarks/`: at most 2000 members x 1 M partitions over 500 topics, a
52 MB pretty-printed problem file; 10,000 Streams tasks over 1000 clients; the `large` profile's 4000
members) with room to spare, and stops the inputs that would take the machine down: a topic of
2^31 - 1 partitions asks for 16 GiB before the first check runs, 10^8 Streams tasks take minutes and
3.6 GB. Measured on the 2-core machine: assigning 10 M partitions takes 3-7 s and about 1 GB resident,
1 M Streams tasks 2 s and 110 MB. Checking a problem at the limits (10 M partitions with racks, 2,000 members,
9.5 M claims, a 123 MiB file) peaks at 2.3 GB resident (`tests/spec/test_large_inputs.py`, under a 6 GiB address-space
limit).
"""

from __future__ import annotations

from assigncheck.spec.errors import InputError

MAX_INPUT_BYTES = 128 * 2**20  # one input file or standard input; parsing costs up to ~8x this in memory
MAX_JSON_DEPTH = 64  # the deepest document of the format (a scenario's lag offsets) nests 7 levels
MAX_MEMBERS = 100_000  # members of a consumer problem, clients of a Streams problem
MAX_TOPICS = 100_000  # topics of a consumer problem, sub-topologies of a Streams problem
MAX_PARTITIONS = 10_000_000  # all topics' partitions together; also all claims together (one row each)
MAX_TASKS = 1_000_000  # all sub-topologies' tasks together


def check_limit(path: str, value: int, limit: int, what: str) -> None:
    """Raise an `InputError` at `path` when `value` (a count of `what`) exceeds `limit`."""
    if value > limit:
        raise InputError(path, f"asks for {value:,} {what}; assigncheck reads at most {limit:,}")

__all__ = [
    "MAX_INPUT_BYTES", "MAX_JSON_DEPTH", "MAX_MEMBERS", "MAX_PARTITIONS", "MAX_TASKS", "MAX_TOPICS", "check_limit"
]
