"""The Kafka consumer-protocol wire codec: what a JoinGroup/SyncGroup carries for a consumer group.

Formats (Kafka's `ConsumerProtocolSubscription.json` / `ConsumerProtocolAssignment.json`, non-flexible):
an int16 version header, then the struct. Strings are int16 length + UTF-8 (-1 = null), arrays and bytes
int32 length (-1 = null), all big-endian.

- Subscription v0: topics:[string], user_data:bytes?; v1+ owned_partitions:[{topic, partitions:[int32]}];
  v2+ generation_id:int32; v3+ rack_id:string?.
- Assignment v0-v3: assigned_partitions:[{topic, partitions:[int32]}], user_data:bytes?.
- StickyAssignor user data (no version header, as Java writes it): v0 previous_assignment:[{topic,
  partitions:[int32]}]; v1 adds generation:int32. Decoding tries v1, then v0 (as Java does).
- CooperativeStickyAssignor user data: generation:int32, no header.

Like Kafka, a version above 3 is read with the v3 layout and trailing bytes are ignored (newer versions only
append fields). Anything else that is not a valid message raises `WireFormatError` naming the field, never
another exception.

`problem_from_join_group` turns captured JoinGroup metadata back into a `Problem` (docs/SPEC.md §12).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import overload

import numpy as np

from assigncheck.spec.errors import WireFormatError
from assigncheck.spec.model import UNKNOWN_GENERATION, Member, Problem, partitions_of

MAX_VERSION = 3
TopicPartitions = tuple[tuple[str, tuple[int, ...]], ...]  # [(topic, (partition, ...)), ...] as on the wire


@dataclass(frozen=True, slots=True)
class Subscription:
    topics: tuple[str, ...]
    user_data: bytes | None = None
    owned_partitions: TopicPartitions = ()  # v1+
    generation_id: int = UNKNOWN_GENERATION  # v2+
    rack_id: str | None = None  # v3+
    version: int = MAX_VERSION


@dataclass(frozen=True, slots=True)
class WireAssignment:
    partitions: TopicPartitions
    user_data: bytes | None = None
    version: int = MAX_VERSION


@dataclass(frozen=True, slots=True)
class StickyUserData:
    previous_assignment: TopicPartitions
    generation: int | None = None  # None: the v0 layout (no generation)


def topic_partitions(spec: Mapping[str, Iterable[int]]) -> TopicPartitions:
    """{topic: indices} -> the wire's list form, topics sorted (the order Kafka clients send)."""
    return tuple((t, tuple(int(i) for i in spec[t])) for t in sorted(spec))


# ---- reading --------------------------------------------------------------------------------------


class _Reader:
    """Big-endian reads over a byte string; every failure names the field being read."""

    __slots__ = ("data", "pos")

    def __init__(self, data: bytes) -> None:
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise WireFormatError("", f"expects bytes, got {type(data).__name__}")
        self.data = bytes(data)
        self.pos = 0

    def _take(self, n: int, path: str) -> bytes:
        if self.pos + n > len(self.data):
            left = len(self.data) - self.pos
            raise WireFormatError(path, f"needs {n} byte(s) at offset {self.pos}, only {left} left")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def int16(self, path: str) -> int:
        return struct.unpack(">h", self._take(2, path))[0]

    def int32(self, path: str) -> int:
        return struct.unpack(">i", self._take(4, path))[0]

    @overload
    def string(self, path: str) -> str: ...

    @overload
    def string(self, path: str, *, nullable: bool) -> str | None: ...

    def string(self, path: str, *, nullable: bool = False) -> str | None:
        n = self.int16(path)
        if n < 0:
            if n == -1 and nullable:
                return None
            raise WireFormatError(path, f"has invalid string length {n}" if n != -1 else "is null")
        raw = self._take(n, path)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise WireFormatError(path, f"is not UTF-8 at byte {e.start}") from None

    def nullable_bytes(self, path: str) -> bytes | None:
        n = self.int32(path)
        if n == -1:
            return None
        if n < 0:
            raise WireFormatError(path, f"has invalid length {n}")
        return self._take(n, path)

    def length(self, path: str, min_item_size: int) -> int:
        """An array length, checked against the bytes left so junk cannot make us allocate gigabytes."""
        n = self.int32(path)
        if n < 0:
            raise WireFormatError(path, "is null" if n == -1 else f"has invalid array length {n}")
        if n * min_item_size > len(self.data) - self.pos:
            raise WireFormatError(path, f"claims {n} item(s) but only {len(self.data) - self.pos} byte(s) are left")
        return n

    def int32_array(self, path: str) -> tuple[int, ...]:
        n = self.length(path, 4)
        return tuple(np.frombuffer(self._take(4 * n, path), dtype=">i4").tolist())

    def topic_partitions(self, path: str) -> TopicPartitions:
        out = []
        for i in range(self.length(path, 6)):  # a topic entry is at least a 2-byte string and a 4-byte array
            topic = self.string(f"{path}[{i}].topic")
            out.append((topic, self.int32_array(f"{path}[{i}].partitions")))
        return tuple(out)

    def version(self, path: str) -> int:
        v = self.int16(f"{path}.version")
        if v < 0:
            raise WireFormatError(f"{path}.version", f"unsupported version {v}")
        return v


