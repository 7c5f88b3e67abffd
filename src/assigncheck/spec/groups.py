"""Kafka 4's broker-side group types (docs/SPEC.md §10): what a group coordinator hands its assignor.

In a KIP-848 consumer group or a KIP-932 share group the broker's coordinator runs the assignor. Each member's
current assignment is the previous *target* assignment the coordinator computed, not a claim the member sends:
- it never holds a negative index, a partition twice, or an index past a topic's partition count (partitions are
  never removed from a topic, and a recreated topic has a new topic id: its old partitions are claims on a topic
  missing from the metadata);
- in a consumer group no partition is in two members' assignments; a share group's may be (several owners);
- there are no generations and no rebalance protocol: the coordinator reconciles after the assignor ran.
It can hold partitions of topics a member no longer subscribes to, and of deleted topics.

`coordinator_form` turns a classic problem (what every generator makes) into the group a coordinator of that type
would hold, so that every stage checks a broker-side target on groups it can meet. `coordinator_unreal` says why a
problem already of that type could not come from a coordinator; `streams_unreal` the same for a Streams task
problem, as Streams' leader (KIP-924) or a streams-group coordinator (KIP-1071) builds it.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import TYPE_CHECKING

from assigncheck.spec.model import (
    UNKNOWN_GENERATION,
    Assignment,
    GroupType,
    Problem,
    StreamsProblem,
    iter_pairs,
    partitions_of,
)
from assigncheck.spec.violations import Violation

if TYPE_CHECKING:
    from assigncheck.spec.promises import Promises

UNREAL_TARGET: dict[str, str] = {
    "negative_index": "a target assignment holding a negative partition index",
    "repeated": "a target assignment holding one partition twice",
    "out_of_range": "a target assignment holding an index past the partition count (partitions are never removed; "
                    "a recreated topic has a new id)",
    "double_owner": "a consumer group's target assignment giving one partition to two members",
}


def coordinator_form(problem: Problem, group_type: GroupType) -> Problem:
    """`problem` as a coordinator of `group_type` holds it. A classic problem's claims become the previous target
    assignment: impossible claims (negative, repeated, past the partition count) are dropped and, in a consumer
    group, a partition claimed by several members stays with the claimant of the highest generation (nobody on a
    tie, as for valid ownership); generations go. A problem already of a coordinator type is returned as it is."""
    if problem.group_type == group_type or group_type == "classic" or problem.group_type != "classic":
        return problem
    kept: list[dict[str, list[int]]] = [{} for _ in problem.members]
    for (topic, i), holders in _claimants(problem).items():
        if group_type == "consumer" and len(holders) > 1:
            top = max(g for g, _ in holders)
            holders = [h for h in holders if h[0] == top]
            if len(holders) > 1:
                continue
        for _, k in holders:
            kept[k].setdefault(topic, []).append(i)
    members = tuple(dataclasses.replace(m, owned=partitions_of(kept[k], sort=True), generation=UNKNOWN_GENERATION)
                    for k, m in enumerate(problem.members))
    return problem.replace(members=members, protocol="eager", group_type=group_type)


def _claimants(problem: Problem) -> dict[tuple[str, int], list[tuple[int, int]]]:
    """(topic, index) -> (generation, member position) of every member that claims it: only indices that can exist
    (not negative, below the partition count), each member once."""
    claimants: dict[tuple[str, int], list[tuple[int, int]]] = {}
    for k, m in enumerate(problem.members):
        seen: set[tuple[str, int]] = set()
        for topic, arr in m.owned.items():
            count = problem.topics.get(topic)
            for i in arr.tolist():
                if i < 0 or (count is not None and i >= count) or (topic, i) in seen:
                    continue
                seen.add((topic, i))
                claimants.setdefault((topic, i), []).append((m.generation, k))
    return claimants


def coordinator_unreal(problem: Problem) -> list[str]:
    """Why no coordinator of the problem's group type holds these current assignments (empty: it could)."""
    if problem.group_type == "classic":
        return []
    found: set[str] = set()
    owners: Counter[tuple[str, int]] = Counter()
    for m in problem.members:
        mine: set[tuple[str, int]] = set()
        for topic, arr in m.owned.items():
            count = problem.topics.get(topic)
            for i in arr.tolist():
                if i < 0:
                    found.add("negative_index")
                elif count is not None and i >= count:
                    found.add("out_of_range")
                if (topic, i) in mine:
                    found.add("repeated")
                mine.add((topic, i))
        owners.update(mine)
    if problem.group_type == "consumer" and any(n > 1 for n in owners.values()):
        found.add("double_owner")
    return [why for feature, why in UNREAL_TARGET.items() if feature in found]


