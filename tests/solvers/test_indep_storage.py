"""Algorithm 2 (``li-euler-indep``, B = "partition", the engine's step) on packed storage:
M, Φq, Jq, Jq̇ evaluated into their blocks (``rtmbs.solvers.storage``); the packed path keeps no
dense n × n, m × n or (n + m)² array; its dense view; the option's errors. (The bit-for-bit
comparisons of packed and dense storage on the Python-driven sparse step went with that step:
``storage="dense"`` is now the dense path.)"""
import numpy as np
import pytest

from rtmbs.errors import SolverError
from rtmbs.models import load_model
from rtmbs.solvers.base import get_solver

def _arrays(obj, seen, out, depth=0):
    """Every ndarray reachable from ``obj``'s attributes (rtmbs objects, lists, tuples, dicts)."""
    if depth > 5 or id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        out.append(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            _arrays(v, seen, out, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _arrays(v, seen, out, depth + 1)
    elif hasattr(obj, "__dict__") and type(obj).__module__.startswith("rtmbs") \
            and not type(obj).__name__.endswith("System"):
        for v in vars(obj).values():
            _arrays(v, seen, out, depth + 1)


@pytest.mark.parametrize("model", ["sedan", "multilink-ideal", "peer-quarter-car"])
def test_packed_path_keeps_no_dense_matrix(model):
    """After reset and steps (rebases allowed) no array of n², m·n or (n + m)² entries is held;
    with dense storage the workspaces are (the check can fail)."""
    system = load_model(model)
    n, m = system.n, system.m
    dense_sizes = {n * n, m * n, (n + m) ** 2}
    held = {}
    for storage in ("packed", "dense"):
        slv = get_solver("li-euler-indep")(system, storage=storage)
        st = system.initial_state()
        slv.reset(st)
        for _ in range(20):
            assert slv.step(st, 1e-3)
        arrays = []
        _arrays(slv, set(), arrays)
        held[storage] = [a.shape for a in arrays if a.size in dense_sizes]
    assert held["packed"] == []
    assert (n, n) in held["dense"] and (m, n) in held["dense"]


def test_dense_view_of_the_packed_buffers():
    """``ws`` on the packed path scatters the blocks into a dense workspace: after reset it
    holds Φq at q0 exactly as a dense evaluation gives it."""
    from rtmbs.protocol import EVAL_PHIQ

    system = load_model("multilink-ideal")
    slv = get_solver("li-euler-indep")(system)
    st = system.initial_state()
    slv.reset(st)
    assert slv.packed
    ws = system.workspace()
    system.evaluate(st.t, st.q, st.qd, ws, EVAL_PHIQ)
    assert np.array_equal(slv.ws.phiq, ws.phiq)


def test_storage_option_errors():
    chain = load_model("spatial-chain-10")
    assert get_solver("li-euler-indep")(chain).packed  # auto: packed on the sparse path
    assert not get_solver("li-euler-indep")(chain, B="qr").packed
    with pytest.raises(SolverError) as info:
        get_solver("li-euler-indep")(chain, B="qr", storage="packed")
    assert str(info.value) == (
        "solver 'li-euler-indep': option storage='packed' needs the sparse path (B='partition', "
        "linear_solver 'auto' or 'sparse') on a compiled Cartesian model; 'spatial-chain-10' is "
        "not (use 'auto' or 'dense')")
    with pytest.raises(SolverError) as info:
        get_solver("li-euler-indep")(chain, storage="blocks")
    assert str(info.value) == ("solver 'li-euler-indep': option storage='blocks' is not one of "
                               "'auto', 'packed', 'dense'")
