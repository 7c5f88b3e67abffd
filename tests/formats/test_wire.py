"""The Kafka consumer-protocol codec: round trips, a kafka-python cross-check, junk -> WireFormatError."""

from __future__ import annotations

import random

import pytest
from kafka.coordinator.assignors.sticky.user_data import StickyAssignorUserData as KpStickyUserData
from kafka.protocol.consumer.metadata import ConsumerProtocolAssignment as KpAssignment
from kafka.protocol.consumer.metadata import ConsumerProtocolSubscription as KpSubscription

from assigncheck.formats import wire as codec
from assigncheck.formats.documents import problem_to_json
from assigncheck.formats.wire import StickyUserData, Subscription, WireAssignment
from assigncheck.spec.errors import WireFormatError
from assigncheck.spec.model import Member, Problem

OWNED = (("orders", (0, 2)), ("payments", (1,)))


def _sub(version: int) -> Subscription:
    return Subscription(
        topics=("orders", "payments"), user_data=b"\x00\x01ud",
        owned_partitions=OWNED if version >= 1 else (), generation_id=7 if version >= 2 else -1,
        rack_id="rack-a" if version >= 3 else None, version=version,
    )


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_subscription_round_trip_every_version(version):
    sub = _sub(version)
    assert codec.decode_subscription(codec.encode_subscription(sub)) == sub


def test_null_user_data_and_rack_survive_the_round_trip():
    sub = Subscription(("t",), None, (), -1, None, 3)
    data = codec.encode_subscription(sub)
    assert codec.decode_subscription(data) == sub
    assert data.endswith(b"\xff\xff")  # the null rack


def test_a_future_version_is_read_with_the_v3_layout_and_trailing_bytes_are_ignored():
    future = codec.encode_subscription(_sub(3).__class__(**{**_fields(_sub(3)), "version": 7})) + b"new field"
    got = codec.decode_subscription(future)
    assert got.version == 7 and got.rack_id == "rack-a" and got.owned_partitions == OWNED


def _fields(sub: Subscription) -> dict:
    return {f: getattr(sub, f) for f in sub.__slots__}


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_assignment_round_trip(version):
    a = WireAssignment((("t0", (3, 1)), ("t1", ())), b"x" if version % 2 else None, version)
    assert codec.decode_assignment(codec.encode_assignment(a)) == a


def _kp_tps(cls, tps):
    return [cls.TopicPartition(topic=t, partitions=list(p)) for t, p in tps]


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_subscription_bytes_match_kafka_python_both_ways(version):
    sub = _sub(version)
    kwargs = {"topics": list(sub.topics), "user_data": sub.user_data}
    if version >= 1:
        kwargs["owned_partitions"] = _kp_tps(KpSubscription, sub.owned_partitions)
    if version >= 2:
        kwargs["generation_id"] = sub.generation_id
    if version >= 3:
        kwargs["rack_id"] = sub.rack_id
    theirs = KpSubscription(version, **kwargs).encode()
    assert codec.encode_subscription(sub) == theirs
    assert codec.decode_subscription(theirs) == sub
    back = KpSubscription.decode(codec.encode_subscription(sub))
    assert list(back.topics) == list(sub.topics) and bytes(back.user_data) == sub.user_data


@pytest.mark.parametrize("version", [0, 3])
def test_assignment_bytes_match_kafka_python_both_ways(version):
    a = WireAssignment((("t0", (0, 5)), ("t1", (2,))), b"ud", version)
    theirs = KpAssignment(version, assigned_partitions=_kp_tps(KpAssignment, a.partitions), user_data=b"ud").encode()
    assert codec.encode_assignment(a) == theirs
    assert codec.decode_assignment(theirs) == a
    assert KpAssignment.decode(codec.encode_assignment(a)).partitions()[1].partition == 5


def test_sticky_user_data_v1_and_v0_as_java_writes_them():
    v1 = StickyUserData(OWNED, 4)
    assert codec.decode_sticky_user_data(codec.encode_sticky_user_data(v1)) == v1
    v0 = StickyUserData(OWNED, None)
    assert codec.decode_sticky_user_data(codec.encode_sticky_user_data(v0)) == v0
    # kafka-python's body is Java's layout; it adds an int16 version header only when asked to.
    theirs = KpStickyUserData([(t, list(p)) for t, p in OWNED], 4).encode(header=False)
    assert theirs == codec.encode_sticky_user_data(v1)


def test_cooperative_user_data_is_the_generation():
    assert codec.decode_cooperative_user_data(codec.encode_cooperative_user_data(12)) == 12
    with pytest.raises(WireFormatError) as e:
        codec.decode_cooperative_user_data(b"\x00\x01")
    assert e.value.path == "cooperative_user_data.generation"


def _valid_messages():
    return [
        (codec.decode_subscription, codec.encode_subscription(_sub(3))),
        (codec.decode_subscription, codec.encode_subscription(_sub(1))),
        (codec.decode_assignment, codec.encode_assignment(WireAssignment(OWNED, b"u"))),
        (codec.decode_sticky_user_data, codec.encode_sticky_user_data(StickyUserData(OWNED, None))),
    ]


