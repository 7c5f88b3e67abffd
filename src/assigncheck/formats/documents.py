"""The versioned JSON format for problems and assignments (one document per file, or JSON lines).

The same format serves the CLI, reproducers, regression vectors, the `cmd:` subprocess protocol and
campaign rows. Loaders reject ill-formed input with a `FormatError` naming the field path
(`members[2].owned.t0[1]`); junk *claims* inside a well-formed problem are kept as sent.

Consumer problem (`"kind"` may be omitted)::

    {"format": 1, "kind": "consumer", "group_type": "classic", "protocol": "eager",
     "topics": {"t0": 3},
     "members": [{"id": "c0", "subscription": ["t0"], "owned": {"t0": [0, 1]},
                  "generation": 3, "instance_id": null, "rack": "r1"}],
     "partition_racks": {"t0": [["r1", "r2"], ["r2"], ["r3"]]},            (optional)
     "lag": {"auto_offset_reset": "earliest",                                (optional)
             "offsets": {"t0": {"begin": [0, 0, 0], "end": [9, 5, 0], "committed": [4, null, 0]}}}}

`group_type` (default "classic") is Kafka's: "classic" (the client-side protocol, `protocol` eager or cooperative),
"consumer" (KIP-848) or "share" (KIP-932); in the last two the broker's coordinator assigns, each member's `owned`
is its previous target assignment, and `protocol` and `generation` have no meaning (omitted, or eager and -1).

Streams problem::

    {"format": 1, "kind": "streams", "subtopologies": {"st0": 4},
     "clients": [{"id": "A", "capacity": 2, "active": {"st0": [0]}, "standby": {"st0": [1]}}],
     "num_standby_replicas": 1, "stateless": []}

Assignment::

    {"format": 1, "assignment": {"c0": {"t0": [0, 1]}, "c1": {}}}
"""

from __future__ import annotations

import errno
import json
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from assigncheck.formats.json_input import (
    JSONSyntaxError,
    decode,
    file_kind,
    gc_paused,
    json_type,
    load_json,
    parse_json,
    read_input,
)
from assigncheck.spec.errors import FormatError, InputError
from assigncheck.spec.limits import MAX_MEMBERS, MAX_PARTITIONS, MAX_TASKS, MAX_TOPICS, check_limit
from assigncheck.spec.model import (
    EMPTY,
    GROUP_TYPES,
    INT32_MAX,
    INT32_MIN,
    MAX_CLIENT_TAGS,
    MAX_TAG_KEY_LENGTH,
    MAX_TAG_VALUE_LENGTH,
    SMALL_ROWS,
    AnyProblem,
    Assignment,
    Client,
    LagInfo,
    Member,
    Partitions,
    PartitionSet,
    Problem,
    StreamsProblem,
    TopicOffsets,
    TopicTable,
    count_of,
    partitions_of,
    rack_sets,
    sets_of_grouped_rows,
)

FORMAT_VERSION = 1
INT64_MAX = 2**63 - 1  # an offset, a lag or an acceptable.recovery.lag: a Java long
PROTOCOLS = ("eager", "cooperative")
# Kafka's values of auto.offset.reset; KAFKA-5337 (docs/SPEC.md §7.3): only `latest` means lag 0 without a commit.
AUTO_OFFSET_RESET = ("latest", "earliest", "none")


# ---- reading --------------------------------------------------------------------------------------


def brief(value: Any, width: int = 60) -> str:
    """`repr(value)`, cut to `width` characters: error messages quote what was sent, not all of it."""
    text = repr(value)
    return text if len(text) <= width else f"{text[:width - 3]}..."


def _expect(value: Any, kind: type | tuple[type, ...], path: str, what: str) -> Any:
    # bool is an int in Python; never accept it where a number is meant.
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise FormatError(path, f"must be {what}, got a boolean")
    if not isinstance(value, kind):
        raise FormatError(path, f"must be {what}, got {json_type(value)}")
    return value


def _int(value: Any, path: str, *, lo: int = INT32_MIN, hi: int = INT32_MAX) -> int:
    _expect(value, int, path, "an integer")
    if not lo <= value <= hi:
        raise FormatError(path, f"must be between {lo} and {hi}, got {brief(value)}")
    return value


def _str(value: Any, path: str) -> str:
    return _expect(value, str, path, "a string")


