"""What every check returns: structured violations, never bare booleans; and the one vocabulary of
invariant ids that the checker, the Z3 models, the fuzzer, the campaigns, the reports and replay share."""

from __future__ import annotations

from dataclasses import dataclass

from assigncheck.spec.model import TopicPartition

# id -> what it means. A Violation with an id not listed here is a programming error (it raises), and a test
# fails if a Z3 model names one: a proof's counterexample must replay under the id the checker reports.
INVARIANTS: dict[str, str] = {
    "H1": "the output has exactly the problem's member ids",
    "H2": "every assigned partition exists",
    "H3": "a member only gets partitions of topics it subscribes to",
    "H4": "no partition is assigned twice",
    "H5": "every partition of a subscribed topic is assigned (or, cooperative, withheld for its claimant)",
    "H6": "cooperative safety: a partition another member still claims is not handed out this round",
    "H7": "no crash, an Assignment back, within the time budget",
    "H8": "determinism: the same output twice, for the same problem listed in another order, and in another process",
    "balance.perfect": "max - min member count <= 1 (where subscriptions are equal)",
    "balance.per-topic": "per topic, counts among its subscribers differ by <= 1",
    "balance.local": "no single move of a partition to a subscriber with 2 fewer partitions",
    "balance.uniform": "balance.perfect where subscriptions are equal, balance.local elsewhere (UniformAssignor)",
    "balance.optimal": "the minimum sum of squared member counts under the subscriptions",
    "balance.quota": "each member gets floor(P/N) or ceil(P/N) partitions (equal subscriptions)",
    "stickiness.max_retained": "retained == the maximum retained under the balance promise",
    "fixpoint": "feeding the output back as the owned partitions reproduces it",
    "per_topic_spread": "each member's share of every topic differs by <= 1 (KAFKA-16277)",
    "racks": "on a rack-aware problem, the fewest rack mismatches the balance promise allows (KIP-881)",
    "exact": "the output equals the spec's reference assignor",
    "cooperative.rounds": "a cooperative rebalance converges (nothing withheld) within the promised rounds",
    "cooperative.withhold": "a cooperative round is the eager assignment minus exactly the transfers to hold back",
    "scale.time": "at most the promised CPU seconds per call at the promised size (max_time)",
    "scale.growth": "CPU time per call grows at most as (members + partitions)^max_growth on the scale ladder",
    "streams.clients": "a Streams output names exactly the problem's clients",
    "streams.active_once": "each Streams task is active on exactly one client",
    "streams.balance": "the promised task balance: max - min of tasks per capacity <= 1, or none above its ceiling",
    "streams.sticky": "a previous active task stays while its client is within quota",
    "streams.mix": "the previous actives a client keeps are as close to the sub-topology mix as any it could keep",
    "streams.standby_replicas": "standbys only of known tasks, at most num_standby_replicas per task",
    "streams.standby_apart": "no client holds two copies of a task (active and standby, or a standby twice)",
    "streams.standby_stateful": "no standby of a stateless task",
    "model.conformance": "the Z3 model computes what the code computes",
    "oracle": "the min-cost-flow oracle and Z3 agree on an optimum",
    "promises": "a built-in assignor declares at least what docs/SPEC.md §8.2 says it must",
    "harness.error": "the checker itself failed on an instance (a harness bug, reported with its problem)",
    "codec.crash": "a wire decoder answers junk with WireFormatError, nothing else",
    "codec.roundtrip": "a decoded wire message re-encodes to itself",
    "live.convergence": "a live group reaches a stable point within the declared seconds after a change",
    "live.conformance": "a live group's stable assignment equals its assignor's output on the rebuilt problem",
}

# Ids a proof may refute that the checker judges under another id (a stronger model-only statement): a
# counterexample to balance.quota breaks balance.perfect on the code too.
JUDGED_AS: dict[str, str] = {"balance.quota": "balance.perfect"}


def judged_as(invariant: str) -> str:
    """The id the checker reports when `invariant` breaks on the code."""
    return JUDGED_AS.get(invariant, invariant)


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken invariant or promise (docs/SPEC.md §9.1): which, who, what, and why in one sentence.

    `cause` identifies a crash (H7) beyond its message: the exception type and the frame that raised it
    (`KeyError@sticky.py:_assign:87`), or how a `cmd:` target failed (`cmd.hang`). Two crashes with different
    causes are different bugs (`signature`)."""

    invariant: str
    message: str
    members: tuple[str, ...] = ()
    partitions: tuple[TopicPartition, ...] = ()
    cause: str = ""

    def __post_init__(self) -> None:
        if self.invariant not in INVARIANTS:
            raise ValueError(f"unknown invariant id {self.invariant!r}: add it to spec.violations.INVARIANTS")

    def to_json(self) -> dict[str, object]:
        doc: dict[str, object] = {
            "invariant": self.invariant,
            "message": self.message,
            "members": list(self.members),
            "partitions": [list(tp) for tp in self.partitions],
        }
        if self.cause:
            doc["cause"] = self.cause
        return doc

    def __str__(self) -> str:
        return f"{self.invariant}: {self.message}"

__all__ = ["INVARIANTS", "JUDGED_AS", "Violation", "judged_as"]