# What a Streams task assignor's clients cannot claim, whichever API drives it: KIP-924's ApplicationState is built
# by Streams' leader from each client's subscription (ClientState.initializePrevTasks: sets of task ids, a task active
# when its partitions are owned or its offset sum is LATEST_OFFSET, standby otherwise), and a KIP-1071 streams group's
# member specs hold the coordinator's previous target assignment, in which each task is active on one member. In a
# streams group (KIP-1071) the topology never changes while the group lives (GroupMetadataManager.maybeUpdateTopology:
# "Topology updates are not supported yet"), so no previous task is of a sub-topology it does not have; a Streams
# leader (KIP-924) meets those after a rolling upgrade to a new topology. An index past a sub-topology's size stays
# reachable for both: a source topic deleted and recreated with fewer partitions between two assignments.
UNREAL_STREAMS_CLAIMS: dict[str, str] = {
    "negative_index": "a client claiming a task of a negative index (task ids come from partition numbers)",
    "repeated": "a client listing one task twice among its previous actives or standbys (they are sets)",
    "active_and_standby": "a client claiming one task both as previous active and as previous standby (each task of "
                          "a client's subscription is one or the other)",
    "contested_active": "a task claimed as previous active by two clients (a process that loses its membership "
                        "closes its active tasks before it rejoins; a streams group's target gives each task one "
                        "active owner)",
    "unknown_subtopology": "a streams group member holding a task of a sub-topology the topology does not have (a "
                           "streams group's topology never changes)",
}


def streams_unreal(problem: StreamsProblem, group_type: str = "classic") -> list[str]:
    """Why no Streams leader (`group_type` "classic", KIP-924) or streams-group coordinator ("streams", KIP-1071) hands
    a task assignor these previous tasks (empty: one could)."""
    found: set[str] = set()
    if group_type == "streams" and any(s not in problem.subtopologies for c in problem.clients
                                       for s, _ in (*iter_pairs(c.active), *iter_pairs(c.standby))):
        found.add("unknown_subtopology")
    active_owners: Counter[tuple[str, int]] = Counter()
    for c in problem.clients:
        actives = list(iter_pairs(c.active))
        standbys = list(iter_pairs(c.standby))
        if any(i < 0 for _, i in actives + standbys):
            found.add("negative_index")
        if len(set(actives)) < len(actives) or len(set(standbys)) < len(standbys):
            found.add("repeated")
        if set(actives) & set(standbys):
            found.add("active_and_standby")
        active_owners.update(set(actives))
    if any(n > 1 for n in active_owners.values()):
        found.add("contested_active")
    return [why for feature, why in UNREAL_STREAMS_CLAIMS.items() if feature in found]


def share_h4(problem: Problem, assignment: Assignment) -> list[Violation]:
    """H4 in a share group, where a partition may have several owners: no member holds one partition twice."""
    texts, members = [], []
    for member_id, parts in assignment.by_member.items():
        for topic, arr in parts.items():
            values = arr.tolist()
            if len(set(values)) < len(values):
                twice = sorted(i for i, n in Counter(values).items() if n > 1)
                texts.append(f"{member_id}: {', '.join(f'{topic}-{i}' for i in twice[:5])}")
                members.append(member_id)
    if not texts:
        return []
    return [Violation("H4", f"{len(texts)} member/topic pair(s) list a partition twice: {'; '.join(texts[:20])}",
                      tuple(dict.fromkeys(members))[:20])]




def protocol_form(problem: Problem | StreamsProblem, promises: Promises) -> Problem | StreamsProblem:
    """The problem as the assignor would meet it in Kafka: a group runs a protocol its leader's assignor
    supports, so an eager-only assignor sees eager groups and a cooperative-only one cooperative groups; a
    broker-side assignor sees the group as its coordinator holds it (`spec.groups.coordinator_form`)."""
    if isinstance(problem, Problem):
        if promises.consumer_group_type != "classic":
            return coordinator_form(problem, promises.consumer_group_type)
        if problem.protocol == "cooperative" and promises.max_rounds is None:
            return problem.with_protocol("eager")
        if problem.protocol == "eager" and not promises.eager and promises.max_rounds is not None:
            return problem.with_protocol("cooperative")
    return problem

__all__ = ["UNREAL_STREAMS_CLAIMS", "UNREAL_TARGET", "coordinator_form", "coordinator_unreal", "protocol_form",
           "share_h4", "streams_unreal"]