def _opt_str(value: Any, path: str) -> str | None:
    return None if value is None else _str(value, path)


def _object(value: Any, path: str) -> Mapping[str, Any]:
    return _expect(value, dict, path, "an object")


def _list(value: Any, path: str) -> list[Any]:
    return _expect(value, list, path, "a list")


def _check_keys(obj: Mapping[str, Any], path: str, required: set[str], optional: set[str]) -> None:
    for key in sorted(required - obj.keys()):
        raise FormatError(f"{path}.{key}" if path else key, "is missing")
    for key in sorted(obj.keys() - required - optional):
        raise FormatError(f"{path}.{key}" if path else key, "is not a known field")


def _checked_ints(items: list[Any], path: str) -> list[int]:
    """`items` when every one is an int32 (one C-level pass in the common case); else the first offender's
    FormatError."""
    if all(type(x) is int for x in items) and (not items or (INT32_MIN <= min(items) and max(items) <= INT32_MAX)):
        return items
    for i, x in enumerate(items):
        if isinstance(x, bool) or not isinstance(x, int) or not INT32_MIN <= x <= INT32_MAX:
            _int(x, f"{path}[{i}]")
    return items


def _partition_lists(value: Any, path: str) -> dict[str, list[int]]:
    """{topic: [index, ...]} checked, without its empty lists."""
    obj = _object(value, path)
    # Exact types first, with C-level passes (json.loads makes them; a group's claims can be a million).
    if _only(obj, str) and _only(obj.values(), list):
        lists = {t: v for t, v in obj.items() if v}
    else:
        lists = {}
        for t, v in obj.items():
            items = v if type(v) is list else _list(v, f"{path}.{t}")
            if items:
                lists[t if type(t) is str else _str(t, path)] = items
    flat = list(chain.from_iterable(lists.values()))
    if flat and not (_only(flat, int) and INT32_MIN <= min(flat) and max(flat) <= INT32_MAX):
        for t, items in lists.items():  # name the first offender
            _checked_ints(items, f"{path}.{t}")
    return lists


def _only(values: Iterable[Any], kind: type) -> bool:
    """Every value is exactly of `kind` (not a subclass: bool is not int), in one C-level pass."""
    return set(map(type, values)) <= {kind}


def _partitions(value: Any, path: str) -> Partitions:
    """{topic: [index, ...]} as one PartitionSet, built from one flat list (a member owning one partition of
    each of 500 topics costs one array, not 500)."""
    return _set_of(_partition_lists(value, path))


def _set_of(lists: dict[str, list[int]]) -> Partitions:
    if not lists:
        return EMPTY
    if sum(map(len, lists.values())) <= SMALL_ROWS:  # a few partitions: plain tuples, no numpy call
        return partitions_of(lists)
    table = TopicTable.of(tuple(sorted(lists)))
    lengths = [len(lists[t]) for t in table.names]
    codes = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    return PartitionSet.from_rows(table, codes, np.array([x for t in table.names for x in lists[t]], dtype=np.int32))


def _sets_of(lists: list[dict[str, list[int]]]) -> list[Partitions]:
    """Every member's claims at once: a group's sets cut from shared arrays (`model.sets_of_grouped_rows`, what
    whole-group readers gather fastest), in the order they were listed; a few claims, one set each."""
    if sum(sum(map(len, one.values())) for one in lists) <= SMALL_ROWS:
        return [_set_of(one) for one in lists]
    table = TopicTable.of(tuple(sorted(set().union(*lists))))
    code = table.code.__getitem__
    run_code: list[int] = []
    run_length: list[int] = []
    flat: list[int] = []
    per_member = []
    for one in lists:  # C-level passes per member, none per topic or partition
        topics = sorted(one)
        run_code += map(code, topics)
        lengths = list(map(len, map(one.__getitem__, topics)))
        run_length += lengths
        flat += chain.from_iterable(map(one.__getitem__, topics))
        per_member.append(sum(lengths))
    return sets_of_grouped_rows(len(lists), table, np.repeat(np.arange(len(lists), dtype=np.int64), per_member),
                                np.repeat(np.array(run_code, dtype=np.int64), run_length),
                                np.array(flat, dtype=np.int32), as_listed=True)


