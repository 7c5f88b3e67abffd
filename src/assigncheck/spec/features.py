"""What a problem exercises, recognised from the problem alone: each kind of junk claim, mixed generations,
racks, static members, lag... Generators promise features (tests show they reach them), and a finding's
signature is its invariant plus the features of its minimized problem (`findings.signature`)."""

from __future__ import annotations

from collections import Counter

from assigncheck.spec.model import Member, Problem, StreamsProblem, iter_pairs

JUNK_KINDS = (
    "unknown_topic",  # a claim on a topic missing from the metadata
    "out_of_range",  # index >= partition count
    "negative_index",
    "unsubscribed_topic",  # a claim on an existing topic the member does not subscribe to
    "repeated",  # a member lists one partition twice
    "double_claim_same_generation",  # two members claim one partition at the same generation
    "double_claim_other_generation",  # ... at different generations
)
STREAMS_JUNK_KINDS = (
    "unknown_subtopology",
    "out_of_range",
    "negative_index",
    "repeated",
    "double_active",  # two clients claim one task as active
    "active_and_standby",  # one client lists a task both as active and as standby
)
RACKS = ("r0", "r1", "r2")
ABSENT_TOPIC = "gone"  # subscribed or claimed by members, never in the metadata


def _claim_kind(problem: Problem, m: Member, t: str, i: int) -> str | None:
    n = problem.topics.get(t)
    if n is None:
        return "unknown_topic"
    if i < 0:
        return "negative_index"
    if i >= n:
        return "out_of_range"
    return "unsubscribed_topic" if t not in m.subscription else None


def _claims(problem: Problem) -> set[str]:
    """The junk kinds among the members' claims; double claims among those rules 1-3 of valid_owned keep."""
    found: set[str] = set()
    claimants: dict[tuple[str, int], list[int]] = {}  # valid-looking claims -> claimant generations
    for m in problem.members:
        seen: set[tuple[str, int]] = set()
        for t, i in iter_pairs(m.owned):
            kind = _claim_kind(problem, m, t, i)
            if kind is not None:
                found.add(kind)
            if (t, i) in seen:
                found.add("repeated")
            elif kind is None:
                claimants.setdefault((t, i), []).append(m.generation)
            seen.add((t, i))
    for gens in claimants.values():
        if len(gens) >= 2:
            found.add("double_claim_same_generation" if len(set(gens)) < len(gens) else "double_claim_other_generation")
    return found


def _members(problem: Problem) -> set[str]:
    found: set[str] = set()
    if not problem.members:
        found.add("no_members")
    for m in problem.members:
        if any(t not in problem.topics for t in m.subscription):
            found.add("absent_subscribed_topic")
        if not m.subscription:
            found.add("empty_subscription")
        if m.instance_id is not None:
            found.add("static")
        if m.rack is not None:
            found.add("member_racks")
    generations = {m.generation for m in problem.members}
    if -1 in generations:
        found.add("unknown_generation")
    if len(generations) >= 2:
        found.add("mixed_generations")
    found.add("equal_subscriptions" if problem.subscriptions_equal() else "unequal_subscriptions")
    return found


def _lag(problem: Problem) -> set[str]:
    if problem.lag is None:
        return set()
    found = {"lag", problem.lag.auto_offset_reset}
    for o in problem.lag.offsets.values():
        has = o.committed >= 0
        if (~has).any():
            found.add("lag_no_commit")
        if (has & (o.committed > o.end)).any():
            found.add("lag_committed_past_end")
        if (has & (o.committed < o.begin)).any():
            found.add("lag_committed_before_begin")
    return found


def features(problem: Problem) -> frozenset[str]:
    """The features of a consumer problem: each kind of `JUNK_KINDS` it contains, and `unknown_generation`,
    `mixed_generations`, `equal_subscriptions`/`unequal_subscriptions`, `absent_subscribed_topic`,
    `empty_subscription`, `no_members`, `empty_topic`, `static`, `member_racks`, `racks`, `cooperative`, `lag`,
    `lag_no_commit`, `lag_committed_past_end`, `lag_committed_before_begin`, `earliest`, `latest`."""
    found = _claims(problem) | _members(problem) | _lag(problem)
    if any(n == 0 for n in problem.topics.values()):
        found.add("empty_topic")
    if problem.partition_racks is not None:
        found.add("racks")
    if problem.protocol == "cooperative":
        found.add("cooperative")
    return frozenset(found)


def _problem_inputs(problem: StreamsProblem) -> set[str]:
    """What the problem itself sets beyond its tasks and clients."""
    flags = (("standby_replicas", problem.num_standby_replicas), ("stateless", problem.stateless),
             ("acceptable_recovery_lag", problem.acceptable_recovery_lag is not None),
             ("rack_aware_assignment_tags", problem.rack_aware_assignment_tags))
    return {name for name, value in flags if value}


def _task_kinds(problem: StreamsProblem, pairs: list[tuple[str, int]]) -> set[str]:
    """The junk among one client's previous tasks of one role: repeats, and tasks of no sub-topology, a negative
    index or one past the sub-topology's size."""
    found = {"repeated"} if len(set(pairs)) < len(pairs) else set()
    for s, i in pairs:
        n = problem.subtopologies.get(s)
        found.add("unknown_subtopology" if n is None else "negative_index" if i < 0 else
                  "out_of_range" if i >= n else "")
    found.discard("")
    return found


def streams_features(problem: StreamsProblem) -> frozenset[str]:
    """The kinds of `STREAMS_JUNK_KINDS` a Streams problem contains, plus `standby`, `capacity_over_1`,
    `standby_replicas` (standbys to place), `stateless` (a stateless sub-topology), and what clients report:
    `lags`, `client_racks`, `client_tags`, `acceptable_recovery_lag`, `rack_aware_assignment_tags`."""
    found = _problem_inputs(problem)
    owners: Counter[tuple[str, int]] = Counter()
    for c in problem.clients:
        reported = (("capacity_over_1", c.capacity > 1), ("lags", c.lags), ("client_racks", c.rack is not None),
                    ("client_tags", c.client_tags))
        found.update(name for name, value in reported if value)
        actives, standbys = list(iter_pairs(c.active)), list(iter_pairs(c.standby))
        found |= _task_kinds(problem, actives) | _task_kinds(problem, standbys)
        if standbys:
            found.add("standby")
        if set(standbys) & set(actives):
            found.add("active_and_standby")
        owners.update(set(actives))
    if any(k >= 2 and 0 <= i < problem.subtopologies.get(s, 0) for (s, i), k in owners.items()):
        found.add("double_active")
    return frozenset(found)

__all__ = ["ABSENT_TOPIC", "JUNK_KINDS", "RACKS", "STREAMS_JUNK_KINDS", "features", "streams_features"]
