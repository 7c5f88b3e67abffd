"""The checks of `spec.invariants`, `spec.balance`, `spec.stickiness` and `spec.racks` in plain Python, for small
problems (`spec.small.views.is_small`): the same violations, word for word, and the same measures.

Each function here has a vectorized twin of the same name; `spec.assignment_check` picks one set per report, and
`tests/spec/small/test_checks.py` holds whole reports of both equal on hypothesis' problems and outputs (junk
included). Orders follow the twins: rows in `OutputView` order, partitions by global id, members by position.
"""

from __future__ import annotations

from collections.abc import Callable

from assigncheck.spec import balance as bal
from assigncheck.spec.invariants import CAP, and_more, h1_members, withhold_violation
from assigncheck.spec.model import Assignment, Problem
from assigncheck.spec.oracle import (
    max_retained,
    min_mismatches,
    optimal_sum_squares,
    settle_max_retained,
    settle_min_mismatches,
)
from assigncheck.spec.partition_rows import last_call_cache
from assigncheck.spec.racks import member_rack, rack_aware
from assigncheck.spec.small.oracle import balanced_counts
from assigncheck.spec.small.views import OutputView, ProblemView, output_view, problem_view
from assigncheck.spec.stickiness import retained_violation
from assigncheck.spec.violations import Violation


def _name_rows(ov: OutputView, picked: list[int]) -> tuple[tuple[str, ...], tuple[tuple[str, int], ...], str]:
    by_member: dict[str, list[str]] = {}
    parts = []
    for r in picked[:CAP]:
        parts.append((ov.topic[r], ov.index[r]))
        by_member.setdefault(ov.ids[ov.member[r]], []).append(f"{ov.topic[r]}-{ov.index[r]}")
    text = "; ".join(f"{m}: {', '.join(ps)}" for m, ps in by_member.items())
    return tuple(by_member), tuple(parts), text + and_more(len(picked), min(len(picked), CAP))


def h2_existence(problem: Problem, assignment: Assignment) -> list[Violation]:
    ov = output_view(problem, assignment)
    bad = [r for r, g in enumerate(ov.gid) if g < 0]
    if not bad:
        return []
    members, parts, text = _name_rows(ov, bad)
    return [Violation("H2", f"{len(bad)} assigned partition(s) do not exist: {text}", members, parts)]


def h3_subscription(problem: Problem, assignment: Assignment) -> list[Violation]:
    ov, subs = output_view(problem, assignment), problem_view(problem).subs
    n = len(subs)
    bad = [r for r, (m, t) in enumerate(zip(ov.member, ov.topic)) if m < n and t not in subs[m]]
    if not bad:
        return []
    members, parts, text = _name_rows(ov, bad)
    return [Violation("H3", f"{len(bad)} partition(s) given to members not subscribed to their topic: {text}",
                      members, parts)]


def _assigned_counts(ov: OutputView) -> dict[int, int]:
    counts: dict[int, int] = {}
    for g in ov.gid:
        if g >= 0:
            counts[g] = counts.get(g, 0) + 1
    return counts


def h4_exclusivity(problem: Problem, assignment: Assignment) -> list[Violation]:
    ov, pv = output_view(problem, assignment), problem_view(problem)
    dup = sorted(g for g, c in _assigned_counts(ov).items() if c > 1)
    if not dup:
        return []
    shown = dup[:CAP]
    holders = {g: [ov.ids[m] for m, x in zip(ov.member, ov.gid) if x == g] for g in shown}
    members = tuple(dict.fromkeys(h for g in shown for h in holders[g]))[:CAP]
    texts = []
    for g in shown:
        t, i = pv.pair(g)
        texts.append(f"{t}-{i} to {', '.join(holders[g])}")
    parts = tuple(pv.pair(g) for g in shown)
    msg = f"{len(dup)} partition(s) assigned more than once: {'; '.join(texts)}{and_more(len(dup), len(shown))}"
    return [Violation("H4", msg, members, parts)]


