"""The ``reference`` solver against known solutions (docs/reference-solver.md states the bounds)."""
import math
import re

import numpy as np
import pytest

from _models.exact import (
    NaNAfter, NaNAfterODE, PhysicalPendulum, PlanarRevoluteChain, PrescribedSlider,
    SpringMassDamper, double_pendulum,
)
from rtmbs.errors import SolverError
from rtmbs.protocol import State
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.reference import ReferenceSolver
from rtmbs.solvers.simulate import simulate


#: Bounds stated in docs/reference-solver.md for rtol = 1e-10, atol = 1e-12 (defaults).
THETA_ERR = 1e-10       # rad, pendulum angle vs the elliptic-function solution, 1.1 periods
PERIOD_REL = 1e-10      # relative period error
CONSTRAINT = 1e-10      # ‖Φ‖, ‖Φq q̇ + Φt‖ at every output
ENERGY_REL = 1e-9       # |E − E0| / |E0|, double pendulum over 2 s


def _period_from_turning_point(p, res, k):
    """Time where θ̇ = 0 near output k, by one Newton step with the exact θ̈ = −ω0² sin θ."""
    th, thd = res.q[k, 2], res.qd[k, 2]
    return res.t[k] - thd / (-p.omega0 ** 2 * math.sin(th))


def _run_period(theta0, rtol=1e-10, atol=1e-12, N=200):
    p = PhysicalPendulum(theta0)
    T = p.period()
    res = ReferenceSolver(p, rtol=rtol, atol=atol).solve(p.initial_state(), 1.1 * T, h=T / N)
    assert res.meta["status"] == 1, res.meta["message"]
    return p, res, _period_from_turning_point(p, res, N)


def test_registered_and_offline():
    assert get_solver("reference") is ReferenceSolver
    assert ReferenceSolver.offline is True


def test_small_amplitude_period_matches_analytical():
    theta0 = 0.01
    p, res, T_meas = _run_period(theta0)
    T_lin = 2 * math.pi / p.omega0
    T_series = T_lin * (1 + theta0 ** 2 / 16 + 11 * theta0 ** 4 / 3072)  # error O(θ0⁶)
    assert abs(T_meas - T_series) / T_series < PERIOD_REL
    # the run resolves the amplitude correction θ0²/16 (6e-6): not just the linear period
    assert abs(T_meas - T_series) < 1e-4 * abs(T_series - T_lin)
    assert np.abs(res.q[:, 2] - p.theta_exact(res.t)).max() < 5e-10 * theta0  # 5·rtol relative


def test_large_amplitude_period_and_solution_match_elliptic_integral():
    p, res, T_meas = _run_period(2.0)
    assert abs(T_meas - p.period()) / p.period() < PERIOD_REL
    assert np.abs(res.q[:, 2] - p.theta_exact(res.t)).max() < THETA_ERR
    # the centre of mass follows the angle exactly (projection), the pin reaction is Newton's
    assert np.abs(res.q[:, 0] - p.L * np.sin(res.q[:, 2])).max() < 1e-12
    lam_exact = np.array([p.reaction_exact(q, qd) for q, qd in zip(res.q, res.qd)])
    assert np.abs(res.lam - lam_exact).max() < 1e-10 * p.masses[0] * 9.81
    assert res.phi_norm.max() < CONSTRAINT and res.phid_norm.max() < CONSTRAINT


def test_error_scales_with_tolerance():
    """Tolerance proportionality: 4 decades of rtol buy at least 2 decades of error."""
    errs = []
    for rtol in (1e-6, 1e-10):
        p, res, _ = _run_period(2.0, rtol=rtol, atol=rtol * 1e-2, N=100)
        errs.append(np.abs(res.q[:, 2] - p.theta_exact(res.t)).max())
    assert errs[0] > 100 * errs[1]
    assert errs[0] < 1e-5


@pytest.mark.parametrize("method,bound", [("Radau", 1e-9), ("DOP853", 1e-9), ("LSODA", 1e-8),
                                          ("BDF", 1e-7)])
