"""Algorithm 2 (``li-euler-indep``, B = "partition", packed storage) as one call of the C engine per
step (li_euler_indep.c, partition.c): the trajectories agree with the dense step driven
from Python (numpy and the engine's dense LU) to round-off, with the same counters, rebases
(natural), a caller who changes the state, transient tyres; fallbacks of Φu's factors are counted
and leave the results; no Python-level kernel runs in a step without a rebase."""
import numpy as np
import pytest

from rtmbs.models import load_model
from rtmbs.solvers import li_euler_indep
from rtmbs.solvers.basis import PartitionBasis
from rtmbs.solvers.base import get_solver
from _models.indep_runs import run_indep
from rtmbs.solvers.storage import StepStorage

CONFIGS = {
    "projection": {},
    "projection-T": {"projection_solve": "T", "jacobian": "all"},
    "none": {"stabilize": "none", "multipliers": False},
    "baumgarte": {"stabilize": "baumgarte", "position_update": "explicit"},
    "rebase-every-step": {"rebase_tol": 1e3},
}
MODELS = ["multilink-ideal", "peer-quarter-car", "peer-four-bar", "multilink-bushings", "sedan"]


def _close_runs(a, b, where, rtol=1e-8):
    """Two runs of :func:`run_indep`: the same length, ok flags and counters; q, q̇ within
    ``rtol`` of each coordinate's largest magnitude (at least 1)."""
    assert len(a) == len(b), where
    for k, (x, y) in enumerate(zip(a, b)):
        assert x[0] == y[0] and x[1] == y[1] and x[5] == y[5], f"{where}: step {k + 1}"
    for j, name in ((2, "q"), (3, "qd")):
        u, v = np.array([r[j] for r in a]), np.array([r[j] for r in b])
        err = (np.abs(u - v) / np.maximum(np.abs(v).max(axis=0), 1.0)).max()
        assert err <= rtol, f"{where}: {name} differs by {err:.2e}"


@pytest.mark.parametrize("config", ["projection", "projection-T", "none", "baumgarte"])
@pytest.mark.parametrize("model", ["multilink-ideal", "peer-quarter-car", "peer-four-bar"])
def test_the_engine_step_agrees_with_the_dense_python_step(model, config):
    """The same partition throughout (``rebase=False``: the pivot check measures Φu's sparse LU
    with its static pivot order against the dense one's partial pivoting, so the two paths may
    re-choose B at different steps)."""
    system = load_model(model)
    opts = dict(CONFIGS[config], rebase=False)
    slv_f, fused = run_indep(system, dict(**opts), change_at=150)
    slv_p, dense = run_indep(system, dict(linear_solver="dense", **opts), change_at=150)
    assert slv_f.fused_step and not slv_p.fused_step
    assert len(fused) == 300, f"stopped at step {len(fused)}"
    _close_runs(fused, dense, f"{model} {config}")
    assert np.array_equal(slv_f.cols, slv_p.cols)


def test_the_engine_step_rebases_and_goes_on():
    """peer-quarter-car: the pivot check of Φu fails on the way and B is chosen again (between two
    of the engine's calls), without being forced to; the run goes on to the end."""
    slv, rows = run_indep(load_model("peer-quarter-car"), {}, change_at=150)
    assert slv.fused_step and len(rows) == 300 and all(r[0] for r in rows)
    assert slv.nrebase >= 1


def test_fused_step_falls_back_and_keeps_the_results():
    """With the growth limit at 0 every factorisation of Φu is flagged (refined solves): counted,
    the results those of the unflagged factors to round-off."""
    system = load_model("multilink-ideal")
    out = {}
    for flagged in (False, True):
        slv = get_solver("li-euler-indep")(system)
        st = system.initial_state()
        slv.reset(st)
        if flagged:
            slv.splu.growth_limit = 0.0
        rows = []
        for _ in range(30):
            assert slv.step(st, 1e-3)
            rows.append(np.concatenate([st.q, st.qd]))
        out[flagged] = (slv.nfallback, np.array(rows))
    assert out[True][0] == 30 and out[False][0] == 0
    scale = np.maximum(np.abs(out[False][1]).max(axis=0), 1.0)
    assert (np.abs(out[True][1] - out[False][1]) / scale).max() < 1e-9