def test_every_truncation_raises_wire_format_error_naming_a_field():
    for decode, data in _valid_messages():
        for cut in range(len(data)):
            try:
                decode(data[:cut])
            except WireFormatError as e:
                assert e.path, (decode.__name__, cut)
            else:  # a prefix can be a complete shorter message only where Kafka would also read one
                assert decode is codec.decode_subscription and cut >= 2


def test_junk_values_name_their_field():
    cases = {
        b"\xff\xfe": "subscription.version",
        b"\x00\x00\xff\xff\xff\xff": "subscription.topics",  # null array where none is allowed
        b"\x00\x00\x7f\xff\xff\xff": "subscription.topics",  # more items than bytes
        b"\x00\x00\x00\x00\x00\x01\xff\xff": "subscription.topics[0]",  # null topic name
        b"\x00\x00\x00\x00\x00\x01\x00\x02\xc3\x28": "subscription.topics[0]",  # not UTF-8
        b"\x00\x00\x00\x00\x00\x00\xff\xff\xff\xfe": "subscription.user_data",  # negative length
    }
    for data, path in cases.items():
        with pytest.raises(WireFormatError) as e:
            codec.decode_subscription(data)
        assert e.value.path == path, (data, e.value)
    with pytest.raises(WireFormatError) as e:
        codec.decode_subscription("not bytes")  # type: ignore[arg-type]
    assert "expects bytes" in str(e.value)


def test_random_and_mutated_bytes_only_ever_raise_wire_format_error():
    rng = random.Random(5)
    decoders = [codec.decode_subscription, codec.decode_assignment, codec.decode_sticky_user_data,
                codec.decode_cooperative_user_data]
    valid = [data for _, data in _valid_messages()]
    decoded = 0
    for _ in range(4000):
        if rng.random() < 0.5:
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(24)))
        else:
            buf = bytearray(rng.choice(valid))
            for _ in range(rng.randint(1, 3)):
                buf[rng.randrange(len(buf))] = rng.randrange(256)
            data = bytes(buf)
        for decode in decoders:
            try:
                decode(data)
                decoded += 1
            except WireFormatError:
                pass
    assert decoded > 0  # the mutations reach both outcomes


# ---- captured JoinGroup metadata -> Problem --------------------------------------------------------------


def test_eager_sticky_takes_ownership_from_user_data_only():
    user_data = codec.encode_sticky_user_data(StickyUserData((("t", (1, 2)),), 5))
    sub = Subscription(("t",), user_data, owned_partitions=(("t", (0,)),), generation_id=9, version=3)
    junk = Subscription(("t",), b"\x00\x00\x00\x09junk", version=1)
    p = codec.problem_from_join_group({"t": 3}, {"b": codec.encode_subscription(junk),
                                                 "a": codec.encode_subscription(sub)}, "sticky")
    assert p.member_ids == ("a", "b") and p.protocol == "eager"
    a, b = p.members
    assert a.owned["t"].tolist() == [1, 2] and a.generation == 5
    assert dict(b.owned) == {} and b.generation == -1  # unreadable user data: no claims, unknown generation


def test_cooperative_sticky_reads_the_fields_from_v2_and_the_user_data_generation_before():
    v3 = Subscription(("t",), codec.encode_cooperative_user_data(1), (("t", (0,)),), 6, "r1", 3)
    v1 = Subscription(("t",), codec.encode_cooperative_user_data(4), (("t", (1,)),), version=1)
    p = codec.problem_from_join_group(
        {"t": 2}, {"a": codec.encode_subscription(v3), "b": codec.encode_subscription(v1)}, "cooperative-sticky",
        instance_ids={"a": "static-a"})
    a, b = p.members
    assert p.protocol == "cooperative"
    assert (a.owned["t"].tolist(), a.generation, a.rack, a.instance_id) == ([0], 6, "r1", "static-a")
    assert (b.owned["t"].tolist(), b.generation, b.rack) == ([1], 4, None)


def test_other_assignors_read_the_subscription_fields():
    v2 = Subscription(("t", "u"), None, (("t", (1, 1, 9)),), 3, version=2)
    p = codec.problem_from_join_group({"t": 2}, {"m": codec.encode_subscription(v2)}, "range")
    (m,) = p.members
    assert m.subscription == {"t", "u"} and m.owned["t"].tolist() == [1, 1, 9] and m.generation == 3


def test_bad_member_metadata_names_the_member():
    with pytest.raises(WireFormatError) as e:
        codec.problem_from_join_group({}, {"m1": b"\x00"}, "range")
    assert e.value.path == "metadata[m1].subscription.version"


@pytest.mark.parametrize("assignor", ["sticky", "cooperative-sticky", "range"])
def test_subscription_of_inverts_problem_from_join_group(assignor):
    members = (
        Member("a", frozenset({"t", "u"}), {"t": [0, 1], "u": [2]}, 3, None, "r0"),
        Member("b", frozenset({"t"}), {}, -1, None, None),
    )
    protocol = "cooperative" if assignor == "cooperative-sticky" else "eager"
    problem = Problem({"t": 2, "u": 3}, members, protocol)
    metadata = {m.member_id: codec.subscription_of(m, assignor) for m in members}
    got = codec.problem_from_join_group({"t": 2, "u": 3}, metadata, assignor)
    assert problem_to_json(got) == problem_to_json(problem)
