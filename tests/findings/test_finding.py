"""A finding and the bugs findings make (`findings.finding`): one bug per signature and target, shown by its
smallest reproducer of its best status, with the bugs that follow from its wrong partitions as consequences."""

from assigncheck.findings.finding import Finding, bugs


def _found(stage, invariant, sig, size, status="confirmed", also=(), target="t"):
    return Finding(stage, target, invariant, f"{invariant} broke", f"r/{stage}-{sig}.json", 0, signature=sig,
                   status=status, size=size, also=also)


FOUND = [
    _found("properties", "H3", "H3|a", 5),
    _found("proofs", "H3", "H3|a", 3),
    _found("fuzz", "H3", "H3|a", 3),  # as small as proofs': the earlier stage's is shown
    _found("properties", "H4", "H4|a", 4, also=(("H3", "H3|a"),)),  # the H4 on the H3's partitions
    _found("campaign", "H5", "H5|b", 4, also=(("H4", "H4|a"),)),  # follows from the H4: the H3's, in the end
    _found("campaign", "H4", "H4|d", 9, also=(("H3", "H3|unseen"),)),  # an H3 of no bug's signature: the first H3's
    _found("properties", "H3", "H3|c", 2, status="unconfirmed"),
    _found("fuzz", "H4", "H4|c", 2, also=(("H3", "H3|c"),)),  # confirmed: never under an unconfirmed bug
    _found("properties", "H3", "H3|a", 1, target="u"),  # another target, another bug
]


def test_findings_are_grouped_by_bug_with_their_consequences():
    found = bugs(FOUND)
    assert [(b.shown.target, b.shown.signature, b.status) for b in found] == [
        ("t", "H3|a", "confirmed"), ("t", "H3|c", "unconfirmed"), ("t", "H4|c", "confirmed"),
        ("u", "H3|a", "confirmed")]
    first = found[0]
    assert first.shown is FOUND[1] and first.stages == ("properties", "proofs", "fuzz")
    assert [c.shown.signature for c in first.consequences] == ["H4|a", "H5|b", "H4|d"]
    assert all(not c.consequences for c in first.consequences)  # flattened under the root
    assert found[1].consequences == ()
    # every confirmed finding is under a confirmed bug: the counts and the exit code say the same
    assert {id(f) for b in found if b.status == "confirmed" for f in b.every()} == {
        id(f) for f in FOUND if f.status == "confirmed"}


def test_a_nondeterministic_target_is_one_bug_whatever_else_its_flaky_replays_broke():
    def replayed(stage, invariant, sig, k, status="confirmed", target="go"):
        return Finding(stage, target, invariant, f"{invariant} broke", f"r/{stage}-{sig}.json", 0, signature=sig,
                       status=status, size=3, replays=5, reproduced=k)

    found = [
        replayed("properties", "fixpoint", "fixpoint|racks", 2),  # found first, flaky
        replayed("properties", "H8", "H8|racks", 4),  # a flaky H8 ...
        replayed("proofs", "H8", "H8", 5),  # ... and one that failed on every replay: the root
        replayed("properties", "H8", "H8|processes", 1),
        replayed("proofs", "fixpoint", "fixpoint", 0, status="unconfirmed"),
        replayed("proofs", "H3", "H3", 5),  # fails on every replay: a bug of its own
        replayed("properties", "fixpoint", "fixpoint", 2, target="other"),  # no H8 bug there: its own bug
    ]
    (root, h3, other) = bugs(found)
    assert root.shown is found[2] and root.status == "confirmed"
    assert [c.shown.signature for c in root.consequences] == ["fixpoint|racks", "H8|racks", "H8|processes",
                                                              "fixpoint"]
    assert h3.shown.signature == "H3" and not h3.consequences and other.shown.target == "other"
    assert found[0].flaky and found[0].replayed == "failed in 2 of 5 replays (flaky)"
    assert not found[2].flaky and found[2].replayed == "failed in 5 of 5 replays"
