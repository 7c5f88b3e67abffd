"""`impl.min_cost_flow` against OR-Tools on random networks: the same feasibility and the same least cost, from any
starting flow on arcs of cost 0, with every capacity and supply met."""

import subprocess
import sys

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from ortools.graph.python import min_cost_flow as ortools

from assigncheck.impl.min_cost_flow import min_cost_flow_from


@st.composite
def networks(draw):
    nodes = draw(st.integers(2, 8))
    arcs = draw(st.lists(st.tuples(st.integers(0, nodes - 1), st.integers(0, nodes - 1), st.integers(0, 6),
                                   st.integers(0, 4)).filter(lambda a: a[0] != a[1]), min_size=1, max_size=20))
    tail, head, cap, cost = (np.array(x, dtype=np.int64) for x in zip(*arcs))
    start = np.array([draw(st.integers(0, c)) if k == 0 else 0 for c, k in zip(cap, cost)], dtype=np.int64)
    supply = np.array(draw(st.lists(st.integers(-6, 6), min_size=nodes - 1, max_size=nodes - 1)), dtype=np.int64)
    return nodes, tail, head, cap, cost, start, np.append(supply, -supply.sum())


@settings(max_examples=1500, deadline=None)
@given(networks())
def test_least_cost_flow_as_ortools_finds(net):
    nodes, tail, head, cap, cost, start, supply = net
    got = min_cost_flow_from(nodes, tail, head, cap, cost, start, supply)
    ref = ortools.SimpleMinCostFlow()
    ref.add_arcs_with_capacity_and_unit_cost(tail, head, cap, cost)
    ref.set_nodes_supplies(np.arange(nodes), supply)
    status = ref.solve()
    assert status in (ref.OPTIMAL, ref.INFEASIBLE)
    if status == ref.INFEASIBLE:
        assert got is None
        return
    assert got is not None
    assert (got >= 0).all() and (got <= cap).all()
    net_out = np.bincount(tail, weights=got, minlength=nodes) - np.bincount(head, weights=got, minlength=nodes)
    assert (net_out == supply).all()
    assert int((got * cost).sum()) == ref.optimal_cost()


def test_the_starting_flow_is_not_changed_in_place():
    start = np.array([2, 0])
    out = min_cost_flow_from(3, np.array([0, 1]), np.array([1, 2]), np.array([5, 5]), np.array([0, 1]), start,
                             np.array([2, 0, -2]))
    assert out.tolist() == [2, 2] and start.tolist() == [2, 0]


def test_compiled_in_memory_where_no_cache_directory_is_writable():
    """A read-only install and no writable home: numba finds no directory for its cache and raises when asked to
    cache; the solver is then compiled in memory. numba's list of cache locations, emptied, stands for that
    machine (this process is root here, so nothing can be made unwritable)."""
    code = ("import numba.core.caching as caching\n"
            "caching.CacheImpl._locator_classes = []\n"
            "import numpy as np\n"
            "from assigncheck.impl.min_cost_flow import _solve, min_cost_flow_from\n"
            "out = min_cost_flow_from(3, np.array([0, 1]), np.array([1, 2]), np.array([5, 5]), np.array([1, 0]),\n"
            "                         np.array([0, 0]), np.array([2, 0, -2]))\n"
            "print(out.tolist(), type(_solve._cache).__name__)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[2, 2] NullCache"


def test_the_compile_notice_is_said_for_a_real_compile_only(monkeypatch, capsys):
    """A load from numba's cache that a busy machine makes slow is no compile: no notice, so a usage error after it
    stays one line on stderr (a malformed-input run at load 9 saw two)."""
    import threading
    import time

    from numba import njit

    from assigncheck.impl import min_cost_flow

    monkeypatch.setattr(min_cost_flow, "NOTICE_AFTER_S", 0.0)
    monkeypatch.setattr(min_cost_flow, "_noticed", threading.Event())
    loaded = njit(lambda x: x + 1)  # nothing compiled: as a load from the cache, no miss counted
    with min_cost_flow._said_when_compiling(loaded):
        time.sleep(0.3)
    assert capsys.readouterr().err == ""
    built = njit(lambda x: x + 1)
    built(1)  # compiled, nothing cached: numba counts a miss
    with min_cost_flow._said_when_compiling(built):
        time.sleep(0.3)
    assert capsys.readouterr().err.count("compiling its numba kernels") == 1