@last_call_cache
def _unassigned(pv: ProblemView, ov: OutputView) -> list[int]:
    """Global ids of partitions of subscribed topics that nobody got, ascending."""
    got = set(ov.gid)
    return [g for t in pv.subscribed for g in range(pv.offset[t], pv.offset[t] + pv.size[t]) if g not in got]


def h5_completeness(problem: Problem, assignment: Assignment) -> list[Violation]:
    pv = problem_view(problem)
    missing = _unassigned(pv, output_view(problem, assignment))
    if problem.protocol == "cooperative":
        missing = [g for g in missing if not pv.claimants.get(g)]
    if not missing:
        return []
    parts = tuple(pv.pair(g) for g in missing[:CAP])
    text = ", ".join(f"{t}-{i}" for t, i in parts) + and_more(len(missing), len(parts))
    why = " that nobody claims" if problem.protocol == "cooperative" else ""
    return [Violation("H5", f"{len(missing)} partition(s) of subscribed topics{why} are unassigned: {text}", (), parts)]


def h6_cooperative_safety(problem: Problem, assignment: Assignment) -> list[Violation]:
    if problem.protocol != "cooperative":
        return []
    pv, ov = problem_view(problem), output_view(problem, assignment)
    claims, claimants = pv.claims, pv.claimants
    bad = [r for r, (m, g) in enumerate(zip(ov.member, ov.gid))
           if g >= 0 and (m, g) not in claims and claimants.get(g)]
    if not bad:
        return []
    texts, members = [], []
    for r in bad[:CAP]:
        receiver, g = ov.ids[ov.member[r]], ov.gid[r]
        holders = [pv.ids[m] for m in sorted(m for m, x in claims if x == g)]
        texts.append(f"{ov.topic[r]}-{ov.index[r]} given to {receiver} while {', '.join(holders)} still claim(s) it")
        members.extend([receiver, *holders])
    parts = tuple((ov.topic[r], ov.index[r]) for r in bad[:CAP])
    msg = f"{len(bad)} partition(s) handed over before being revoked: {'; '.join(texts)}{and_more(len(bad), CAP)}"
    return [Violation("H6", msg, tuple(dict.fromkeys(members))[:CAP], parts)]


def cooperative_withhold(problem: Problem, assignment: Assignment, eager: Assignment) -> list[Violation]:
    """`spec.invariants.cooperative_withhold`, plainly."""
    if problem.protocol != "cooperative":
        return []
    pv, n = problem_view(problem), len(problem.members)

    def keys(ov: OutputView) -> list[tuple[int, int]]:
        return sorted({(m, g) for m, g in zip(ov.member, ov.gid) if g >= 0 and m < n})

    planned, got = keys(output_view(problem, eager)), keys(output_view(problem, assignment))
    got_set, planned_set = set(got), set(planned)
    valid = pv.valid_keys
    hold = {k for k in planned if pv.claimants.get(k[1], 0) - (k in pv.claims) > 0 and k not in valid}
    bad = ([("withheld needlessly", k) for k in planned if k not in hold and k not in got_set]
           + [("handed over before its claimant revoked", k) for k in planned if k in hold and k in got_set]
           + [("not in the eager assignment", k) for k in got if k not in planned_set])
    if not bad:
        return []
    return withhold_violation([(what, pv.ids[m], pv.pair(g)) for what, (m, g) in bad[:CAP]], len(bad))


HARD: tuple[Callable[[Problem, Assignment], list[Violation]], ...] = (
    h1_members, h2_existence, h3_subscription, h4_exclusivity, h5_completeness, h6_cooperative_safety)


def check_hard(problem: Problem, assignment: Assignment) -> list[Violation]:
    return [v for check in HARD for v in check(problem, assignment)]


# ---- balance ----------------------------------------------------------------------------------------------


@last_call_cache
def member_counts(problem: Problem, assignment: Assignment) -> list[int]:
    """Per problem member: how many partitions the output lists for it, junk included."""
    ov = output_view(problem, assignment)
    n = len(problem.members)
    counts = [0] * n
    for m in ov.member:
        if m < n:
            counts[m] += 1
    return counts