def _format_version(doc: Mapping[str, Any]) -> None:
    version = doc.get("format")
    if version is None:
        raise FormatError("format", f"is missing (this assigncheck reads format {FORMAT_VERSION})")
    if type(version) is not int or version != FORMAT_VERSION:  # 1.0 and true are not the integer 1
        raise FormatError("format", f"unsupported version {brief(version)} (this assigncheck reads the "
                                    f"integer {FORMAT_VERSION})")


def _member_fields(obj: Any, path: str) -> tuple[dict[str, Any], dict[str, list[int]]]:
    """A member's fields but its claims, and its claims as checked lists (fields checked in document order)."""
    obj = _object(obj, path)
    _check_keys(obj, path, {"id", "subscription"}, {"owned", "generation", "instance_id", "rack"})
    subs = _list(obj["subscription"], f"{path}.subscription")
    subscription = frozenset(subs) if _only(subs, str) else \
        frozenset(_str(t, f"{path}.subscription[{i}]") for i, t in enumerate(subs))
    member_id = _str(obj["id"], f"{path}.id")
    owned = _partition_lists(obj.get("owned", {}), f"{path}.owned")
    generation = obj.get("generation")
    return {"member_id": member_id, "subscription": subscription,
            "generation": -1 if generation is None else _int(generation, f"{path}.generation"),
            "instance_id": _opt_str(obj.get("instance_id"), f"{path}.instance_id"),
            "rack": _opt_str(obj.get("rack"), f"{path}.rack")}, owned


def member_from_json(obj: Any, path: str) -> Member:
    fields, owned = _member_fields(obj, path)
    return Member(owned=_set_of(owned), **fields)


def _topics(value: Any, path: str, *, what: str = "partitions", limit: int = MAX_PARTITIONS) -> dict[str, int]:
    """Names -> counts (topics -> partitions, sub-topologies -> tasks), the total bounded before any
    per-partition array is built."""
    obj = _object(value, path)
    check_limit(path, len(obj), MAX_TOPICS, path)
    # interned: every problem read in this process then names a topic by one object, the one the shared tables of
    # its name (`TopicTable.of`, cached) hold, so whole-group passes find it by identity
    counts = {sys.intern(_str(t, path)): _int(n, f"{path}.{t}", lo=0) for t, n in obj.items()}
    check_limit(path, sum(counts.values()), limit, f"{what} in total")
    return counts


def _sized_list(value: Any, path: str, limit: int) -> list[Any]:
    items = _list(value, path)
    check_limit(path, len(items), limit, path)
    return items


def _check_rows(sets: Iterable[Any], path: str, what: str) -> None:
    """Partition lists of all members together (claims, an output) are bounded like partitions: one row
    each, counted before any is built."""
    total = 0
    for s in sets:
        if isinstance(s, dict):
            values = s.values()
            total += sum(map(len, values)) if _only(values, list) else \
                sum(len(v) for v in values if isinstance(v, list))
    check_limit(path, total, MAX_PARTITIONS, what)


def _fields_of(docs: list[Any], *names: str) -> Iterator[Any]:
    return (d.get(n) for d in docs if isinstance(d, dict) for n in names)


def _unique_ids(ids: list[str], path: str) -> None:
    seen: set[str] = set()
    for i, x in enumerate(ids):
        if x in seen:
            raise FormatError(f"{path}[{i}].id", f"duplicate id {x!r}")
        seen.add(x)


def _racks(value: Any, topics: Mapping[str, int], path: str) -> dict[str, tuple[frozenset[str], ...]]:
    obj = _object(value, path)
    out = {}
    for topic, per_partition in obj.items():
        p = f"{path}.{topic}"
        if topic not in topics:
            raise FormatError(p, "names a topic that is not in `topics`")
        lists = _list(per_partition, p)
        if len(lists) != topics[topic]:
            raise FormatError(p, f"must list racks for {topics[topic]} partitions, got {len(lists)}")
        if not all(type(racks) is list and all(type(r) is str for r in racks) for racks in lists):
            for i, racks in enumerate(lists):  # name the first bad entry
                for j, r in enumerate(_list(racks, f"{p}[{i}]")):
                    _str(r, f"{p}[{i}][{j}]")
        out[topic] = rack_sets(lists)  # one shared set per distinct rack set
    return out


