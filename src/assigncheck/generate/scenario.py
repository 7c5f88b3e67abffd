"""Scenarios: a problem, then a sequence of membership or metadata changes, each followed by a rebalance.

Round 0 assigns `initial`. Before every later rebalance the previous output is fed back with
`spec.rounds.next_round` (owned := output, generation + 1) and then one step is applied. A cooperative
problem's rebalance is `spec.rounds.run_rounds` (repeated until nothing is withheld, at most `max_rounds`),
so one step may produce several rounds; an eager rebalance is one round.

JSON (``"kind": "scenario"``)::

    {"format": 1, "kind": "scenario", "initial": {problem document},
     "steps": [{"join": {member document}}, {"leave": "c1"},
               {"subscribe": {"member": "c1", "topics": ["t0"]}},
               {"add_partitions": {"topic": "t0", "count": 5}}, {"delete_topic": "t1"},
               {"rejoin_stale": {"member": "c1", "rounds_back": 1}}]}

`rejoin_stale` is the KAFKA-7026 / KAFKA-14639 shape: a member (present, or one that left) sends the claims
and generation it held `rounds_back` rebalances before the latest one (1 = the claims fed into the latest
rebalance). A member that left rejoins with its old subscription.
`add_partitions` on a topic missing from the metadata creates it; a count may never shrink a topic.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias, TypeVar, dataclass_transform

import numpy as np

from assigncheck.formats import documents as json_format
from assigncheck.formats.json_input import json_type
from assigncheck.spec.errors import FormatError, InputError
from assigncheck.spec.limits import MAX_MEMBERS, MAX_PARTITIONS, check_limit
from assigncheck.spec.model import INT32_MAX, Assignment, LagInfo, Member, Problem, TopicOffsets, partitions_of
from assigncheck.spec.rounds import next_round, run_rounds

_T = TypeVar("_T")


@dataclass_transform(frozen_default=True)
def _step(cls: type[_T]) -> type[_T]:
    """A scenario step type: an immutable value, compared by content (each step type is one)."""
    return dataclass(frozen=True, slots=True)(cls)


@_step
class Join:
    member: Member


@_step
class Leave:
    member_id: str


@_step
class Subscribe:
    member_id: str
    topics: frozenset[str]


@_step
class AddPartitions:
    topic: str
    count: int


@_step
class DeleteTopic:
    topic: str


@_step
class RejoinStale:
    member_id: str
    rounds_back: int = 1


Step: TypeAlias = Join | Leave | Subscribe | AddPartitions | DeleteTopic | RejoinStale
STEP_KINDS = ("join", "leave", "subscribe", "add_partitions", "delete_topic", "rejoin_stale")


@dataclass(frozen=True, slots=True)
class Scenario:
    initial: Problem
    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.steps, tuple):
            object.__setattr__(self, "steps", tuple(self.steps))


AssignFn: TypeAlias = Callable[[Problem], Assignment]


# ---- applying steps -----------------------------------------------------------------------------------


def _grow_racks(problem: Problem, topic: str, count: int) -> Mapping[str, tuple[frozenset[str], ...]] | None:
    if problem.partition_racks is None:
        return None
    racks = dict(problem.partition_racks)
    old = racks.get(topic)
    if old is None:
        return racks  # rack information is per topic and optional; a new topic has none
    # New partitions get the replica racks of the partition they wrap onto: a plausible broker placement.
    racks[topic] = tuple(old) + tuple(old[i % len(old)] if old else frozenset() for i in range(len(old), count))
    return racks


def _grow_lag(problem: Problem, topic: str, count: int) -> LagInfo | None:
    if problem.lag is None:
        return None
    offsets = dict(problem.lag.offsets)
    old = offsets.get(topic)
    extra = count - (len(old.begin) if old is not None else 0)
    zeros, none = np.zeros(extra, dtype=np.int64), np.full(extra, -1, dtype=np.int64)
    if old is None:
        offsets[topic] = TopicOffsets(zeros, zeros.copy(), none)
    else:  # a new partition is empty and has no commit yet
        offsets[topic] = TopicOffsets(
            np.concatenate([old.begin, zeros]), np.concatenate([old.end, zeros]), np.concatenate([old.committed, none])
        )
    return LagInfo(offsets, problem.lag.auto_offset_reset)


def _without_topic(problem: Problem, topic: str) -> Problem:
    topics = {t: n for t, n in problem.topics.items() if t != topic}
    racks = problem.partition_racks
    if racks is not None:
        racks = {t: r for t, r in racks.items() if t != topic}
    lag = problem.lag
    if lag is not None:
        lag = LagInfo({t: o for t, o in lag.offsets.items() if t != topic}, lag.auto_offset_reset)
    return problem.replace(topics=topics, partition_racks=racks, lag=lag)


def _replace_member(problem: Problem, member_id: str, new: Member) -> Problem:
    return problem.replace(members=tuple(new if m.member_id == member_id else m for m in problem.members))


def apply_step(problem: Problem, step: Step, history: Sequence[Problem], path: str = "step") -> Problem:
    """The problem after one change. `history` holds the claims after each completed rebalance, oldest
    first (`history[0]` is the initial problem, `history[-1]` the claims just fed back); only
    `RejoinStale` reads it. Raises `InputError` at `path` when the step does not fit the group."""
    ids = set(problem.member_ids)
    if isinstance(step, Join):
        if step.member.member_id in ids:
            raise InputError(f"{path}.join.id", f"member {step.member.member_id!r} is already in the group")
        check_limit(f"{path}.join", len(ids) + 1, MAX_MEMBERS, "members")
        return problem.replace(members=problem.members + (step.member,))
    if isinstance(step, Leave):
        if step.member_id not in ids:
            raise InputError(f"{path}.leave", f"member {step.member_id!r} is not in the group")
        return problem.replace(members=tuple(m for m in problem.members if m.member_id != step.member_id))
    if isinstance(step, Subscribe):
        if step.member_id not in ids:
            raise InputError(f"{path}.subscribe.member", f"member {step.member_id!r} is not in the group")
        old = problem.member(step.member_id)
        new = Member(old.member_id, frozenset(step.topics), old.owned, old.generation, old.instance_id, old.rack)
        return _replace_member(problem, step.member_id, new)
    if isinstance(step, AddPartitions):
        current = problem.topics.get(step.topic, 0)
        if not current <= step.count <= INT32_MAX:
            raise InputError(f"{path}.add_partitions.count", f"must be between {current} (the current count) "
                             f"and {INT32_MAX}, got {step.count}: a topic never shrinks")
        total = sum(problem.topics.values()) - current + step.count
        check_limit(f"{path}.add_partitions.count", total, MAX_PARTITIONS, "partitions in total")
        topics = dict(problem.topics)
        topics[step.topic] = step.count
        return problem.replace(topics=topics, partition_racks=_grow_racks(problem, step.topic, step.count),
                               lag=_grow_lag(problem, step.topic, step.count))
    if isinstance(step, DeleteTopic):
        if step.topic not in problem.topics:
            raise InputError(f"{path}.delete_topic", f"topic {step.topic!r} is not in the metadata")
        return _without_topic(problem, step.topic)
    if isinstance(step, RejoinStale):
        earlier = len(history) - 1
        if not 1 <= step.rounds_back <= earlier:
            raise InputError(f"{path}.rejoin_stale.rounds_back",
                             f"must be between 1 and {earlier} (the rebalances so far), got {step.rounds_back}")
        source = history[-1 - step.rounds_back]
        stale = next((m for m in source.members if m.member_id == step.member_id), None)
        if step.member_id in ids:
            old = problem.member(step.member_id)
            owned, gen = (stale.owned, stale.generation) if stale is not None else (partitions_of(None), -1)
            return _replace_member(
                problem, step.member_id, Member(old.member_id, old.subscription, owned, gen, old.instance_id, old.rack)
            )
        if stale is None:
            raise InputError(f"{path}.rejoin_stale.member",
                             f"member {step.member_id!r} is neither in the group nor {step.rounds_back} rounds back")
        check_limit(f"{path}.rejoin_stale", len(ids) + 1, MAX_MEMBERS, "members")
        return problem.replace(members=problem.members + (stale,))
    raise TypeError(f"not a scenario step: {step!r}")


# ---- running ------------------------------------------------------------------------------------------


def _assign_fn(assign: AssignFn | Any) -> AssignFn:
    return assign.assign if hasattr(assign, "assign") else assign


def run_scenario_by_step(
    assign: AssignFn | Any, scenario: Scenario, *, max_rounds: int = 4
) -> list[list[tuple[Problem, Assignment]]]:
    """Each rebalance's rounds (one list for round 0, then one per step). `assign` is a function
    `Problem -> Assignment` or an `Assignor` (anything with `.assign`)."""
    fn = _assign_fn(assign)
    history: list[Problem] = [scenario.initial]
    problem = scenario.initial
    out = []
    for i, step in enumerate((None,) + scenario.steps):
        if step is not None:
            problem = apply_step(problem, step, history, f"steps[{i - 1}]")
        if problem.protocol == "cooperative":
            rounds = run_rounds(fn, problem, max_rounds)
        else:
            rounds = [(problem, fn(problem))]
        out.append(rounds)
        last_problem, last_output = rounds[-1]
        problem = next_round(last_problem, last_output)
        history.append(problem)
    return out


def run_scenario(
    assign: AssignFn | Any, scenario: Scenario, *, max_rounds: int = 4
) -> list[tuple[Problem, Assignment]]:
    """Every round of the scenario, in order: `(input problem, output)`. Eager: 1 + len(steps) rounds;
    cooperative: each rebalance is `spec.rounds.run_rounds` (until nothing is withheld, at most
    `max_rounds`), so there may be more; a rebalance still withholding after `max_rounds` is fed back as
    it is (the caller judges it, as with `run_rounds`). Raises `InputError` if a step does not fit the group."""
    validate_scenario(scenario)
    return [r for rounds in run_scenario_by_step(assign, scenario, max_rounds=max_rounds) for r in rounds]


def _nothing(problem: Problem) -> Assignment:
    return Assignment({})


def validate_scenario(scenario: Scenario) -> None:
    """Raise `InputError` naming `steps[i]...` if a step does not fit the group at that point (leaving a
    member that is not there, shrinking a topic, ...). Which members and topics exist never depends on
    the assignor, so a dry run with an empty assignment decides it."""
    if not isinstance(scenario.initial, Problem):
        raise InputError("initial", "must be a consumer problem")
    run_scenario_by_step(_nothing, scenario, max_rounds=1)


# ---- JSON -------------------------------------------------------------------------------------------------


def _step_json(step: Step) -> dict[str, Any]:
    if isinstance(step, Join):
        return {"join": json_format.member_to_json(step.member)}
    if isinstance(step, Leave):
        return {"leave": step.member_id}
    if isinstance(step, Subscribe):
        return {"subscribe": {"member": step.member_id, "topics": sorted(step.topics)}}
    if isinstance(step, AddPartitions):
        return {"add_partitions": {"topic": step.topic, "count": step.count}}
    if isinstance(step, DeleteTopic):
        return {"delete_topic": step.topic}
    if isinstance(step, RejoinStale):
        return {"rejoin_stale": {"member": step.member_id, "rounds_back": step.rounds_back}}
    raise TypeError(f"not a scenario step: {step!r}")


def scenario_to_json(scenario: Scenario) -> dict[str, Any]:
    return {
        "format": json_format.FORMAT_VERSION,
        "kind": "scenario",
        "initial": json_format.problem_to_json(scenario.initial),
        "steps": [_step_json(s) for s in scenario.steps],
    }


def _str(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise FormatError(path, f"must be a string, got {json_type(value)}")
    return value


def _int(value: Any, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormatError(path, f"must be an integer, got {json_type(value)}")
    return value


def _fields(value: Any, path: str, names: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise FormatError(path, f"must be an object, got {json_type(value)}")
    for key in names:
        if key not in value:
            raise FormatError(f"{path}.{key}", "is missing")
    for key in sorted(set(value) - set(names)):
        raise FormatError(f"{path}.{key}", "is not a known field")
    return value


def _step_from_json(doc: Any, path: str) -> Step:
    if not isinstance(doc, dict) or len(doc) != 1:
        raise FormatError(path, f"must be an object with exactly one of: {', '.join(STEP_KINDS)}")
    (kind, body), = doc.items()
    p = f"{path}.{kind}"
    if kind == "join":
        return Join(json_format.member_from_json(body, p))
    if kind == "leave":
        return Leave(_str(body, p))
    if kind == "subscribe":
        obj = _fields(body, p, ("member", "topics"))
        if not isinstance(obj["topics"], list):
            raise FormatError(f"{p}.topics", "must be a list")
        topics = frozenset(_str(t, f"{p}.topics[{j}]") for j, t in enumerate(obj["topics"]))
        return Subscribe(_str(obj["member"], f"{p}.member"), topics)
    if kind == "add_partitions":
        obj = _fields(body, p, ("topic", "count"))
        return AddPartitions(_str(obj["topic"], f"{p}.topic"), _int(obj["count"], f"{p}.count"))
    if kind == "delete_topic":
        return DeleteTopic(_str(body, p))
    if kind == "rejoin_stale":
        obj = _fields(body, p, ("member", "rounds_back"))
        return RejoinStale(_str(obj["member"], f"{p}.member"), _int(obj["rounds_back"], f"{p}.rounds_back"))
    raise FormatError(p, f"is not a known step; known: {', '.join(STEP_KINDS)}")


def scenario_from_json(doc: Any) -> Scenario:
    """A parsed JSON document -> a validated `Scenario`. Raises `FormatError`/`InputError` naming the field."""
    if not isinstance(doc, dict):
        raise FormatError("", f"must be an object, got {json_type(doc)}")
    version = doc.get("format")
    if type(version) is not int or version != json_format.FORMAT_VERSION:  # not 1.0, not true
        raise FormatError("format", f"must be the integer {json_format.FORMAT_VERSION}, got "
                                    f"{json_format.brief(version)}")
    if doc.get("kind") != "scenario":
        raise FormatError("kind", f"must be 'scenario', got {json_format.brief(doc.get('kind'))}")
    for key in ("initial", "steps"):
        if key not in doc:
            raise FormatError(key, "is missing")
    for key in sorted(set(doc) - {"format", "kind", "initial", "steps", "note"}):
        raise FormatError(key, "is not a known field")
    initial_doc = doc["initial"]
    if isinstance(initial_doc, dict) and "format" not in initial_doc:  # the outer document's version applies
        initial_doc = {"format": json_format.FORMAT_VERSION, **initial_doc}
    try:
        initial = json_format.problem_from_json(initial_doc)
    except FormatError as e:
        raise FormatError(f"initial.{e.path}" if e.path else "initial", e.message) from None
    if not isinstance(initial, Problem):
        raise FormatError("initial.kind", "must be a consumer problem")
    if not isinstance(doc["steps"], list):
        raise FormatError("steps", "must be a list")
    scenario = Scenario(initial, tuple(_step_from_json(s, f"steps[{i}]") for i, s in enumerate(doc["steps"])))
    try:
        validate_scenario(scenario)
    except FormatError:
        raise
    except InputError as e:  # a step that does not fit the group makes the document ill-formed
        raise FormatError(e.path, e.message) from None
    return scenario


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """A scenario from a JSON file or `-` (standard input)."""
    doc = json_format.load_json(path)
    try:
        return scenario_from_json(doc)
    except InputError as e:
        where = "standard input" if str(path) == "-" else str(path)
        raise type(e)(f"{where}: {e.path}", e.message) from None


def save_scenario(scenario: Scenario, path: str | os.PathLike[str], *, note: str | None = None) -> Path:
    doc = scenario_to_json(scenario)
    if note:
        doc["note"] = note
    return json_format.write_atomic(path, json_format.dumps(doc, pretty=True) + "\n")

__all__ = [
    "AddPartitions", "DeleteTopic", "Join", "Leave", "RejoinStale", "STEP_KINDS", "Scenario", "Step", "Subscribe",
    "apply_step", "load_scenario", "run_scenario", "run_scenario_by_step", "save_scenario", "scenario_from_json",
    "scenario_to_json", "validate_scenario"
]