def spread(problem: Problem, assignment: Assignment) -> int:
    counts = member_counts(problem, assignment)
    return max(counts) - min(counts) if counts else 0


def sum_squares(problem: Problem, assignment: Assignment) -> int:
    return sum(c * c for c in member_counts(problem, assignment))


def _ids(problem: Problem, positions: list[int]) -> list[str]:
    return [problem.members[i].member_id for i in positions[:CAP]]


def perfect(problem: Problem, assignment: Assignment) -> list[Violation]:
    if not problem.members or not problem.subscriptions_equal():
        return []
    counts = member_counts(problem, assignment)
    hi, lo = max(counts), min(counts)
    if hi - lo <= 1:
        return []
    most = _ids(problem, [i for i, c in enumerate(counts) if c == hi])
    least = _ids(problem, [i for i, c in enumerate(counts) if c == lo])
    msg = f"member counts range from {lo} ({', '.join(least)}) to {hi} ({', '.join(most)}); at most 1 apart promised"
    return [Violation("balance.perfect", msg, tuple(dict.fromkeys(most + least))[:CAP])]


@last_call_cache
def _held(problem: Problem, assignment: Assignment) -> dict[tuple[int, str], int]:
    """(problem member, topic) -> existing partitions of it the output gives the member."""
    ov, n = output_view(problem, assignment), len(problem.members)
    got: dict[tuple[int, str], int] = {}
    for m, t, g in zip(ov.member, ov.topic, ov.gid):
        if g >= 0 and m < n:
            got[(m, t)] = got.get((m, t), 0) + 1
    return got


@last_call_cache
def topic_counts(problem: Problem, assignment: Assignment) -> list[tuple[str, list[tuple[int, int]]]]:
    """Per existing topic with subscribers, by name: (member position, partitions of it the member got) per
    subscriber, by position (`spec.partition_rows.topic_counts`)."""
    pv, got = problem_view(problem), _held(problem, assignment)
    n = len(pv.ids)
    return [(t, [(m, got.get((m, t), 0)) for m in range(n) if t in pv.subs[m]]) for t in pv.subscribed]


def per_topic_spreads(problem: Problem, assignment: Assignment) -> list[tuple[str, int, list[str], int, list[str]]]:
    out = []
    for t, pairs in topic_counts(problem, assignment):
        counts = [c for _, c in pairs]
        hi, lo = max(counts), min(counts)
        if hi - lo > 1:
            out.append((t, lo, _ids(problem, [m for m, c in pairs if c == lo]), hi,
                        _ids(problem, [m for m, c in pairs if c == hi])))
    return out


def per_topic(problem: Problem, assignment: Assignment) -> list[Violation]:
    return bal.skew_violation(per_topic_spreads(problem, assignment), "balance.per-topic",
                           "split more than 1 apart among subscribers")


def optimal(problem: Problem, assignment: Assignment) -> list[Violation]:
    best, got = optimal_sum_squares(problem), sum_squares(problem, assignment)
    if got <= best:
        return []
    counts = member_counts(problem, assignment)
    top = max(counts)
    most = _ids(problem, [i for i, c in enumerate(counts) if c == top])
    msg = f"sum of squared counts is {got}, the optimum is {best} (gap {got - best}); most loaded: {', '.join(most)}"
    return [Violation("balance.optimal", msg, tuple(most))]


def uniform(problem: Problem, assignment: Assignment) -> list[Violation]:
    return bal.as_uniform(perfect(problem, assignment) if problem.subscriptions_equal()
                          else bal.local(problem, assignment))


BALANCE_CHECKS = {"perfect": perfect, "per-topic": per_topic, "local": bal.local, "uniform": uniform,
                  "optimal": optimal}


# ---- stickiness -------------------------------------------------------------------------------------------


@last_call_cache
def _kept(problem: Problem, assignment: Assignment) -> list[bool]:
    """Per valid claim (`ProblemView.valid` order): did its owner get it again."""
    ov = output_view(problem, assignment)
    held = set(zip(ov.member, ov.gid))
    return [(m, g) in held for m, g, _, _ in problem_view(problem).valid]