def decode_subscription(data: bytes) -> Subscription:
    r = _Reader(data)
    version = r.version("subscription")
    layout = min(version, MAX_VERSION)
    topics = tuple(r.string(f"subscription.topics[{i}]") for i in range(r.length("subscription.topics", 2)))
    user_data = r.nullable_bytes("subscription.user_data")
    owned = r.topic_partitions("subscription.owned_partitions") if layout >= 1 else ()
    generation = r.int32("subscription.generation_id") if layout >= 2 else UNKNOWN_GENERATION
    rack = r.string("subscription.rack_id", nullable=True) if layout >= 3 else None
    return Subscription(topics, user_data, owned, generation, rack, version)


def decode_assignment(data: bytes) -> WireAssignment:
    r = _Reader(data)
    version = r.version("assignment")
    partitions = r.topic_partitions("assignment.assigned_partitions")
    return WireAssignment(partitions, r.nullable_bytes("assignment.user_data"), version)


def decode_sticky_user_data(data: bytes) -> StickyUserData:
    """Java's StickyAssignor: read the v1 layout; if that fails, the v0 layout; else a WireFormatError."""
    try:
        r = _Reader(data)
        previous = r.topic_partitions("sticky_user_data.previous_assignment")
        return StickyUserData(previous, r.int32("sticky_user_data.generation"))
    except WireFormatError:
        r = _Reader(data)
        return StickyUserData(r.topic_partitions("sticky_user_data.previous_assignment"), None)


def decode_cooperative_user_data(data: bytes) -> int:
    """CooperativeStickyAssignor user data: the generation."""
    return _Reader(data).int32("cooperative_user_data.generation")


# ---- writing --------------------------------------------------------------------------------------


def _int16(v: int) -> bytes:
    return struct.pack(">h", v)


def _int32(v: int) -> bytes:
    return struct.pack(">i", v)


def _string(s: str | None) -> bytes:
    if s is None:
        return _int16(-1)
    raw = s.encode("utf-8")
    return _int16(len(raw)) + raw


def _bytes(b: bytes | None) -> bytes:
    return _int32(-1) if b is None else _int32(len(b)) + bytes(b)


def _topic_partitions(tps: TopicPartitions) -> bytes:
    out = [_int32(len(tps))]
    for topic, parts in tps:
        out.append(_string(topic))
        out.append(_int32(len(parts)))
        out.append(np.asarray(parts, dtype=">i4").tobytes())
    return b"".join(out)


def encode_subscription(sub: Subscription) -> bytes:
    """Fields the version does not have are left out (they are all `ignorable` in Kafka's schema)."""
    layout = min(sub.version, MAX_VERSION)
    out = [_int16(sub.version), _int32(len(sub.topics)), *(_string(t) for t in sub.topics), _bytes(sub.user_data)]
    if layout >= 1:
        out.append(_topic_partitions(sub.owned_partitions))
    if layout >= 2:
        out.append(_int32(sub.generation_id))
    if layout >= 3:
        out.append(_string(sub.rack_id))
    return b"".join(out)


def encode_assignment(assignment: WireAssignment) -> bytes:
    return _int16(assignment.version) + _topic_partitions(assignment.partitions) + _bytes(assignment.user_data)


def encode_sticky_user_data(data: StickyUserData) -> bytes:
    body = _topic_partitions(data.previous_assignment)
    return body if data.generation is None else body + _int32(data.generation)


def encode_cooperative_user_data(generation: int) -> bytes:
    return _int32(generation)


# ---- captured JoinGroup metadata -> Problem ---------------------------------------------------------