def _offsets_array(value: Any, n: int, path: str, *, nullable: bool) -> np.ndarray:
    items = _list(value, path)
    if len(items) != n:
        raise FormatError(path, f"must have {n} entries (one per partition), got {len(items)}")
    out = np.empty(n, dtype=np.int64)
    for i, x in enumerate(items):
        if x is None and nullable:
            out[i] = -1
        else:
            out[i] = _int(x, f"{path}[{i}]", lo=0, hi=INT64_MAX)
    return out


def _lag(value: Any, topics: Mapping[str, int], path: str) -> LagInfo:
    obj = _object(value, path)
    _check_keys(obj, path, {"offsets"}, {"auto_offset_reset"})
    reset = _str(obj.get("auto_offset_reset", "latest"), f"{path}.auto_offset_reset")
    if reset not in AUTO_OFFSET_RESET:  # "Latest" would silently mean earliest (docs/SPEC.md §7.3)
        raise FormatError(f"{path}.auto_offset_reset",
                          f"must be one of {', '.join(AUTO_OFFSET_RESET)}, got {brief(reset)}")
    offsets_obj = _object(obj["offsets"], f"{path}.offsets")
    offsets = {}
    for topic, n in topics.items():
        p = f"{path}.offsets.{topic}"
        if topic not in offsets_obj:
            raise FormatError(p, "is missing (every topic needs offsets in a lag problem)")
        o = _object(offsets_obj[topic], p)
        _check_keys(o, p, {"begin", "end"}, {"committed"})
        begin = _offsets_array(o["begin"], n, f"{p}.begin", nullable=False)
        end = _offsets_array(o["end"], n, f"{p}.end", nullable=False)
        committed = _offsets_array(o.get("committed", [None] * n), n, f"{p}.committed", nullable=True)
        bad = np.flatnonzero(begin > end)
        if len(bad):
            raise FormatError(f"{p}.begin[{int(bad[0])}]", "is greater than the end offset")
        offsets[topic] = TopicOffsets(begin, end, committed)
    for topic in offsets_obj:
        if topic not in topics:
            raise FormatError(f"{path}.offsets.{topic}", "names a topic that is not in `topics`")
    return LagInfo(offsets, reset)


def _consumer_problem(doc: Mapping[str, Any]) -> Problem:
    _check_keys(
        doc, "", {"format", "topics", "members"},
        {"kind", "group_type", "protocol", "partition_racks", "lag", "note", "finding"},
    )
    topics = _topics(doc["topics"], "topics")
    member_docs = _sized_list(doc["members"], "members", MAX_MEMBERS)
    _check_rows(_fields_of(member_docs, "owned"), "members", "owned partitions in total")
    parsed = [_member_fields(m, f"members[{i}]") for i, m in enumerate(member_docs)]
    # Equal subscriptions become one object, and a topic's name one object (the metadata's, as the claims' are):
    # whole-group passes compare by identity first, and do not touch a string per member and topic.
    name = {t: t for t in topics}
    shared: dict[frozenset[str], frozenset[str]] = {}
    for fields, _ in parsed:
        subscription = fields["subscription"]
        one = shared.get(subscription)
        if one is None:
            one = shared[subscription] = frozenset([name.get(t, t) for t in subscription])
        fields["subscription"] = one
    members = [Member(owned=owned, **fields) for (fields, _), owned in zip(parsed, _sets_of([o for _, o in parsed]))]
    _unique_ids([m.member_id for m in members], "members")
    protocol = _str(doc.get("protocol", "eager"), "protocol")
    if protocol not in PROTOCOLS:
        raise FormatError("protocol", f"must be one of {', '.join(PROTOCOLS)}, got {brief(protocol)}")
    group_type = _str(doc.get("group_type", "classic"), "group_type")
    if group_type not in GROUP_TYPES:
        raise FormatError("group_type", f"must be one of {', '.join(GROUP_TYPES)}, got {brief(group_type)}")
    if group_type != "classic" and protocol != "eager":
        raise FormatError("protocol", f"a {group_type} group has no rebalance protocol (KIP-848 reconciles after "
                                      "the assignor runs): omit it")
    racks = doc.get("partition_racks")
    lag = doc.get("lag")
    return Problem(
        topics=topics,
        members=tuple(members),
        protocol=protocol,  # type: ignore[arg-type]  # one of PROTOCOLS, checked above
        partition_racks=None if racks is None else _racks(racks, topics, "partition_racks"),
        lag=None if lag is None else _lag(lag, topics, "lag"),
        group_type=group_type,  # type: ignore[arg-type]  # one of GROUP_TYPES, checked above
    )


