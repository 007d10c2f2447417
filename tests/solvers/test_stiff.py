"""Stiffness (Carpinelli 2016 §3, Truck benchmark §3.1): the stiff two-mass model (k2 = 1e7 N/m between
0.1 kg masses, stiff mode ω = sqrt(k2 (1/m1 + 1/m2)) = 1.41e4 rad/s, so hω = 14 at h = 1 ms)."""
import math

import numpy as np
import pytest

from rtmbs.errors import SimulationDiverged
from rtmbs.protocol import State
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.simulate import simulate
from _models.linkages import StiffTwoMass

H = 1e-3


def _step_map(sysm, solver, **opts):
    """The one-step map y⁺ = G y of a solver on the linear model, y = (q, q̇), column by column."""
    n = sysm.n
    G = np.zeros((2 * n, 2 * n))
    slv = get_solver(solver)(sysm, **opts)
    for k in range(2 * n):
        y = np.zeros(2 * n)
        y[k] = 1.0
        st = State(0.0, y[:n].copy(), y[n:].copy())
        slv.reset(st)
        slv.step(st, H)
        G[:, k] = np.concatenate([st.q, st.qd])
    return G


def _linear_A(sysm):
    M = sysm.mass(np.zeros(sysm.n))
    K, C = sysm.force_jacobians(np.zeros(sysm.n), np.zeros(sysm.n))
    n = sysm.n
    Minv = np.linalg.inv(M)
    return np.block([[np.zeros((n, n)), np.eye(n)], [Minv @ K, Minv @ C]])


def test_li_euler_with_all_jacobians_is_implicit_euler_on_a_linear_ode():
    """1-stage linearly implicit Euler (Truck benchmark eqs. 3-5, γ = 1) with the exact Jacobian is
    exactly implicit Euler on a linear ODE: y⁺ = (I − hA)⁻¹ y."""
    sysm = StiffTwoMass()
    G = _step_map(sysm, "li-euler", jacobian="all")
    A = _linear_A(sysm)
    np.testing.assert_allclose(G, np.linalg.inv(np.eye(4) - H * A), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("opts", [{}, {"position_update": "explicit"}, {"jacobian": "all"}],
                         ids=str)
def test_li_euler_step_map_is_contractive_and_explicit_euler_is_not(opts):
    sysm = StiffTwoMass()
    rho_li = max(abs(np.linalg.eigvals(_step_map(sysm, "li-euler", **opts))))
    assert rho_li < 1.0
    # explicit Euler: eigenvalue 1 + hλ of the stiff mode, |1 + hλ| ≈ hω = 14.1
    A = _linear_A(sysm)
    expected = max(abs(1 + H * np.linalg.eigvals(A)))
    rho_ex = max(abs(np.linalg.eigvals(_step_map(sysm, "explicit-euler"))))
    assert rho_ex == pytest.approx(expected, rel=1e-9)
    assert rho_ex > 10


@pytest.mark.parametrize("constrained", [False, True])
@pytest.mark.parametrize("solver,opts", [
    ("li-euler", {"stabilize": "none"}), ("li-euler", {"stabilize": "projection"}),
    ("li-euler", {"stabilize": "ggl"}), ("li-euler-indep", {"B": "qr", "stabilize": "none"}),
    ("li-euler-indep", {"B": "partition", "stabilize": "none"}),
], ids=str)
def test_stiff_model_is_stable_with_li_euler_at_1ms(constrained, solver, opts):
    """The model is passive (springs and dampers): a stable method must not create energy beyond
    its O(h) error, so E(t) ≤ 1.1 E0 over 1 s (1000 steps) and the motion decays."""
    sysm = StiffTwoMass(constrained=constrained)
    res = simulate(sysm, solver, t_end=1.0, h=H, **opts)
    E = np.array([sysm.energy(q, qd) for q, qd in zip(res.q, res.qd)])
    assert E.max() <= 1.1 * E[0]
    assert E[-1] < 0.5 * E[0]
    if constrained:
        assert res.phi_norm.max() < 1e-12  # linear constraint: the index-2 form keeps it exactly


@pytest.mark.parametrize("constrained", [False, True])
def test_explicit_euler_diverges_and_simulate_reports_where(constrained):
    sysm = StiffTwoMass(constrained=constrained)
    with pytest.raises(SimulationDiverged) as info:
        simulate(sysm, "explicit-euler", t_end=1.0, h=H, stabilize="none")
    exc = info.value
    # growth ≈ 14x per step from a 1e-4 m stiff deflection to the 1e8 limit: about 7-11 steps
    assert 3 * H <= exc.t <= 20 * H
    assert "diverged at t =" in str(exc) and "explicit-euler" in str(exc)
    res = exc.result
    assert res.meta["status"] == -1 and not res.success
    assert res.t[-1] == pytest.approx(exc.t)
    np.testing.assert_array_equal(res.q[-1], exc.q)
    np.testing.assert_array_equal(res.qd[-1], exc.qd)
    assert np.all(np.isfinite(res.q)) and np.all(np.isfinite(res.qd))
    assert len(res.t) == round(exc.t / H) + 1
