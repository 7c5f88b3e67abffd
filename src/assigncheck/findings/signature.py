"""What makes two findings the same bug, and which problems no real consumer group can produce.

A finding's *signature* is its invariant plus, for a crash, its cause (exception type and raising frame, or how
a `cmd:` target failed), and for anything else the shape features its minimized problem still has
(`spec.features.features`: junk claim kinds, mixed generations, racks, static members, ...). Stages keep going after
a finding and report one reproducer per distinct signature; minimization keeps the signature's invariant and
cause, so an NPE and an IllegalStateException never shrink into one crash.

*Unreachable* problems are well-formed (docs/SPEC.md §1.3) but cannot come from a real broker: a group with no members
(its leader is always one of them), a topic with no partitions (Kafka's consumer skips a topic without
partitions before calling the assignor), and, for a target whose promises say `claims=real`, claims no previous
assignment could have produced. For a Streams task problem: no clients (the leader is one; KIP-1071's assignor
throws for an empty group), a sub-topology with no tasks, and, with `claims=real` or `group_type=streams`, previous
tasks neither Streams' leader nor a streams-group coordinator hands a task assignor (`spec.groups.streams_unreal`).
They are generated and checked, but findings on them are reported apart, never fail the gate, and a reachable
problem is never minimized into an unreachable one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from assigncheck.spec.features import JUNK_KINDS, features
from assigncheck.spec.groups import coordinator_form, coordinator_unreal, streams_unreal
from assigncheck.spec.model import AnyProblem, Problem, StreamsProblem
from assigncheck.spec.promises import Promises
from assigncheck.spec.violations import Violation

# Features that describe every problem one way or the other carry no information about a bug.
_NEUTRAL = frozenset({"unknown_generation", "equal_subscriptions"})

UNREACHABLE: dict[str, str] = {
    "no_members": "a group with no members (the group leader is always a member)",
    "empty_topic": "a topic with no partitions (Kafka's consumer skips it before the assignor runs)",
}
# ... and no Streams application, whoever assigns its tasks.
UNREACHABLE_STREAMS: dict[str, str] = {
    "no_clients": "a Streams application with no clients (the leader is always one of them)",
    "empty_subtopology": "a sub-topology with no tasks (its source topics have partitions: Streams' leader stops at a "
                         "missing source topic, and a streams group's topology is not ready without it)",
}
# With `claims=real`: what a member's previous assignment can never contain.
UNREAL_CLAIMS: dict[str, str] = {
    "negative_index": "a claim of a negative partition index",
    "repeated": "a member claiming one partition twice",
}
# ... and in a cooperative group, where a member revokes the partitions of topics it left before it rejoins.
UNREAL_COOPERATIVE_CLAIMS: dict[str, str] = {
    "unsubscribed_topic": "a cooperative member claiming a partition of a topic it no longer subscribes to",
}
JUNK = frozenset(JUNK_KINDS)


def telling(problem: AnyProblem) -> frozenset[str]:
    """The features that tell bugs apart (empty for Streams problems)."""
    return features(problem) - _NEUTRAL if isinstance(problem, Problem) else frozenset()


def raw_key(violation: Violation) -> str:
    """A finding's identity before minimization: invariant and cause (a campaign row or a fuzz job keeps the
    first problem per raw key, then minimizes it)."""
    return f"{violation.invariant}|{violation.cause}" if violation.cause else violation.invariant


def signature(violation: Violation, problem: AnyProblem) -> str:
    """The identity of a finding: its raw key, and for a finding that is not a crash the features of its
    (minimized) problem. Readable, stable across processes."""
    if violation.cause:
        return raw_key(violation)
    return "|".join([violation.invariant, *sorted(telling(problem))])


def signature_id(signature_text: str) -> str:
    """A short file-name-safe digest of a signature."""
    return hashlib.sha1(signature_text.encode()).hexdigest()[:12]


def unreachable(problem: AnyProblem, promises: Promises | None = None) -> list[str]:
    """Why no real group produces `problem` (empty: it is reachable)."""
    if isinstance(problem, StreamsProblem):
        shape = {"no_clients": not problem.clients, "empty_subtopology": 0 in problem.subtopologies.values()}
        reasons = [why for feature, why in UNREACHABLE_STREAMS.items() if shape[feature]]
        if promises is not None and (promises.claims == "real" or promises.group_type == "streams"):
            reasons += streams_unreal(problem, promises.group_type)
        return reasons
    if promises is not None:  # judged as the target meets it
        problem = coordinator_form(problem, promises.consumer_group_type)
    found = features(problem)
    reasons = [why for feature, why in UNREACHABLE.items() if feature in found]
    if promises is not None and promises.claims == "real":
        unreal = {**UNREAL_CLAIMS, **(UNREAL_COOPERATIVE_CLAIMS if problem.protocol == "cooperative" else {})}
        reasons += [why for feature, why in unreal.items() if feature in found]
    return reasons + coordinator_unreal(problem)


def keeps_its_shape(original: AnyProblem, promises: Promises | None) -> Callable[[AnyProblem], bool]:
    """What a minimization step may not change: a problem a real group can produce stays one, and no kind of
    junk claim appears that the original did not have (cutting a partition count below a claimed index turns
    a clean problem into an out-of-range one: another bug)."""
    reachable = not unreachable(original, promises)
    junk = telling(original) & JUNK

    def keeps(candidate: AnyProblem) -> bool:
        return (telling(candidate) & JUNK) <= junk and not (reachable and unreachable(candidate, promises))

    return keeps

__all__ = ["keeps_its_shape", "raw_key", "signature", "signature_id", "telling", "unreachable"]
