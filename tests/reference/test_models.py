"""The test models themselves: Jacobians and γ against finite differences, exact solutions
against their differential equations, so a failing solver test points at the solver."""
import math

import numpy as np
import pytest

from _models.exact import (
    PhysicalPendulum, PrescribedSlider, SpringMassDamper, double_pendulum,
)

RNG = np.random.default_rng(7)


def _constrained():
    return [PhysicalPendulum(1.1), double_pendulum(), PrescribedSlider()]


@pytest.mark.parametrize("sysm", _constrained(), ids=lambda s: s.name)
def test_phiq_phit_and_gamma_match_finite_differences(sysm):
    n = sysm.n
    q = sysm.initial_state().q + 0.1 * RNG.standard_normal(n)
    qd = RNG.standard_normal(n)
    t, eps = 0.3, 1e-6
    phiq = sysm.constraint_jacobian(q, t)
    phit = sysm.constraint_time_derivative(q, t)
    fd = np.column_stack([(sysm.constraints(q + eps * e, t) - sysm.constraints(q - eps * e, t))
                          / (2 * eps) for e in np.eye(n)])
    assert np.abs(phiq - fd).max() < 1e-8
    fdt = (sysm.constraints(q, t + eps) - sysm.constraints(q, t - eps)) / (2 * eps)
    assert np.abs(phit - fdt).max() < 1e-8

    # γ = −d/dt(Φq q̇ + Φt) at fixed q̇ along q(t) = q + t q̇, i.e. minus the second
    # derivative of Φ(q + s q̇, t + s) in s.
    def phi_s(s):
        return sysm.constraints(q + s * qd, t + s)

    d2 = (phi_s(eps * 10) - 2 * phi_s(0.0) + phi_s(-eps * 10)) / (eps * 10) ** 2
    assert np.abs(sysm.gamma(q, qd, t) + d2).max() < 1e-5


def test_pendulum_exact_solution_solves_its_ode():
    p = PhysicalPendulum(2.0)
    t = np.linspace(0.1, 3.0, 7)
    eps = 1e-4
    th = p.theta_exact(t)
    thdd = (p.theta_exact(t + eps) - 2 * th + p.theta_exact(t - eps)) / eps ** 2
    assert np.abs(thdd + p.omega0 ** 2 * np.sin(th)).max() < 1e-5
    assert p.theta_exact(0.0) == pytest.approx(2.0, abs=1e-14)
    assert p.theta_exact(p.period()) == pytest.approx(2.0, abs=1e-12)
    assert p.theta_exact(p.period() / 2) == pytest.approx(-2.0, abs=1e-12)


def test_smd_exact_solution_solves_its_ode():
    s = SpringMassDamper()
    t = np.linspace(0.0, 2.0, 9)
    x, v = s.exact(t)
    assert x[0] == pytest.approx(s.x0) and v[0] == pytest.approx(s.v0)
    eps = 1e-5
    a = (s.exact(t + eps)[1] - s.exact(t - eps)[1]) / (2 * eps)
    assert np.abs(s.mass_ * a + s.c * v + s.k * x).max() < 1e-6
    assert np.abs((s.exact(t + eps)[0] - s.exact(t - eps)[0]) / (2 * eps) - v).max() < 1e-8


def test_pendulum_reaction_satisfies_newton():
    """Pin reaction −λ balances m r̈ − gravity (check of the formula used against λ)."""
    p = PhysicalPendulum(0.9)
    q = p.initial_state().q
    lam = p.reaction_exact(q, np.zeros(3))
    # at rest at θ0: r̈ = L θ̈ (cos θ, sin θ), θ̈ = −ω0² sin θ
    thdd = -p.omega0 ** 2 * math.sin(0.9)
    rdd = p.L * thdd * np.array([math.cos(0.9), math.sin(0.9)])
    assert np.allclose(-lam, p.masses[0] * (rdd + [0.0, 9.81]), atol=1e-13)