def _client(obj: Any, path: str, subtopologies: Mapping[str, int], stateless: frozenset[str]) -> Client:
    obj = _object(obj, path)
    _check_keys(obj, path, {"id", "capacity"}, {"active", "standby", "lags", "rack", "client_tags"})
    return Client(
        client_id=_str(obj["id"], f"{path}.id"),
        capacity=_int(obj["capacity"], f"{path}.capacity", lo=1),
        active=_partitions(obj.get("active", {}), f"{path}.active"),
        standby=_partitions(obj.get("standby", {}), f"{path}.standby"),
        lags=_lags(obj.get("lags", {}), subtopologies, stateless, f"{path}.lags"),
        rack=_opt_str(obj.get("rack"), f"{path}.rack"),
        client_tags=_client_tags(obj.get("client_tags", {}), f"{path}.client_tags"),
    )


def _lags(value: Any, subtopologies: Mapping[str, int], stateless: frozenset[str], path: str
          ) -> dict[tuple[str, int], int]:
    """{sub-topology: [lag or null per task]}: one entry per task, null where the client reports none (as
    `lag.offsets.<topic>.committed` lists a consumer problem's partitions)."""
    out: dict[tuple[str, int], int] = {}
    for st, row in _object(value, path).items():
        if st not in subtopologies:
            raise FormatError(f"{path}.{st}", "names a sub-topology that is not in `subtopologies`")
        if st in stateless:
            raise FormatError(f"{path}.{st}", "names a stateless sub-topology (no state store: no changelog to lag)")
        lags = _offsets_array(row, subtopologies[st], f"{path}.{st}", nullable=True).tolist()
        out.update({(st, i): lag for i, lag in enumerate(lags) if lag >= 0})
    return out


def _tag(value: Any, path: str, longest: int) -> str:
    tag = _str(value, path)
    if not tag or len(tag) > longest:
        raise FormatError(path, f"must be 1 to {longest} characters (Streams' limit), got {brief(tag)}")
    return tag


def _client_tags(value: Any, path: str) -> dict[str, str]:
    obj = _object(value, path)
    if len(obj) > MAX_CLIENT_TAGS:
        raise FormatError(path, f"has {len(obj)} tags; Streams allows at most {MAX_CLIENT_TAGS}")
    return {_tag(k, f"{path} key", MAX_TAG_KEY_LENGTH): _tag(v, f"{path}.{k}", MAX_TAG_VALUE_LENGTH)
            for k, v in obj.items()}


def _assignment_tags(value: Any, clients: Sequence[Client]) -> tuple[str, ...]:
    path = "rack_aware_assignment_tags"
    items = _list(value, path)
    if len(items) > MAX_CLIENT_TAGS:
        raise FormatError(path, f"has {len(items)} tags; Streams allows at most {MAX_CLIENT_TAGS}")
    tags = tuple(_tag(v, f"{path}[{i}]", MAX_TAG_KEY_LENGTH) for i, v in enumerate(items))
    if len(set(tags)) != len(tags):
        raise FormatError(path, f"repeats a tag: {brief(list(tags))}")
    for i, c in enumerate(clients):  # Streams refuses to start a client whose client.tag.* lacks one of them
        missing = [t for t in tags if t not in c.client_tags]
        if missing:
            raise FormatError(f"clients[{i}].client_tags", f"has no tag {brief(missing[0])}, which "
                                                          "rack_aware_assignment_tags names (Streams requires it)")
    return tags


def _stateless(value: Any, subtopologies: Mapping[str, int]) -> frozenset[str]:
    names = [_str(v, f"stateless[{i}]") for i, v in enumerate(_sized_list(value, "stateless", MAX_MEMBERS))]
    unknown = sorted(set(names) - set(subtopologies))
    if unknown:
        raise FormatError("stateless", f"names sub-topologies not in subtopologies: {brief(unknown)}")
    return frozenset(names)