def retained(problem: Problem, assignment: Assignment) -> int:
    return sum(_kept(problem, assignment))


def moves(problem: Problem, assignment: Assignment) -> int:
    return len(problem_view(problem).valid) - retained(problem, assignment)


def withheld(problem: Problem, assignment: Assignment) -> int:
    return len(_unassigned(problem_view(problem), output_view(problem, assignment)))


def per_topic_spread(problem: Problem, assignment: Assignment) -> int:
    spreads = [max(c for _, c in pairs) - min(c for _, c in pairs) for _, pairs in topic_counts(problem, assignment)]
    return max(spreads) if spreads else 0


def _class_spreads(problem: Problem, assignment: Assignment) -> list[tuple[str, int, list[str], int, list[str]]]:
    aware = rack_aware(problem)
    classes: dict[tuple[frozenset[str], str | None], int] = {}
    member_class = [classes.setdefault((m.subscription, member_rack(m.rack) if aware else None), len(classes))
                    for m in problem.members]
    out = []
    for t, pairs in topic_counts(problem, assignment):
        by_class: dict[int, list[tuple[int, int]]] = {}
        for m, c in pairs:
            by_class.setdefault(member_class[m], []).append((m, c))
        for k in sorted(by_class):
            group = by_class[k]
            hi, lo = max(c for _, c in group), min(c for _, c in group)
            if hi - lo > 1:
                out.append((t, lo, [problem.members[m].member_id for m, c in group if c == lo][:CAP], hi,
                            [problem.members[m].member_id for m, c in group if c == hi][:CAP]))
    return out


def per_topic_spread_violations(problem: Problem, assignment: Assignment) -> list[Violation]:
    valid = problem_view(problem).valid
    if not valid:
        return bal.skew_violation(_class_spreads(problem, assignment), "per_topic_spread",
                               "split more than 1 apart among members with identical subscriptions on a fresh "
                               "assignment")
    if not problem.subscriptions_equal() or rack_aware(problem):
        return []
    kept = _kept(problem, assignment)
    groups: dict[tuple[int, str], list[int]] = {}  # (member, topic) -> [kept, given up]
    for (m, _, t, _), k in zip(valid, kept):
        counts = groups.setdefault((m, t), [0, 0])
        counts[0 if k else 1] += 1
    most: dict[int, int] = {}
    least_given_up: dict[int, int] = {}
    for (m, _), (n_kept, gave) in groups.items():
        most[m] = max(most.get(m, 0), n_kept)
        if gave:
            least_given_up[m] = min(least_given_up.get(m, n_kept), n_kept)
    bad = sorted(m for m, low in least_given_up.items() if most[m] > low + 1)
    return _skewed_mix(problem, bad, groups, most, least_given_up, kept) if bad else []


def _skewed_mix(problem: Problem, bad: list[int], groups: dict[tuple[int, str], list[int]], most: dict[int, int],
                least_given_up: dict[int, int], kept: list[bool]) -> list[Violation]:
    """The violation naming the members (positions `bad`) that kept more of one topic than of another they gave up
    partitions of."""
    valid = problem_view(problem).valid
    texts, parts = [], []
    for mi in bad[:CAP]:
        mine = sorted((t, k, gave) for (m, t), (k, gave) in groups.items() if m == mi)
        t = next(t for t, k, _ in mine if k == most[mi])
        u = next(t for t, k, gave in mine if gave and k == least_given_up[mi])
        texts.append(f"{problem.members[mi].member_id} kept {most[mi]} of {t} "
                     f"but only {least_given_up[mi]} of {u}, which it gave up partitions of")
        lost = [(t2, i) for (m, _, t2, i), k in zip(valid, kept) if m == mi and t2 == u and not k]
        parts.extend(lost[:CAP])
    msg = f"{len(bad)} member(s) kept a skewed topic mix: {'; '.join(texts)}{and_more(len(bad), CAP)}"
    members = tuple(problem.members[mi].member_id for mi in bad[:CAP])
    return [Violation("per_topic_spread", msg, members, tuple(parts[:CAP]))]


