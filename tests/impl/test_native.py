"""The built-in assignors' compiled kernels (native/impl/, `assigncheck.impl.native`): the member order by id is
Python's `sorted`, they refuse what they cannot read, and the module holds what its stub names. (The kernels'
outputs are held to the plain-Python twins in `tests/impl/test_constrained_small.py` and
`tests/impl/test_withhold_small.py`.)"""

import ast

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assigncheck.impl import native
from assigncheck.impl.native import by_id, withheld
from assigncheck.spec.model import Member
from tests.paths import PACKAGE


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(st.characters(codec="utf-8") | st.sampled_from("\ud800\udfff\x00\U0010ffff"), max_size=12),
                unique=True, max_size=12))
def test_members_by_id_are_in_pythons_sorted_order(ids):
    """`by_id` (the general sticky assignor's member order) against `sorted`: code points, lone surrogates, shared
    prefixes longer than the eight bytes compared first."""
    ids = [f"member-{i}" for i in ids] + ids
    members = [Member(i, frozenset()) for i in ids]
    sorted_ids, order = by_id(tuple(members), Member)
    assert sorted_ids == sorted(ids) and [ids[k] for k in np.frombuffer(order, np.int64)] == sorted_ids


ROW = np.zeros(1, dtype=np.int64)
NO_ROWS, NO_INDEX = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)


@pytest.mark.parametrize(("change", "says"), [
    ({"receiver": []}, "member is outside receiver"),
    ({"code": []}, "topic is outside code"),
    ({"index": NO_INDEX}, "equal lengths"),
    ({"claimed": np.array([1, 1]), "claimant": np.array([0, 0])}, "claimed must ascend"),
    ({"valid_member": ROW, "valid_topic": ROW, "valid_index": np.array([5], dtype=np.int32)}, "sizes lack"),
    ({"sizes": [-1]}, "negative"),
])
def test_what_withheld_cannot_read_is_refused(change, says):
    """The held rows of a cooperative round: one row (member 0, topic 0, index 0) of a one-partition topic."""
    args = {"member": ROW, "topic": ROW, "index": np.zeros(1, dtype=np.int32), "code": [0], "sizes": [1],
            "receiver": [0], "valid_member": NO_ROWS, "valid_topic": NO_ROWS, "valid_index": NO_INDEX,
            "claimed": np.array([0]), "claimant": np.array([1])}
    assert [np.frombuffer(b, np.int64).tolist() for b in withheld(**args)] == [[0], [], []]  # held: nothing kept
    with pytest.raises(ValueError, match=says):
        withheld(**{**args, **change})


def test_the_module_holds_what_its_stub_names():
    stub = ast.parse((PACKAGE / "impl" / "native.pyi").read_text())
    named = {node.name for node in stub.body if isinstance(node, ast.FunctionDef)}
    assert named == {name for name in dir(native) if not name.startswith("_")} == {"by_id", "place_two_phase",
                                                                                    "withheld"}
