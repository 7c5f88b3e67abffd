"""What a user's test suite looks like with the assigncheck plugin (collected only by test_pytest_plugin)."""

from hypothesis import given, settings
from my_assignor import BROKEN, LosesTheLastPartition, SimpleRoundRobin

from assigncheck.generate import strategies


def test_simple_round_robin_meets_the_spec(assigncheck):
    assigncheck.check(SimpleRoundRobin(), promises="balance=per-topic", stages=["properties"])


def test_broken_assignor_is_caught(assigncheck):
    assigncheck.check(LosesTheLastPartition(), stages=["properties"])


@settings(max_examples=30, deadline=None)
@given(strategies.problems())
def test_own_property_every_member_is_in_the_output(problem):
    assert set(SimpleRoundRobin().assign(problem).by_member) == set(problem.member_ids)


def test_a_module_level_assignor_is_recorded_by_its_import_path(assigncheck):
    assigncheck.check(BROKEN, stages=["properties"])


def test_an_object_made_in_a_test_cannot_go_to_other_processes(assigncheck):
    assigncheck.check(LosesTheLastPartition(), stages=["properties", "fuzz"])
