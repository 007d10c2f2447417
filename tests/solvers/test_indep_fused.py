"""Algorithm 2 (``li-euler-indep``, B = "partition", packed storage) as one compiled call per step
(issue 11, ``rtmbs.solvers.compiled_indep``): the same trajectories, multipliers and counters bit
for bit as the step driven kernel by kernel from Python (``instrument=True`` runs that one), with
rebases (natural and forced), a caller who changes the state, and fallbacks of Φu's factors."""
import numpy as np
import pytest

from rtmbs.models import load_model
from rtmbs.solvers import compiled_indep, li_euler_indep
from rtmbs.solvers.base import get_solver
from solvertest_indep_runs import assert_same_runs, run_indep
from rtmbs.solvers.storage import StepStorage

CONFIGS = {
    "projection": {},
    "projection-T": {"projection_solve": "T", "jacobian": "all"},
    "none": {"stabilize": "none", "multipliers": False},
    "baumgarte": {"stabilize": "baumgarte", "position_update": "explicit"},
    "rebase-every-step": {"rebase_tol": 1e3},
}
MODELS = ["multilink-ideal", "peer-quarter-car", "peer-four-bar", "multilink-bushings", "sedan"]


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("model", MODELS)
def test_fused_step_is_bit_identical_to_the_python_driven_step(model, config):
    system = load_model(model)
    opts = CONFIGS[config]
    slv_f, fused = run_indep(system, dict(instrument=False, **opts), change_at=150)
    slv_p, python = run_indep(system, dict(instrument=True, **opts), change_at=150)
    assert slv_f.fused_step and not slv_p.fused_step
    assert len(fused) == 300, f"stopped at step {len(fused)}"
    assert_same_runs(fused, python, f"{model} {config}")
    assert np.array_equal(slv_f.cols, slv_p.cols)
    assert slv_f.ratio == slv_p.ratio and slv_f.splu.ratio == slv_p.splu.ratio
    if config == "rebase-every-step":
        assert slv_f.nrebase == 300
    if model == "peer-quarter-car" and config == "projection":
        # B chosen again without being forced to (the pivot check of Φu fails on the way)
        assert slv_f.nrebase >= 1


def test_fused_step_falls_back_as_the_python_driven_step():
    """With the growth limit at 0 every factorisation of Φu is flagged (refined solves): counted
    and computed alike on both paths."""
    system = load_model("multilink-ideal")
    out = {}
    for instrument in (False, True):
        slv = get_solver("li-euler-indep")(system, instrument=instrument)
        st = system.initial_state()
        slv.reset(st)
        slv.splu.growth_limit = 0.0
        rows = []
        for _ in range(30):
            assert slv.step(st, 1e-3)
            rows.append((st.q.copy(), st.qd.copy(), slv.lam.copy()))
        out[instrument] = (slv.nfallback, rows)
    assert out[False][0] == out[True][0] == 30
    for k, (a, b) in enumerate(zip(out[False][1], out[True][1])):
        for name, x, y in zip(("q", "qd", "lam"), a, b):
            assert np.array_equal(x, y), f"{name} differs at step {k + 1}"


def test_fused_step_with_transient_tyres_is_bit_identical():
    """Extra states (a transient tyre's deflections, read by the evaluations and advanced inside
    the compiled call; by ``Solver.step`` around the Python-driven one) alike on both paths."""
    from rtmbs.models.multilink import build

    system = build("ideal", transient=True)
    assert system.nx == 2
    out = {}
    for instrument in (False, True):
        slv = get_solver("li-euler-indep")(system, instrument=instrument)
        st = system.initial_state()
        slv.reset(st)
        rows = []
        for _ in range(300):
            assert slv.step(st, 1e-3)
            rows.append(np.concatenate([st.q, st.qd, slv.lam, st.x]))
        out[instrument] = (slv.fused_step, np.array(rows))
    assert out[False][0] and not out[True][0]
    assert np.abs(out[False][1][:, -2:]).max() > 1e-6  # the deflections move
    assert np.array_equal(out[False][1], out[True][1])


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
    for name in ("_middle", "project_kkt", "_position_increment", "_euler_update", "_keep",
                 "_unchanged", "factor_T", "velocity", "zd_of", "project_T"):
        monkeypatch.setattr(li_euler_indep, name, refuse)
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
    views = [getattr(slv, name) for name in compiled_indep.VIEW_NAMES]
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
    assert not make(system, instrument=True).fused_step
    assert not make(system, storage="dense").fused_step
    assert not make(system, B="qr").fused_step
    assert not make(system, linear_solver="dense").fused_step
