"""Algorithm 2 (``li-euler-indep``, B = "partition", sparse path) on packed storage (issue 11):
M, Φq, Jq, Jq̇ evaluated into their blocks (``rtmbs.solvers.storage``) give bit for bit the
trajectories, multipliers and counters of the dense workspaces, on every built-in model with
ideal and bushing joints and on the peer models, rebases and fallbacks included; the packed path
keeps no dense n × n, m × n or (n + m)² array."""
import numpy as np
import pytest

from rtmbs.errors import SolverError
from rtmbs.models import BUILTIN, load_model
from rtmbs.solvers.base import get_solver
from solvertest_indep_runs import assert_same_runs, run_indep

MODELS = sorted(m for m in BUILTIN if not m.startswith("truck"))

CONFIGS = {
    "projection": {},
    "projection-T": {"projection_solve": "T", "jacobian": "all"},
    "none": {"stabilize": "none", "multipliers": False},
    "baumgarte": {"stabilize": "baumgarte", "position_update": "explicit"},
}


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("model", MODELS)
def test_packed_storage_is_bit_identical_to_dense(model, config):
    system = load_model(model)
    if system.m == 0:
        pytest.skip("no constraints")
    if not get_solver("li-euler-indep")(system).packed:
        pytest.skip("no packed path (a hand-written model, or redundant rows left out)")
    # (the same sparse LU on both storages: "auto" is dense below 18 coordinates when the storage
    # is dense, the step then being driven from Python)
    same = dict(B="partition", linear_solver="sparse", **CONFIGS[config])
    slv_p, packed = run_indep(system, dict(storage="packed", **same))
    slv_d, dense = run_indep(system, dict(storage="dense", **same))
    assert slv_p.packed and not slv_d.packed
    assert len(packed) > 50, f"stopped at step {len(packed)}"
    assert_same_runs(packed, dense, f"{model} {config}")
    assert slv_p.nanalyse == slv_d.nanalyse == 0


@pytest.mark.parametrize("event", ["rebase", "fallback"])
@pytest.mark.parametrize("model", ["four-bar", "multilink-ideal", "peer-quarter-car"])
def test_packed_storage_rebases_and_falls_back_as_dense(model, event):
    """rebase_tol above 1: every step re-chooses the partition (from the dense copy of the packed
    Φq) and re-analyses Φu; with the growth limit at 0 every factorisation of Φu falls back to
    refined solves. Either happens alike on both storages, bit for bit."""
    system = load_model(model)
    opts = {"rebase_tol": 1e3} if event == "rebase" else {}
    out = {}
    for storage in ("packed", "dense"):
        slv = get_solver("li-euler-indep")(system, B="partition", storage=storage, **opts)
        st = system.initial_state()
        slv.reset(st)
        if event == "fallback":
            slv.splu.growth_limit = 0.0
        rows = []
        for _ in range(20):
            assert slv.step(st, 1e-3)
            rows.append((st.q.copy(), st.qd.copy(), slv.lam.copy(), slv.cols.copy()))
        out[storage] = (slv.nrebase, slv.nfallback, rows)
    if event == "rebase":
        assert out["packed"][0] == out["dense"][0] == 20
    else:
        assert out["packed"][0] == out["dense"][0] == 0
        assert out["packed"][1] == out["dense"][1] == 20
    for k, (a, b) in enumerate(zip(out["packed"][2], out["dense"][2])):
        for name, x, y in zip(("q", "qd", "lam", "cols"), a, b):
            assert np.array_equal(x, y), f"{model}: {name} differs at step {k + 1}"


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