def max_retained_violations(problem: Problem, assignment: Assignment, balance: str = "none", racks: bool = False
                            ) -> list[Violation]:
    return retained_violation(retained(problem, assignment), max_retained(problem, balance, racks), balance, racks)


def certify_max_retained(problem: Problem, assignment: Assignment, balance: str, racks: bool) -> None:
    """Settle the oracle's max retained without a flow when this output proves it. Call only for an output that
    meets H1-H5 with nothing withheld. If it also meets `balance`, it is one of the assignments the maximum is
    taken over, so the maximum is at least its retained; and no such assignment keeps more than Σ min(|V_m|, cap)
    ("optimal": cap = the smallest feasible maximum count, which no optimum exceeds; "perfect": ceil(P / C)). When
    the two meet, that is the maximum. On a rack-aware problem with `racks` the fewest mismatches come first: only
    an output without a mismatch settles them (none) and then, as above, the maximum."""
    if balance == "none":
        return
    aware = racks and rack_aware(problem)
    if aware and _mismatched_rows(problem, assignment):
        return
    counts = member_counts(problem, assignment)
    if balance == "optimal":
        held: list[dict[str, int]] = [{} for _ in counts]  # a complete assignment: the exchanges may start here
        for (m, t), k in _held(problem, assignment).items():
            held[m][t] = k
        optimum = balanced_counts(problem, held)
        if sum(c * c for c in counts) != sum(c * c for c in optimum):
            return
        cap = max(optimum, default=0)
    else:
        if not counts or max(counts) - min(counts) > 1:
            return
        cap = -(-sum(counts) // len(counts))
    valid = [0] * len(counts)
    for m, _, _, _ in problem_view(problem).valid:
        valid[m] += 1
    if aware:
        settle_min_mismatches(problem, balance, 0)
    got = retained(problem, assignment)
    if got == sum(min(v, cap) for v in valid):
        settle_max_retained(problem, balance, racks, got)


# ---- racks ------------------------------------------------------------------------------------------------


def _mismatched_rows(problem: Problem, assignment: Assignment) -> list[int]:
    """Rows of problem members holding an existing partition none of whose replicas is on their rack."""
    ov = output_view(problem, assignment)
    racks = [member_rack(m.rack) for m in problem.members]
    known = problem.partition_racks or {}
    n = len(racks)
    out = []
    for r, (m, t, i, g) in enumerate(zip(ov.member, ov.topic, ov.index, ov.gid)):
        if g < 0 or m >= n or racks[m] is None:
            continue
        given = known.get(t)
        if given is None or i >= len(given) or racks[m] not in given[i]:
            out.append(r)
    return out


def mismatches(problem: Problem, assignment: Assignment) -> int:
    if not any(m.rack for m in problem.members):
        return 0
    return len(_mismatched_rows(problem, assignment))


def rack_violations(problem: Problem, assignment: Assignment, balance: str) -> list[Violation]:
    if not rack_aware(problem):
        return []
    best = min_mismatches(problem, balance)
    bad = _mismatched_rows(problem, assignment)
    if best is None or len(bad) <= best:
        return []
    ov = output_view(problem, assignment)
    shown = [(ov.ids[ov.member[r]], (ov.topic[r], ov.index[r])) for r in bad[:20]]
    texts = ", ".join(f"{t}-{i} to {m}" for m, (t, i) in shown)
    msg = (f"{len(bad)} partition(s) on members whose rack none of their replicas is on; {best} is the fewest under "
           f"{balance} balance (KIP-881): {texts}")
    return [Violation("racks", msg, tuple(dict.fromkeys(m for m, _ in shown)), tuple(tp for _, tp in shown))]

__all__ = [
    "BALANCE_CHECKS", "certify_max_retained", "check_hard", "cooperative_withhold", "max_retained_violations",
    "mismatches", "moves", "per_topic_spread", "per_topic_spread_violations", "rack_violations", "retained", "spread",
    "sum_squares", "withheld"
]
