"""The hand-written test models against finite differences: Φq = ∂Φ/∂q, Φt = ∂Φ/∂t,
γ = −(Φq q̇)_q q̇ − 2Φqt q̇ − Φtt, Jq = ∂Q/∂q, Jq̇ = ∂Q/∂q̇ (EVAL_JAC), and the stiff subset."""
import numpy as np
import pytest

from _models.linkages import (
    LinearOscillator, PointPendulum, StiffTwoMass, double_pendulum, pendulum, slider_crank,
)

MODELS = {
    "pendulum": lambda: pendulum(theta0=0.7, omega0=1.3),
    "double-pendulum": double_pendulum,
    "slider-crank": lambda: slider_crank(slider_spring=(1e4, 3.0, True)),
    "point-pendulum": lambda: PointPendulum(damping=0.7, v0=-1.0),
    "stiff": StiffTwoMass,
    "stiff-constrained": lambda: StiffTwoMass(constrained=True),
    "oscillator": LinearOscillator,
}


@pytest.mark.parametrize("name", list(MODELS))
def test_derivatives_match_finite_differences(name):
    sysm = MODELS[name]()
    rng = np.random.default_rng(3)
    st = sysm.initial_state()
    q = st.q + 0.05 * rng.standard_normal(sysm.n)
    qd = rng.standard_normal(sysm.n)
    t = 0.3
    eps = 1e-6
    n, m = sysm.n, sysm.m
    Jq, Jqd = sysm.force_jacobians(q, qd, t)
    # central differences: truncation O(eps²) plus round-off ~ 1e-16 |Q| / eps
    roundoff = 50 * 2.2e-16 * np.abs(sysm.forces(q, qd, t)).max() / eps
    for k in range(n):
        e = np.zeros(n)
        e[k] = eps
        dQ = (sysm.forces(q + e, qd, t) - sysm.forces(q - e, qd, t)) / (2 * eps)
        np.testing.assert_allclose(Jq[:, k], dQ, rtol=1e-6,
                                   atol=1e-6 * (1 + np.abs(dQ).max()) + roundoff)
        dQd = (sysm.forces(q, qd + e, t) - sysm.forces(q, qd - e, t)) / (2 * eps)
        np.testing.assert_allclose(Jqd[:, k], dQd, rtol=1e-6,
                                   atol=1e-6 * (1 + np.abs(dQd).max()) + roundoff)
    if m == 0:
        return
    phiq = sysm.constraint_jacobian(q, t)
    for k in range(n):
        e = np.zeros(n)
        e[k] = eps
        dphi = (sysm.constraints(q + e, t) - sysm.constraints(q - e, t)) / (2 * eps)
        np.testing.assert_allclose(phiq[:, k], dphi, atol=1e-8)
    dphit = (sysm.constraints(q, t + eps) - sysm.constraints(q, t - eps)) / (2 * eps)
    np.testing.assert_allclose(sysm.constraint_time_derivative(q, t), dphit, atol=1e-8)
    # γ = −d/dt(Φq q̇ + Φt) at fixed q̇ along q(t) = q + t q̇ (second difference of Φ)
    d2phi = (sysm.constraints(q + eps * 1e2 * qd, t + eps * 1e2) - 2 * sysm.constraints(q, t)
             + sysm.constraints(q - eps * 1e2 * qd, t - eps * 1e2)) / (eps * 1e2) ** 2
    np.testing.assert_allclose(sysm.gamma(q, qd, t), -d2phi, atol=1e-5 * (1 + np.abs(d2phi).max()))


def test_stiff_jacobian_is_the_stiff_subset():
    sysm = StiffTwoMass()
    q, qd = np.array([0.01, 0.02]), np.array([0.3, -0.1])
    Jall, Jdall = sysm.force_jacobians(q, qd)
    Js, Jds = sysm.force_jacobians(q, qd, stiff_only=True)
    # only the soft spring/damper to ground (k1, c1 on x1) is left out
    np.testing.assert_allclose(Jall - Js, [[-sysm.k1, 0], [0, 0]])
    np.testing.assert_allclose(Jdall - Jds, [[-sysm.c1, 0], [0, 0]])


def test_initial_states_are_consistent():
    for name in ("pendulum", "slider-crank"):
        sysm = MODELS[name]()
        st = sysm.initial_state()
        assert np.linalg.norm(sysm.constraints(st.q)) < 1e-14
        assert np.linalg.norm(sysm.constraint_jacobian(st.q) @ st.qd) < 1e-12