def _streams_problem(doc: Mapping[str, Any]) -> StreamsProblem:
    _check_keys(doc, "", {"format", "kind", "subtopologies", "clients"},
                {"num_standby_replicas", "stateless", "acceptable_recovery_lag", "rack_aware_assignment_tags",
                 "note", "finding"})
    subtopologies = _topics(doc["subtopologies"], "subtopologies", what="tasks", limit=MAX_TASKS)
    client_docs = _sized_list(doc["clients"], "clients", MAX_MEMBERS)
    _check_rows(_fields_of(client_docs, "active", "standby"), "clients", "active and standby tasks in total")
    stateless = _stateless(doc.get("stateless", []), subtopologies)
    clients = [_client(c, f"clients[{i}]", subtopologies, stateless) for i, c in enumerate(client_docs)]
    _unique_ids([c.client_id for c in clients], "clients")
    recovery_lag = doc.get("acceptable_recovery_lag")
    return StreamsProblem(subtopologies, tuple(clients),
                          num_standby_replicas=_int(doc.get("num_standby_replicas", 0), "num_standby_replicas", lo=0),
                          stateless=stateless,
                          acceptable_recovery_lag=None if recovery_lag is None else
                          _int(recovery_lag, "acceptable_recovery_lag", lo=0, hi=INT64_MAX),
                          rack_aware_assignment_tags=_assignment_tags(doc.get("rack_aware_assignment_tags", []),
                                                                      clients))


def problem_from_json(doc: Any) -> AnyProblem:
    """A parsed JSON document -> a problem. Raises `FormatError` naming the field."""
    doc = _object(doc, "")
    _format_version(doc)
    kind = doc.get("kind", "consumer")
    builders: dict[str, Callable[[Mapping[str, Any]], AnyProblem]] = {"consumer": _consumer_problem,
                                                                      "streams": _streams_problem}
    build = builders.get(kind) if type(kind) is str else None
    if build is None:
        raise FormatError("kind", f"must be 'consumer' or 'streams', got {brief(kind)}")
    with gc_paused():  # millions of acyclic objects for a large group (`json_input.gc_paused`)
        return build(doc)


def assignment_from_json(doc: Any, path: str = "") -> Assignment:
    """`{"format": 1, "assignment": {...}}`, or the bare `{member: {topic: [indices]}}` mapping."""
    doc = _object(doc, path)
    if "assignment" not in doc and "format" in doc and not isinstance(doc["format"], dict):
        # a versioned document without an assignment: a problem passed where the assignment goes
        raise FormatError(f"{path}.assignment" if path else "assignment", "is missing (not an assignment document)")
    if "assignment" in doc:
        _format_version(doc)
        _check_keys(doc, path, {"format", "assignment"}, {"standby", "note"})
        where = f"{path}.standby" if path else "standby"
        standby = _member_sets(_object(doc.get("standby", {}), where), where)
        path, doc = (f"{path}.assignment" if path else "assignment"), _object(doc["assignment"], "assignment")
        return Assignment(_member_sets(doc, path), standby)
    return Assignment(_member_sets(doc, path))


def _member_sets(doc: Mapping[str, Any], path: str) -> dict[str, Partitions]:
    check_limit(path or "assignment", len(doc), MAX_MEMBERS, "members")
    _check_rows(doc.values(), path or "assignment", "assigned partitions in total")
    return {_str(m, path): _partitions(p, f"{path}.{m}" if path else m) for m, p in doc.items()}


def _located(e: InputError, where: str) -> InputError:
    return type(e)(f"{where}: {e.path}" if e.path else where, e.message)


def _where(path: str | os.PathLike[str]) -> str:
    return "standard input" if str(path) == "-" else str(path)


def load_problem(path: str | os.PathLike[str]) -> AnyProblem:
    """One problem from a JSON file or `-` (a `.jsonl` file must then hold exactly one line)."""
    problems = list(load_problems(path))
    if len(problems) != 1:
        raise FormatError(_where(path), f"must hold exactly one problem, found {len(problems)}")
    return problems[0]


def load_problems(path: str | os.PathLike[str]) -> Iterator[AnyProblem]:
    """Every problem of a file (or `-`): one JSON document, or JSON lines (one document per non-blank line)."""
    where = _where(path)
    text = decode(read_input(path), where)
    try:
        docs: list[tuple[str, Any]] = [(where, parse_json(text, where))]
    except JSONSyntaxError:
        # Only "\n" ends a JSON line: str.splitlines would also cut at U+2028 inside a string.
        lines = [(n, ln) for n, ln in enumerate(text.split("\n"), 1) if ln.strip()]
        if len(lines) <= 1:
            raise
        docs = [(f"{where}:{n}", parse_json(ln, f"{where}:{n}")) for n, ln in lines]
    for at, doc in docs:
        try:
            yield problem_from_json(doc)
        except InputError as e:
            raise _located(e, at) from None


