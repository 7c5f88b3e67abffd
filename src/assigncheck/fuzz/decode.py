"""Fuzzer bytes -> a well-formed problem, and back (so regression vectors become a seed corpus).

The decoder consumes bytes from the front the way `atheris.FuzzedDataProvider` does, but over plain bytes
so it runs without atheris. A number in `[lo, hi]` takes one byte when the range fits in one, else two
(big-endian), reduced modulo the range; running out of bytes reads zeros, so every byte string decodes and
short inputs give small problems. Layout:

    header        bit0 cooperative, bits 1+5+6+7 wide (large ranges), bit2 partition racks, bit3 lag offsets,
                  bit4 a scenario: membership/metadata changes follow the problem (`decode_scenario`)
    topics        T, then each topic's partition count            (topics are named t00, t01, ...)
    members       M, then per member: flags (bit0 same subscription as the previous member / all topics
                  for the first, bit1 static, bit2 rack, bit3 claims), id, subscription mask over the
                  topics plus the unknown topic `zz`, generation, instance id, rack, claim runs
    claim run     topic (or `zz`), start index (in range, just past the end, or a special junk value),
                  length (consecutive indices; special starts are single claims)
    racks         per partition a 4-bit mask over r0..r3           (if header bit2)
    lag           auto.offset.reset, per partition begin/span/commit (if header bit3)
    steps         (if header bit4) up to 4 changes, see `decode_scenario`

`encode_problem` writes bytes that decode to the same problem up to renaming: topics, member ids, instance
ids, racks and generations are replaced by names and numbers of the same order, unknown topics collapse to
`zz`, lag offsets are clipped to the decoder's range. That keeps every tie-break and claim conflict.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from assigncheck.generate.scenario import (
    AddPartitions,
    DeleteTopic,
    Join,
    Leave,
    RejoinStale,
    Scenario,
    Step,
    Subscribe,
)
from assigncheck.spec.model import (
    INT32_MAX,
    INT32_MIN,
    AnyProblem,
    Client,
    LagInfo,
    Member,
    Partitions,
    Problem,
    Protocol,
    StreamsProblem,
    TopicOffsets,
    iter_pairs,
    partitions_of,
)

K = TypeVar("K", int, str)  # what `_ranks` numbers: generations, ids, rack names

UNKNOWN_TOPIC = "zz"
RACKS = ("r0", "r1", "r2", "r3")
SPECIAL_INDICES = (-1, INT32_MIN, INT32_MAX, 1_000_000)  # junk claims real clients have sent


@dataclass(frozen=True)
class Limits:
    topics: int
    partitions: int
    members: int
    runs: int
    run_length: int
    generation: int
    ids: int
    lag: int


NARROW = Limits(topics=4, partitions=12, members=6, runs=6, run_length=8, generation=4, ids=255, lag=255)
# "Large" is big enough for the vectorized paths, multi-byte numbers and many-member tie-breaks, and small
# enough that the slow reference checks stay near 50 ms: libFuzzer keeps large inputs once they add
# features, and at 16 topics x 2000 partitions x 300 members they took 0.3 s each and most of the run.
WIDE = Limits(topics=8, partitions=1000, members=100, runs=1000, run_length=64, generation=1000, ids=999,
              lag=65535)
# Streams checks compare against the O(tasks^2) reference assignor: "large" stays in the hundreds of tasks.
STREAMS_WIDE = Limits(topics=4, partitions=200, members=40, runs=200, run_length=64, generation=0, ids=999, lag=0)
WIDE_BITS = 0xE2  # header bits 1 and 5-7 all set: one random input in 16 is large


class ByteSource:
    """Reads numbers from the front of a byte string; past the end it reads zeros."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def _byte(self) -> int:
        if self.pos >= len(self.data):
            return 0
        b = self.data[self.pos]
        self.pos += 1
        return b

    def int_in(self, lo: int, hi: int) -> int:
        span = hi - lo + 1
        raw = self._byte() if span <= 256 else (self._byte() << 8) | self._byte()
        return lo + raw % span

    def array(self, n: int, lo: int, hi: int) -> np.ndarray:
        """`n` numbers in [lo, hi] at once (the vectorized `int_in`), as int64."""
        span = hi - lo + 1
        width = 1 if span <= 256 else 2
        chunk = self.data[self.pos : self.pos + n * width]
        self.pos += len(chunk)
        raw = np.zeros(n * width, dtype=np.int64)
        raw[: len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
        if width == 2:
            raw = raw[0::2] << 8 | raw[1::2]
        return lo + raw % span

    def bits(self, n: int) -> list[bool]:
        out: list[bool] = []
        for _ in range((n + 7) // 8):
            b = self._byte()
            out.extend(bool(b >> k & 1) for k in range(8))
        return out[:n]


class ByteSink:
    """The inverse of `ByteSource`: writes the bytes that read back as the given numbers."""

    def __init__(self) -> None:
        self.out = bytearray()

    def int_in(self, lo: int, hi: int, value: int) -> None:
        if not lo <= value <= hi:
            raise ValueError(f"{value} is outside [{lo}, {hi}]")
        raw = value - lo
        if hi - lo + 1 <= 256:
            self.out.append(raw)
        else:
            self.out += raw.to_bytes(2, "big")

    def array(self, lo: int, hi: int, values: Iterable[int]) -> None:
        for v in values:
            self.int_in(lo, hi, int(v))

    def bits(self, flags: Sequence[bool]) -> None:
        for i in range(0, len(flags), 8):
            self.out.append(sum(1 << k for k, f in enumerate(flags[i : i + 8]) if f))


def _topic_name(i: int) -> str:
    return f"t{i:02d}"


def _unique(value: int, used: set[int], hi: int) -> int:
    """The first free number from `value` on (wrapping), so decoded ids never collide."""
    while value in used:
        value = value + 1 if value < hi else 0
    used.add(value)
    return value


# ---- decoding -------------------------------------------------------------------------------------


def _read_runs(src: ByteSource, lim: Limits, names: Sequence[str], counts: Sequence[int]) -> Partitions:
    grouped: dict[str, list[int]] = {}  # claim order kept inside each topic
    for _ in range(src.int_in(0, lim.runs)):
        k = src.int_in(0, len(names))
        topic, n = (names[k], counts[k]) if k < len(names) else (UNKNOWN_TOPIC, 0)
        start = src.int_in(0, n + 1 + len(SPECIAL_INDICES))
        indices = grouped.setdefault(topic, [])
        if start > n + 1:
            indices.append(SPECIAL_INDICES[start - n - 2])
        else:
            indices.extend(range(start, start + src.int_in(1, lim.run_length)))
    return partitions_of(grouped)


def _read_lag(src: ByteSource, lim: Limits, topics: Mapping[str, int]) -> LagInfo:
    """Per topic: all begins, then all spans (end - begin), then all commits (0 = none, else begin + c - 1,
    so a commit may sit one past the end)."""
    reset = ("latest", "earliest")[src.int_in(0, 1)]
    offsets = {}
    for topic, n in topics.items():
        begin = src.array(n, 0, 3)
        end = begin + src.array(n, 0, lim.lag)
        c = src.array(n, 0, lim.lag + 2) % (end - begin + 3)
        offsets[topic] = TopicOffsets(begin, end, np.where(c == 0, -1, begin + c - 1))
    return LagInfo(offsets, reset)


def _read_racks(src: ByteSource, topics: Mapping[str, int]) -> dict[str, tuple[frozenset[str], ...]]:
    """Per partition a 4-bit mask over RACKS (one byte each)."""
    sets = [frozenset(r for k, r in enumerate(RACKS) if mask >> k & 1) for mask in range(16)]
    return {t: tuple(sets[mask] for mask in src.array(n, 0, 15).tolist()) for t, n in topics.items()}


def _read_member(src: ByteSource, lim: Limits, topics: Mapping[str, int], used: tuple[set[int], set[int]],
                 previous: frozenset[str]) -> Member:
    names, counts = list(topics), list(topics.values())
    flags = src.int_in(0, 255)
    member_id = f"c{_unique(src.int_in(0, lim.ids), used[0], lim.ids):03d}"
    subscription = previous
    if not flags & 1:
        mask = src.bits(len(names) + 1)
        subscription = frozenset(t for t, on in zip([*names, UNKNOWN_TOPIC], mask) if on)
    generation = src.int_in(0, lim.generation) - 1
    instance = f"i{_unique(src.int_in(0, lim.ids), used[1], lim.ids):03d}" if flags & 2 else None
    rack = RACKS[src.int_in(0, len(RACKS) - 1)] if flags & 4 else None
    owned = _read_runs(src, lim, names, counts) if flags & 8 else partitions_of(None)
    return Member(member_id, subscription, owned, generation, instance, rack)


def _read_problem(src: ByteSource) -> tuple[Problem, Limits, tuple[set[int], set[int]]]:
    header = src.int_in(0, 255)
    lim = WIDE if header & WIDE_BITS == WIDE_BITS else NARROW
    names = [_topic_name(i) for i in range(src.int_in(0, lim.topics))]
    topics = {t: src.int_in(0, lim.partitions) for t in names}
    members: list[Member] = []
    used: tuple[set[int], set[int]] = (set(), set())
    for _ in range(src.int_in(0, lim.members)):
        members.append(_read_member(src, lim, topics, used, members[-1].subscription if members else frozenset(names)))
    # Per-partition data comes last: short inputs still reach the members (past the end everything is 0).
    racks = _read_racks(src, topics) if header & 4 else None
    lag = _read_lag(src, lim, topics) if header & 8 else None
    protocol: Protocol = "cooperative" if header & 1 else "eager"
    return Problem(topics, tuple(members), protocol, racks, lag), lim, used


def decode_problem(data: bytes) -> Problem:
    """Any bytes -> a well-formed consumer `Problem` (see the module doc for the layout)."""
    return _read_problem(ByteSource(data))[0]


def read(data: bytes, kind: str = "consumer") -> tuple[AnyProblem | Scenario, int]:
    """What `data` decodes to (a scenario when its scenario bit is set) and how many bytes the decoder
    read: the bytes after those cannot change the result, so the prefix identifies the input."""
    src = ByteSource(data)
    if kind == "streams":
        decoded: AnyProblem | Scenario = _read_streams(src)
    elif scenario_bit(data):
        decoded = _read_scenario(src)
    else:
        decoded = _read_problem(src)[0]
    return decoded, min(src.pos, len(data))


def scenario_bit(data: bytes) -> bool:
    """Header bit4: the bytes after the problem are membership and metadata changes (`decode_scenario`)."""
    return bool(data[:1]) and bool(data[0] & 16)


def decode_scenario(data: bytes) -> Scenario:
    """The problem, then up to 4 steps that always fit the group (join, leave, subscribe, add partitions,
    delete a topic, rejoin with stale claims), read from the bytes after the problem."""
    return _read_scenario(ByteSource(data))


def _read_scenario(src: ByteSource) -> Scenario:
    problem, lim, used = _read_problem(src)
    topics = dict(problem.topics)
    members = list(problem.member_ids)
    subscriptions = {m.member_id: m.subscription for m in problem.members}
    steps: list[Step] = []
    for _ in range(src.int_in(0, 4)):
        kind = src.int_in(0, 5)
        if kind == 0:
            previous = subscriptions[members[-1]] if members else frozenset(topics)
            member = _read_member(src, lim, topics, used, previous)
            steps.append(Join(member))
            members.append(member.member_id)
            subscriptions[member.member_id] = member.subscription
        elif kind == 5:
            new = f"t{len(topics) + sum(1 for s in steps if isinstance(s, DeleteTopic)):02d}"
            k = src.int_in(0, len(topics))
            topic = list(topics)[k] if k < len(topics) else new
            topics[topic] = topics.get(topic, 0) + src.int_in(0, 4)
            steps.append(AddPartitions(topic, topics[topic]))
        elif kind == 4 and topics:
            topic = list(topics)[src.int_in(0, len(topics) - 1)]
            del topics[topic]
            steps.append(DeleteTopic(topic))
        elif members and kind in (1, 2, 3):
            member_id = members[src.int_in(0, len(members) - 1)]
            if kind == 1:
                members.remove(member_id)
                steps.append(Leave(member_id))
            elif kind == 2:
                mask = src.bits(len(topics) + 1)
                subscriptions[member_id] = frozenset(t for t, on in zip([*topics, UNKNOWN_TOPIC], mask) if on)
                steps.append(Subscribe(member_id, subscriptions[member_id]))
            else:
                steps.append(RejoinStale(member_id, src.int_in(1, len(steps) + 1)))
    return Scenario(problem, tuple(steps))


def decode_streams(data: bytes) -> StreamsProblem:
    """Any bytes -> a well-formed `StreamsProblem`: sub-topologies s00.., clients with capacity and tasks, the
    standby replicas per task and the stateless sub-topologies."""
    return _read_streams(ByteSource(data))


def _read_streams(src: ByteSource) -> StreamsProblem:
    lim = STREAMS_WIDE if src.int_in(0, 255) & WIDE_BITS == WIDE_BITS else NARROW
    names = [f"s{i:02d}" for i in range(src.int_in(1, lim.topics))]
    counts = [src.int_in(0, lim.partitions) for _ in names]
    clients = []
    used: set[int] = set()
    for _ in range(src.int_in(1, lim.members)):
        client_id = f"a{_unique(src.int_in(0, lim.ids), used, lim.ids):03d}"
        capacity = src.int_in(1, 4)
        active = _read_runs(src, lim, names, counts)
        standby = _read_runs(src, lim, names, counts)
        clients.append(Client(client_id, capacity, active, standby))
    standbys = src.int_in(0, 2)  # read last: the corpus's earlier bytes decode as before
    stateless = frozenset(n for n, on in zip(names, src.bits(len(names))) if on)
    return StreamsProblem(dict(zip(names, counts)), tuple(clients), num_standby_replicas=standbys, stateless=stateless)


def decode(data: bytes, kind: str = "consumer") -> AnyProblem:
    return decode_streams(data) if kind == "streams" else decode_problem(data)


# ---- encoding (problem -> seed bytes) ---------------------------------------------------------------


def _ranks(values: Iterable[K]) -> dict[K, int]:
    return {v: i for i, v in enumerate(sorted(set(values)))}


def _runs(pairs: Iterable[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """(topic index, partition) pairs in claim order -> runs (topic index, start, length) of +1 steps."""
    runs: list[list[int]] = []
    for k, i in pairs:
        if runs and runs[-1][0] == k and runs[-1][1] + runs[-1][2] == i and runs[-1][1] >= 0:
            runs[-1][2] += 1
        else:
            runs.append([k, i, 1])
    return [(k, s, n) for k, s, n in runs]


def _write_runs(sink: ByteSink, lim: Limits, parts: Partitions, index: Mapping[str, int],
                counts: Sequence[int]) -> None:
    pairs = [(index.get(topic, len(counts)), i) for topic, i in iter_pairs(parts)]
    runs = []
    for k, start, length in _runs(pairs):
        n = counts[k] if k < len(counts) else 0
        if 0 <= start <= n + 1:  # a run from a real index (or just past the end) reads back exactly
            while length > 0:
                runs.append((k, start, min(length, lim.run_length)))
                start, length = start + lim.run_length, length - lim.run_length
        else:  # other junk: the special values stay, the rest becomes junk of the same kind
            runs.extend((k, i if i in SPECIAL_INDICES else (-1 if i < 0 else n + 1), 1)
                        for i in range(start, start + length))
    sink.int_in(0, lim.runs, len(runs))
    for k, start, length in runs:
        n = counts[k] if k < len(counts) else 0
        sink.int_in(0, len(counts), k)
        if 0 <= start <= n + 1:
            sink.int_in(0, n + 1 + len(SPECIAL_INDICES), start)
            sink.int_in(1, lim.run_length, length)
        else:
            sink.int_in(0, n + 1 + len(SPECIAL_INDICES), n + 2 + SPECIAL_INDICES.index(start))


def _narrow_or_wide(write: Callable[[Limits], bytes]) -> bytes:
    """Small problems in one-byte numbers; the wide ranges otherwise; ValueError if even they are too small."""
    try:
        return write(NARROW)
    except ValueError:
        return write(WIDE)


def encode_problem(problem: Problem) -> bytes:
    """Bytes that `decode_problem` reads back as `problem` up to renaming (see the module doc)."""
    return _narrow_or_wide(lambda lim: _encode_problem(problem, lim))


@dataclass(frozen=True)
class _Ranks:
    """A problem's names and numbers replaced by their order: what the decoder can express."""

    topics: list[str]
    index: dict[str, int]
    counts: list[int]
    rack: dict[str, int]
    member: dict[str, int]
    instance: dict[str, int]
    generation: dict[int, int]
    lowest_generation: int  # -1 keeps "unknown" below every known generation

    @classmethod
    def of(cls, problem: Problem) -> _Ranks:
        names = sorted(problem.topics)
        rack_names = [m.rack for m in problem.members if m.rack is not None]
        for per_partition in (problem.partition_racks or {}).values():
            rack_names.extend(r for racks in per_partition for r in racks)
        gens = _ranks(m.generation for m in problem.members)
        return cls(names, {t: k for k, t in enumerate(names)}, [problem.topics[t] for t in names],
                   {r: k % len(RACKS) for r, k in _ranks(rack_names).items()}, _ranks(problem.member_ids),
                   _ranks(m.instance_id for m in problem.members if m.instance_id is not None), gens,
                   -1 if min(gens, default=0) < 0 else 0)


def _write_member(sink: ByteSink, lim: Limits, m: Member, ranks: _Ranks, previous: frozenset[str]) -> frozenset[str]:
    """One member's flags, id, subscription (unless the same as the previous one), generation, instance id,
    rack and claim runs; returns its subscription (the next member's "previous")."""
    subscription = frozenset(t if t in ranks.index else UNKNOWN_TOPIC for t in m.subscription)
    flags = (subscription == previous) | (m.instance_id is not None) << 1
    flags |= (m.rack is not None) << 2 | bool(m.owned) << 3
    sink.int_in(0, 255, flags)
    sink.int_in(0, lim.ids, ranks.member[m.member_id])
    if subscription != previous:
        sink.bits([t in subscription for t in [*ranks.topics, UNKNOWN_TOPIC]])
    sink.int_in(0, lim.generation, ranks.generation[m.generation] + ranks.lowest_generation + 1)
    if m.instance_id is not None:
        sink.int_in(0, lim.ids, ranks.instance[m.instance_id])
    if m.rack is not None:
        sink.int_in(0, len(RACKS) - 1, ranks.rack[m.rack])
    if m.owned:
        _write_runs(sink, lim, m.owned, ranks.index, ranks.counts)
    return subscription


def _write_racks_and_lag(sink: ByteSink, lim: Limits, problem: Problem, ranks: _Ranks) -> None:
    if problem.partition_racks is not None:
        for t in ranks.topics:
            per_partition = problem.partition_racks.get(t, (frozenset(),) * problem.topics[t])
            masks = [np.bitwise_or.reduce([1 << ranks.rack[r] for r in racks] or [0]) for racks in per_partition]
            sink.array(0, 15, masks)
    if problem.lag is not None:
        sink.int_in(0, 1, int(problem.lag.auto_offset_reset == "earliest"))
        for t in ranks.topics:
            o = problem.lag.offsets[t]
            span = np.minimum(o.end - o.begin, lim.lag)
            sink.array(0, 3, np.minimum(o.begin, 3))
            sink.array(0, lim.lag, span)
            sink.array(0, lim.lag + 2, np.where(o.committed < 0, 0, np.clip(o.committed - o.begin, 0, span + 1) + 1))


def _encode_problem(problem: Problem, lim: Limits) -> bytes:
    sink = ByteSink()
    ranks = _Ranks.of(problem)
    header = (problem.protocol == "cooperative") | (WIDE_BITS if lim is WIDE else 0)
    header |= (problem.partition_racks is not None) << 2 | (problem.lag is not None) << 3
    sink.int_in(0, 255, header)
    sink.int_in(0, lim.topics, len(ranks.topics))
    for n in ranks.counts:
        sink.int_in(0, lim.partitions, n)
    sink.int_in(0, lim.members, len(problem.members))
    previous = frozenset(ranks.topics)
    for m in problem.members:
        previous = _write_member(sink, lim, m, ranks, previous)
    _write_racks_and_lag(sink, lim, problem, ranks)
    return bytes(sink.out)


def encode_streams(problem: StreamsProblem) -> bytes:
    """Bytes that `decode_streams` reads back as `problem` up to renaming."""
    if not problem.subtopologies or not problem.clients:
        raise ValueError("the streams decoder always has a sub-topology and a client")
    try:
        return _encode_streams(problem, NARROW)
    except ValueError:
        return _encode_streams(problem, STREAMS_WIDE)


def _encode_streams(problem: StreamsProblem, lim: Limits) -> bytes:
    names = sorted(problem.subtopologies)
    counts = [problem.subtopologies[s] for s in names]
    sink = ByteSink()
    sink.int_in(0, 255, 0 if lim is NARROW else WIDE_BITS)
    sink.int_in(1, lim.topics, len(names))
    for n in counts:
        sink.int_in(0, lim.partitions, n)
    sink.int_in(1, lim.members, len(problem.clients))
    rank = _ranks(problem.client_ids)
    index = {s: k for k, s in enumerate(names)}
    for c in problem.clients:
        sink.int_in(0, lim.ids, rank[c.client_id])
        sink.int_in(1, 4, min(c.capacity, 4))
        _write_runs(sink, lim, c.active, index, counts)
        _write_runs(sink, lim, c.standby, index, counts)
    sink.int_in(0, 2, min(problem.num_standby_replicas, 2))
    sink.bits([s in problem.stateless for s in names])
    return bytes(sink.out)


def encode(problem: AnyProblem) -> bytes:
    return encode_streams(problem) if isinstance(problem, StreamsProblem) else encode_problem(problem)
