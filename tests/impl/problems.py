"""Small hypothesis strategies for the built-in assignor tests (range, round-robin, constrained, cooperative).

Drawn independently of `generate.strategies` on purpose: claims are uniformly random junk (unknown topics,
out-of-range and repeated indices, conflicting claims in equal and different generations), so the
KAFKA-12984/14639 shapes come up constantly; `next_problems` adds realistic rounds (claims = a previous
output, then one member leaves and one joins).
"""

from __future__ import annotations

from hypothesis import strategies as st

from assigncheck.spec.model import Member, Problem, partitions_of
from assigncheck.spec.promises import Assignor
from assigncheck.spec.rounds import next_round

RACKS = ("a", "b", "c")


@st.composite
def problems(draw, *, equal: bool | None = None, protocol: str | None = "eager", max_members: int = 6,
             max_topics: int = 4, max_partitions: int = 8, racks: bool = False) -> Problem:
    """`equal`: True = equal subscriptions, False = drawn per member (may still coincide), None = either."""
    names = [f"t{i}" for i in range(draw(st.integers(1, max_topics)))]
    topics = {t: draw(st.integers(0, max_partitions)) for t in names}
    pool = names + ["ghost"]  # a subscribed topic missing from the metadata (KAFKA-3661/7962)
    if equal is None:
        equal = draw(st.booleans())
    common = draw(st.frozensets(st.sampled_from(pool), min_size=1))
    members = []
    for k in range(draw(st.integers(1 if equal else 0, max_members))):
        sub = common if equal else draw(st.frozensets(st.sampled_from(pool)))
        owned = draw(st.lists(st.tuples(st.sampled_from(pool), st.integers(-1, max_partitions)), max_size=8))
        instance = f"i{draw(st.integers(0, 9))}-{k}" if draw(st.booleans()) else None
        rack = draw(st.sampled_from((None,) + RACKS)) if racks else None
        members.append(Member(f"m{k}", sub, partitions_of(owned), draw(st.integers(-1, 3)), instance, rack))
    partition_racks = None
    if racks and draw(st.booleans()):
        partition_racks = {t: tuple(draw(st.frozensets(st.sampled_from(RACKS))) for _ in range(n))
                           for t, n in topics.items()}
    chosen = protocol or draw(st.sampled_from(("eager", "cooperative")))
    return Problem(topics, tuple(members), chosen, partition_racks)  # type: ignore[arg-type]


@st.composite
def next_problems(draw, assignor: Assignor, *, equal: bool | None = True, protocol: str = "eager",
                  max_members: int = 6, max_partitions: int = 8) -> Problem:
    """A settled group (claims = the assignor's own fixpoint output) after one membership change."""
    start = draw(problems(equal=equal, protocol="eager", max_members=max_members, max_partitions=max_partitions))
    settled = next_round(start, assignor.assign(start))
    members = list(settled.members)
    change = draw(st.sampled_from(("join", "leave", "both")))
    if change in ("leave", "both") and len(members) > 1:
        members.pop(draw(st.integers(0, len(members) - 1)))
    if change in ("join", "both"):
        template = members[0].subscription if members else frozenset(settled.topics)
        members.insert(draw(st.integers(0, len(members))), Member("new", template))
    return settled.replace(members=tuple(members), protocol=protocol)
