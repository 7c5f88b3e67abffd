"""Every reference passes the spec's own checker with its promises (H1-H8, balance; not `exact`, which would
compare a reference with itself)."""

import dataclasses

from hypothesis import given, settings

from assigncheck.generate import strategies
from assigncheck.run.assignor_check import check_assignor
from assigncheck.spec.reference import REFERENCES


@settings(max_examples=40, deadline=None)
@given(strategies.problems(max_members=5, protocol="eager", racks=None, lag=None))
def test_consumer_references_pass_check_assignor(problem):
    for name in ("range", "roundrobin", "lag"):
        reference = REFERENCES[name]
        _, report = check_assignor(reference, problem, promises=dataclasses.replace(reference.promises, exact=None))
        assert report.ok, (name, report.violations)


@settings(max_examples=40, deadline=None)
@given(strategies.streams_problems())
def test_streams_reference_passes_check_assignor(problem):
    _, report = check_assignor(REFERENCES["streams"], problem)
    assert report.ok, report.violations
    assert report.quality["load_spread"] <= 1


def test_names_match_keys():
    assert sorted(REFERENCES) == ["lag", "range", "roundrobin", "streams"]
    assert all(REFERENCES[k].name == k for k in REFERENCES)