def load_assignment(path: str | os.PathLike[str]) -> Assignment:
    """An assignment document from a JSON file or `-`."""
    doc = load_json(path)
    try:
        return assignment_from_json(doc)
    except InputError as e:
        raise _located(e, _where(path)) from None


# ---- writing --------------------------------------------------------------------------------------


def _partitions_json(parts: Partitions) -> dict[str, list[int]]:
    if isinstance(parts, PartitionSet):  # one tolist() per member, sliced per topic
        flat, b, names = parts.indices.tolist(), parts.bounds.tolist(), parts.table.names
        return {names[c]: flat[b[i]:b[i + 1]] for i, c in enumerate(parts.codes.tolist())}
    return {t: arr.tolist() for t, arr in parts.items()}


def member_to_json(m: Member) -> dict[str, Any]:
    doc: dict[str, Any] = {"id": m.member_id, "subscription": sorted(m.subscription)}
    if m.owned:
        doc["owned"] = _partitions_json(m.owned)
    if m.generation != -1:
        doc["generation"] = m.generation
    if m.instance_id is not None:
        doc["instance_id"] = m.instance_id
    if m.rack is not None:
        doc["rack"] = m.rack
    return doc


def _client_json(c: Client, subtopologies: Mapping[str, int]) -> dict[str, Any]:
    doc: dict[str, Any] = {"id": c.client_id, "capacity": c.capacity, "active": _partitions_json(c.active),
                           "standby": _partitions_json(c.standby)}
    if c.lags:
        rows: dict[str, list[int | None]] = {}
        for (st, i), lag in c.lags.items():
            row = rows.setdefault(st, [None] * subtopologies.get(st, 0))
            row.extend([None] * (i + 1 - len(row)))  # a lag past the tasks: written, for the reader to name
            row[i] = lag
        doc["lags"] = dict(sorted(rows.items()))
    if c.rack is not None:
        doc["rack"] = c.rack
    if c.client_tags:
        doc["client_tags"] = dict(c.client_tags)
    return doc


def problem_to_json(problem: AnyProblem) -> dict[str, Any]:
    """The JSON document of a problem; `problem_from_json(problem_to_json(p)) == p` in content."""
    if isinstance(problem, StreamsProblem):
        return {
            "format": FORMAT_VERSION,
            "kind": "streams",
            "subtopologies": dict(problem.subtopologies),
            "clients": [_client_json(c, problem.subtopologies) for c in problem.clients],
            **({"num_standby_replicas": problem.num_standby_replicas} if problem.num_standby_replicas else {}),
            **({"stateless": sorted(problem.stateless)} if problem.stateless else {}),
            **({"acceptable_recovery_lag": problem.acceptable_recovery_lag}
               if problem.acceptable_recovery_lag is not None else {}),
            **({"rack_aware_assignment_tags": list(problem.rack_aware_assignment_tags)}
               if problem.rack_aware_assignment_tags else {}),
        }
    doc: dict[str, Any] = {
        "format": FORMAT_VERSION,
        "kind": "consumer",
        **({"protocol": problem.protocol} if problem.group_type == "classic" else {"group_type": problem.group_type}),
        "topics": dict(problem.topics),
        "members": [member_to_json(m) for m in problem.members],
    }
    if problem.partition_racks is not None:
        doc["partition_racks"] = {t: [sorted(r) for r in racks] for t, racks in problem.partition_racks.items()}
    if problem.lag is not None:
        doc["lag"] = {
            "auto_offset_reset": problem.lag.auto_offset_reset,
            "offsets": {
                t: {"begin": o.begin.tolist(), "end": o.end.tolist(),
                    "committed": [None if c < 0 else c for c in o.committed.tolist()]}
                for t, o in problem.lag.offsets.items()
            },
        }
    return doc