def test_spring_mass_damper_matches_closed_form(method, bound):
    s = SpringMassDamper()
    res = ReferenceSolver(s, method=method).solve(s.initial_state(), 4.0, h=0.01)
    assert res.meta["status"] == 1
    x, v = s.exact(res.t)
    assert np.abs(res.q[:, 0] - x).max() < bound
    assert np.abs(res.qd[:, 0] - v).max() < bound
    # extra state: dissipated energy = E(0) − E(t), integrated alongside
    assert res.x.shape == (len(res.t), 1)
    E = 0.5 * s.mass_ * v ** 2 + 0.5 * s.k * x ** 2
    assert np.abs(res.x[:, 0] - (E[0] - E)).max() < bound
    assert np.allclose(res.outputs["energy"], E, atol=10 * bound)
    assert res.lam.shape == (len(res.t), 0)


def test_double_pendulum_conserves_energy_and_constraints():
    d = double_pendulum()
    res = ReferenceSolver(d).solve(d.initial_state(), 2.0, h=0.01)
    assert res.meta["status"] == 1
    E = np.array([d.energy(q, qd) for q, qd in zip(res.q, res.qd)])
    assert np.abs(E - E[0]).max() < ENERGY_REL * abs(E[0])
    assert res.phi_norm.max() < CONSTRAINT
    assert res.phid_norm.max() < CONSTRAINT
    assert res.lam.shape == (201, 4) and np.isfinite(res.lam).all()
    # an independent method (explicit DOP853, same projection) agrees on the chaotic motion
    other = ReferenceSolver(d, method="DOP853").solve(d.initial_state(), 2.0, h=0.01)
    assert np.abs(other.q - res.q).max() < 1e-8


def test_rheonomic_constraint_is_followed_exactly():
    s = PrescribedSlider()
    res = ReferenceSolver(s).solve(s.initial_state(), 1.5, h=0.01)
    q, qd, lam = s.exact(res.t)
    assert np.abs(res.q - q).max() < 1e-10
    assert np.abs(res.qd - qd).max() < 1e-10
    assert np.abs(res.lam[:, 0] - lam).max() < 1e-10 * s.mass_ * s.A * s.omega ** 2


def test_output_grid_matches_simulate_and_starts_anywhere():
    s = SpringMassDamper()
    st = s.initial_state()
    st.t = 0.25
    res = ReferenceSolver(s).solve(st, 1.0, h=0.003)
    k = np.arange(len(res.t))
    assert len(res.t) == round(0.75 / 0.003) + 1
    assert np.array_equal(res.t, 0.25 + k * 0.003)


def test_simulate_dispatches_to_reference_with_options():
    s = SpringMassDamper()
    via = simulate(s, "reference", t_end=1.0, h=0.02, rtol=1e-9, method="DOP853")
    direct = ReferenceSolver(s, rtol=1e-9, method="DOP853").solve(s.initial_state(), 1.0, h=0.02)
    assert via.meta["solver"] == "reference" and via.meta["rtol"] == 1e-9
    assert via.meta["method"] == "DOP853"
    assert np.array_equal(via.q, direct.q) and np.array_equal(via.t, direct.t)
    for key in ("model", "h", "atol", "nfev", "wall_s", "status", "message"):
        assert key in via.meta


def test_grid_step_lands_on_every_output():
    p = PhysicalPendulum(2.0)
    T = p.period()
    res = ReferenceSolver(p, grid="step").solve(p.initial_state(), 0.5 * T, h=T / 50)
    assert res.meta["steps"] >= 25
    assert np.abs(res.q[:, 2] - p.theta_exact(res.t)).max() < THETA_ERR


def test_initial_state_is_projected_with_mass_weighted_correction():
    p = PhysicalPendulum(0.7)
    st = p.initial_state()
    st.q = st.q + np.array([1e-6, -2e-6, 0.0])
    st.qd = np.array([1e-5, 0.0, 0.0])
    res = ReferenceSolver(p).solve(st, 0.1, h=0.05)
    assert res.phi_norm[0] < 1e-13 and res.phid_norm[0] < 1e-13
    assert res.meta["initial_correction"]["q"] == pytest.approx(2e-6, rel=0.5)
    # minimal correction in the M metric: M Δq lies in the range of Φqᵀ
    dq = res.q[0] - st.q
    Pq = p.constraint_jacobian(res.q[0])
    Md = p.mass(res.q[0]) @ dq
    resid = Md - Pq.T @ np.linalg.lstsq(Pq.T, Md, rcond=None)[0]
    assert np.abs(resid).max() < 1e-6 * np.abs(Md).max()


