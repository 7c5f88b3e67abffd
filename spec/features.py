"""What a problem exercises, recognised from the problem alone: each kind of junk claim, mixed generations,
racks, static members, lag... Generators promise features (tests show they reach them), and a finding's
signature is its invariant plus the features of its minimized problem (`findings.signature`)."""

from __future__ import annotations

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


def streams_features(problem: StreamsProblem) -> frozenset[str]:
    """The kinds of `STREAMS_JUNK_KINDS` a Streams problem contains, plus `standby`, `capacity_over_1`,
    `standby_replicas` (standbys to place), `stateless` (a stateless sub-topology), and what clients report:
    `lags`, `client_racks`, `client_tags`, `acceptable_recovery_lag`, `rack_aware_assignment_tags`."""
    found: set[str] = {"standby_replicas"} if problem.num_standby_replicas else set()
    if problem.stateless:
        found.add("stateless")
    if problem.acceptable_recovery_lag is not None:
        found.add("acceptable_recovery_lag")
    if problem.rack_aware_assignment_tags:
        found.add("rack_aware_assignment_tags")
    owners: dict[tuple[str, int], int] = {}
    for c in problem.clients:
        if c.capacity > 1:
            found.add("capacity_over_1")
        found.update(name for name, value in (("lags", c.lags), ("client_racks", c.rack is not None),
                                              ("client_tags", c.client_tags)) if value)
        actives = set(iter_pairs(c.active))
        for role, parts in (("active", c.active), ("standby", c.standby)):
            pairs = list(iter_pairs(parts))
            if len(set(pairs)) < len(pairs):
                found.add("repeated")
            for s, i in pairs:
                n = problem.subtopologies.get(s)
                if n is None:
                    found.add("unknown_subtopology")
                elif i < 0:
                    found.add("negative_index")
                elif i >= n:
                    found.add("out_of_range")
                if role == "standby":
                    found.add("standby")
                    if (s, i) in actives:
                        found.add("active_and_standby")
        for task in actives:
            owners[task] = owners.get(task, 0) + 1
    if any(k >= 2 and 0 <= i < problem.subtopologies.get(s, 0) for (s, i), k in owners.items()):
        found.add("double_active")
    return frozenset(found)

__all__ = ["ABSENT_TOPIC", "JUNK_KINDS", "RACKS", "STREAMS_JUNK_KINDS", "features", "streams_features"]