def assignment_to_json(assignment: Assignment) -> dict[str, Any]:
    """The assignment document; `standby` only when a Streams output has standbys."""
    standby = {m: _partitions_json(p) for m, p in assignment.standby.items() if count_of(p)}
    return {"format": FORMAT_VERSION, "assignment": {m: _partitions_json(p) for m, p in assignment.by_member.items()},
            **({"standby": standby} if standby else {})}


def dumps(doc: Mapping[str, Any], *, pretty: bool = False) -> str:
    """Canonical text of a document: deterministic, compact by default (one line, JSON-lines ready)."""
    if pretty:
        return json.dumps(doc, indent=1, ensure_ascii=False)
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


def _existing_kind(path: str | os.PathLike[str]) -> int | None:
    """The mode of what `path` resolves to, None for a new path; an InputError when it cannot be one."""
    target = Path(path)
    if str(path) in ("", "."):
        raise InputError(str(path), "is not a file name")
    try:
        return os.stat(target).st_mode
    except FileNotFoundError:
        return None
    except OSError as e:  # a parent that is a file, a name too long, a loop of links
        raise InputError(str(target), f"cannot be written: {e.strerror or e}") from None


def check_writable(path: str | os.PathLike[str], *, directory: bool = False) -> Path:
    """Raise an `InputError` unless `path` is a regular file or a new path (with `directory`, a
    directory or a new path) under a folder we can create files in. Changes nothing on disk: callers use
    it to refuse a bad output path before any work is done."""
    target = Path(path)
    mode = _existing_kind(path)
    if mode is not None and not (stat.S_ISDIR(mode) if directory else stat.S_ISREG(mode)):
        wanted = "directories" if directory else "regular files"
        raise InputError(str(target), f"is {file_kind(mode)}; assigncheck writes only {wanted} or new paths")
    folder = target if directory and mode is not None else target.parent
    while not folder.exists() and folder != folder.parent:  # the writer will create the missing ones
        folder = folder.parent
    try:
        if not folder.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".assigncheck-probe-")  # access() lies for root
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise InputError(str(target), f"cannot be written: {e.strerror or e}") from None
    return target


def write_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Write a file so that readers see the old content or the new one, never a torn one.

    Only a regular file or a new path is written: the final rename would otherwise replace a device
    node (`--minimize /dev/full`) or fail late on a directory."""
    target = Path(path)
    mode = _existing_kind(path)
    if mode is not None and not stat.S_ISREG(mode):
        raise InputError(str(target), f"is {file_kind(mode)}; assigncheck writes only regular files or new paths")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as e:
        raise InputError(str(target), f"cannot be written: {e.strerror or e}") from None
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a report is as readable as any file
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError):  # a full disk, a quota: one line naming the file, not a traceback
            raise InputError(str(target), f"cannot be written: {e.strerror or e}") from None
        raise
    return target


def open_manifest(path: Path, doc: Mapping[str, Any], flags: Mapping[str, str]) -> None:
    """Write a campaign's manifest, or check that the one already at `path` is the same campaign: every
    parameter in doc["campaign"] named in `flags` must match; the error names the flag that sets it."""
    campaign = doc["campaign"]
    if not path.exists():
        write_atomic(path, dumps({"format": 1, **doc}, pretty=True) + "\n")
        return
    try:
        old = load_json(path)["campaign"]
    except (InputError, KeyError, TypeError):
        raise InputError(str(path), f"is not a {doc['kind']}") from None
    if not isinstance(old, dict):
        raise InputError(str(path), f"is not a {doc['kind']}")
    for key, flag in flags.items():
        if old.get(key) != campaign[key]:
            raise InputError(flag, f"is {campaign[key]!r} but the campaign in {path.parent} was started with "
                                   f"{old.get(key)!r}; use another --out or the same parameters")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def save_problem(problem: AnyProblem, path: str | os.PathLike[str], *, note: str | None = None) -> Path:
    """Write a problem as a reproducer/regression vector (pretty JSON, atomically)."""
    doc = problem_to_json(problem)
    if note:
        doc["note"] = note
    return write_atomic(path, dumps(doc, pretty=True) + "\n")

__all__ = [
    "FORMAT_VERSION", "assignment_from_json", "assignment_to_json", "brief", "check_writable", "dumps",
    "load_assignment", "load_json", "load_problem", "load_problems", "member_from_json", "member_to_json",
    "open_manifest", "parse_json", "problem_from_json", "problem_to_json", "read_input", "save_problem", "write_atomic"
]