def test_euclidean_projection_gives_minimal_norm_correction():
    p = PhysicalPendulum(0.7)
    slv = ReferenceSolver(p, projection="euclidean")
    q0 = p.initial_state().q + np.array([1e-6, -2e-6, 3e-6])
    q, qd, res = slv.project(0.0, q0, np.zeros(3))
    assert res < 1e-13 and np.abs(p.constraints(q)).max() < 1e-13
    dq = q - q0
    Pq = p.constraint_jacobian(q)
    resid = dq - Pq.T @ np.linalg.lstsq(Pq.T, dq, rcond=None)[0]
    assert np.abs(resid).max() < 1e-6 * np.abs(dq).max()


def test_redundant_constraints_use_least_squares():
    p = PhysicalPendulum(1.0)
    red = PlanarRevoluteChain([p.masses[0]], [p.inertias[0]], p.joints * 2,
                              p.initial_state().q, name="redundant-pendulum")
    res = ReferenceSolver(red).solve(red.initial_state(), 0.5, h=0.01)
    assert res.meta["kkt"] == "lstsq"
    assert np.abs(res.q[:, 2] - p.theta_exact(res.t)).max() < 1e-10
    assert res.phi_norm.max() < CONSTRAINT


@pytest.mark.parametrize("make", [NaNAfter, NaNAfterODE], ids=["constrained", "ode"])
def test_nan_forces_stop_with_status_and_time(make):
    t_fail = 0.37
    sysm = make(t_fail)
    res = ReferenceSolver(sysm).solve(sysm.initial_state(), 1.0, h=0.01)
    assert res.meta["status"] == -1 and not res.success
    msg = res.meta["message"]
    t_named = float(re.search(r"failed at t = (\S+) s", msg).group(1))
    assert abs(t_named - t_fail) < 1e-9
    assert "non-finite forces or accelerations" in msg
    assert "results kept up to t = 0.36 s" in msg
    assert res.t[-1] == pytest.approx(0.36) and np.isfinite(res.q).all()
    assert len(res.t) == 37


def test_progress_bar_on_stderr(capsys):
    s = SpringMassDamper()
    ReferenceSolver(s).solve(s.initial_state(), 0.2, h=0.01, progress=True)
    assert "reference spring-mass-damper" in capsys.readouterr().err


def test_option_errors_name_the_option():
    s = SpringMassDamper()
    with pytest.raises(SolverError, match=r"unknown option 'rtoll' \(did you mean 'rtol'\?"):
        ReferenceSolver(s, rtoll=1e-8)
    with pytest.raises(SolverError, match=r"unknown method 'radau' \(did you mean 'Radau'\?"):
        ReferenceSolver(s, method="radau")
    with pytest.raises(SolverError, match=r"method 'BDF' cannot be combined with coordinate "
                                          r"projection \('double-pendulum-cartesian' has m = 4"):
        ReferenceSolver(double_pendulum(), method="BDF")
    with pytest.raises(SolverError, match=r"option 'rtol' must be > 0, got 0"):
        ReferenceSolver(s, rtol=0)
    with pytest.raises(SolverError, match=r"is offline"):
        ReferenceSolver(s).step(State(0.0, np.zeros(1), np.zeros(1)), 0.01)


def test_projection_removes_the_drift_of_the_index1_form():
    """Without projection the index-1 ODE drifts off Φ = 0; with it the drift is round-off."""
    p = PhysicalPendulum(2.0)
    runs = {proj: ReferenceSolver(p, method="DOP853", rtol=1e-8, atol=1e-10, projection=proj)
            .solve(p.initial_state(), 3 * p.period(), h=0.01) for proj in ("none", "mass")}
    assert runs["none"].phi_norm.max() > 1e-9 and runs["none"].phid_norm.max() > 1e-9
    assert runs["mass"].phi_norm.max() < 1e-12 and runs["mass"].phid_norm.max() < 1e-12
    assert runs["none"].meta["initial_correction"]["q"] == 0.0