EAGER_STICKY = "sticky"
COOPERATIVE_STICKY = "cooperative-sticky"


def _sticky_claims(sub: Subscription) -> tuple[TopicPartitions, int]:
    """Java's StickyAssignor.memberData: always the user data; unreadable or empty -> (nothing, -1)."""
    if not sub.user_data:
        return (), UNKNOWN_GENERATION
    try:
        data = decode_sticky_user_data(sub.user_data)
    except WireFormatError:
        return (), UNKNOWN_GENERATION
    return data.previous_assignment, UNKNOWN_GENERATION if data.generation is None else data.generation


def _cooperative_claims(sub: Subscription) -> tuple[TopicPartitions, int]:
    """CooperativeStickyAssignor.memberData: the Subscription fields (v2+, KIP-792), else the user data."""
    if sub.version >= 2 and sub.generation_id >= 0:
        return sub.owned_partitions, sub.generation_id
    if sub.user_data is None:
        return sub.owned_partitions, UNKNOWN_GENERATION
    try:
        return sub.owned_partitions, decode_cooperative_user_data(sub.user_data)
    except WireFormatError:
        return sub.owned_partitions, UNKNOWN_GENERATION


def _claims(tps: TopicPartitions) -> dict[str, list[int]]:
    grouped: dict[str, list[int]] = {}
    for topic, parts in tps:
        grouped.setdefault(topic, []).extend(parts)
    return grouped


def problem_from_join_group(
    topics: Mapping[str, int],
    metadata: Mapping[str, bytes],
    assignor: str,
    *,
    instance_ids: Mapping[str, str | None] | None = None,
    protocol: str | None = None,
) -> Problem:
    """A Problem from a JoinGroup response: topic metadata and member id -> Subscription bytes.

    The assignor name decides where previous ownership lives: `sticky` reads the StickyAssignor user data,
    `cooperative-sticky` the Subscription fields (falling back to the generation in its user data), any
    other assignor the Subscription's owned partitions and generation. `group.instance.id` is not part of
    the Subscription (it travels in the JoinGroup member entry), so it is passed separately. Members are
    listed sorted by member id. The protocol defaults to cooperative for `cooperative-sticky`.
    """
    members = []
    for member_id in sorted(metadata):
        try:
            sub = decode_subscription(metadata[member_id])
        except WireFormatError as e:
            raise WireFormatError(f"metadata[{member_id}].{e.path}", e.message) from None
        if assignor == EAGER_STICKY:
            owned, generation = _sticky_claims(sub)
        elif assignor == COOPERATIVE_STICKY:
            owned, generation = _cooperative_claims(sub)
        else:
            owned = sub.owned_partitions
            generation = sub.generation_id if sub.version >= 2 else UNKNOWN_GENERATION
        members.append(Member(
            member_id=member_id,
            subscription=frozenset(sub.topics),
            owned=partitions_of(_claims(owned)),
            generation=generation,
            instance_id=(instance_ids or {}).get(member_id),
            rack=sub.rack_id,
        ))
    chosen = protocol or ("cooperative" if assignor == COOPERATIVE_STICKY else "eager")
    if chosen not in ("eager", "cooperative"):
        raise WireFormatError("protocol", f"must be eager or cooperative, got {chosen!r}")
    return Problem(topics=dict(topics), members=tuple(members), protocol=chosen)  # type: ignore[arg-type]  # checked above


def subscription_of(member: Member, assignor: str, *, version: int = MAX_VERSION) -> bytes:
    """The Subscription bytes a member of `problem` would send (the inverse of `problem_from_join_group`)."""
    owned = topic_partitions({t: arr.tolist() for t, arr in member.owned.items()})
    topics = tuple(sorted(member.subscription))
    if assignor == EAGER_STICKY:
        sticky = encode_sticky_user_data(StickyUserData(owned, member.generation))
        return encode_subscription(Subscription(topics, sticky, (), UNKNOWN_GENERATION, member.rack, version))
    user_data = encode_cooperative_user_data(member.generation) if assignor == COOPERATIVE_STICKY else None
    return encode_subscription(Subscription(topics, user_data, owned, member.generation, member.rack, version))

__all__ = [
    "StickyUserData", "Subscription", "WireAssignment", "decode_assignment", "decode_cooperative_user_data",
    "decode_sticky_user_data", "decode_subscription", "encode_assignment", "encode_cooperative_user_data",
    "encode_sticky_user_data", "encode_subscription", "problem_from_join_group", "subscription_of"
]