def test_fused_step_with_transient_tyres_agrees_with_the_dense_step():
    """Extra states (a transient tyre's deflections, read by the evaluations and advanced inside
    the engine's call; by ``Solver.step`` around the dense one) alike on both paths."""
    from rtmbs.models.multilink import build

    system = build("ideal", transient=True)
    assert system.nx == 2
    out = {}
    for dense in (False, True):
        slv = get_solver("li-euler-indep")(system, **({"linear_solver": "dense"} if dense else {}))
        st = system.initial_state()
        slv.reset(st)
        rows = []
        for _ in range(300):
            assert slv.step(st, 1e-3)
            rows.append(np.concatenate([st.q, st.qd, st.x]))
        out[dense] = (slv.fused_step, np.array(rows))
    assert out[False][0] and not out[True][0]
    assert np.abs(out[False][1][:, -2:]).max() > 1e-6  # the deflections move
    scale = np.maximum(np.abs(out[True][1]).max(axis=0), 1.0)
    assert (np.abs(out[False][1] - out[True][1]) / scale).max() < 1e-8


@pytest.mark.parametrize("config", ["projection", "projection-T", "none"])
def test_a_step_without_rebase_makes_no_python_level_kernel_call(monkeypatch, config):
    """The fixed-cost step is the one compiled call: the Python-driven step's evaluations and
    kernels are replaced by functions that raise, and the steps still run (and count as the
    documented fixed cost: evaluations 3 (+1 projection), factorisations 2 (+1 kkt), solves
    f + 4 (+1 projection, −1 without λ))."""
    system = load_model("multilink-ideal")
    slv = get_solver("li-euler-indep")(system, **CONFIGS[config])
    st = system.initial_state()
    slv.reset(st)

    def refuse(*args, **kwargs):
        raise AssertionError("called from Python")

    monkeypatch.setattr(StepStorage, "evaluate", refuse)
    monkeypatch.setattr(type(system), "evaluate_packed", refuse)
    for name in ("reduced", "lambda_rhs", "kkt_factor", "kkt_correction"):
        monkeypatch.setattr(li_euler_indep, name, refuse)
    for name in ("factor", "R_Sc", "velocity", "zd", "lam", "project_T"):
        monkeypatch.setattr(PartitionBasis, name, refuse)
    before = (slv.neval, slv.nfactor, slv.nsolve)
    for _ in range(10):
        assert slv.step(st, 1e-3)
    assert slv.nrebase == 0
    f = system.n - system.m
    proj = config != "none"
    expected = (3 + proj, 2 + (config == "projection"), f + 4 + proj - (config == "none"))
    assert tuple((a - b) // 10 for a, b in
                 zip((slv.neval, slv.nfactor, slv.nsolve), before)) == expected


def test_step_arrays_are_views_of_the_kernel_buffer():
    """The solver's R, λ, ż, ... are the compiled step's ``vec`` (one array for the call)."""
    system = load_model("peer-quarter-car")
    slv = get_solver("li-euler-indep")(system)
    st = system.initial_state()
    slv.reset(st)
    n, m = system.n, system.m
    views = [getattr(slv, name) for name in li_euler_indep.VIEW_NAMES]
    assert all(np.shares_memory(v, slv.vec) for v in views)
    assert sum(v.size for v in views) == slv.vec.size  # no overlap, nothing left over
    assert slv.Rn.shape == (n, n - m) and slv.lam.shape == (m,) and slv.prhs.shape == (n + m,)
    slv.step(st, 1e-3)
    assert np.array_equal(slv.zd, st.qd[slv.cols[m:]])  # ż = B q̇ (B: rows of the identity)


def test_which_configurations_run_the_compiled_step():
    system = load_model("multilink-ideal")
    make = get_solver("li-euler-indep")
    assert make(system).fused_step
    assert make(system, stabilize="baumgarte").fused_step
    assert make(system, instrument=True).fused_step  # (timed whole)
    assert not make(system, storage="dense").fused_step
    assert not make(system, B="qr").fused_step
    assert not make(system, linear_solver="dense").fused_step
