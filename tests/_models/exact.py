"""Hand-written mechanical systems with known solutions, for the reference-solver tests.

Planar rigid bodies in Cartesian coordinates (x, y, θ) per body, joined by revolute joints;
a spring-mass-damper ODE with an extra first-order state; a slider with a prescribed
(rheonomic) motion; and a model whose forces become NaN at a given time.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import ellipj, ellipk

from _models.linkages import G, damped_oscillation
from rtmbs.protocol import (
    EVAL_GAMMA, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q, MechanicalSystem, State,
)


def _rot(th):
    c, s = math.cos(th), math.sin(th)
    return np.array([[c, -s], [s, c]])


def _drot(th):
    c, s = math.cos(th), math.sin(th)
    return np.array([[-s, -c], [c, -s]])


class PlanarRevoluteChain(MechanicalSystem):
    """Planar bodies (x, y, θ each; COM at the body origin), gravity along −y.

    ``joints`` are (i, ui, j, uj): point ui of body i coincides with point uj of body j;
    body −1 is the ground (uj then a global point). Two constraints per joint:
    Φ = r_i + R(θ_i) u_i − r_j − R(θ_j) u_j.
    """

    def __init__(self, masses, inertias, joints, q0, qd0=None, name="planar-chain"):
        self.masses = np.asarray(masses, float)
        self.inertias = np.asarray(inertias, float)
        self.joints = [(i, np.asarray(ui, float), j, np.asarray(uj, float))
                       for i, ui, j, uj in joints]
        self.nb = len(self.masses)
        self.n = 3 * self.nb
        self.m = 2 * len(self.joints)
        self.name = name
        self.coordinate_names = [f"b{k}.{c}" for k in range(self.nb) for c in ("x", "y", "th")]
        self._q0 = np.asarray(q0, float)
        self._qd0 = np.zeros(self.n) if qd0 is None else np.asarray(qd0, float)

    def initial_state(self) -> State:
        return State(0.0, self._q0.copy(), self._qd0.copy())

    def point(self, q, b, u):
        if b < 0:
            return u.copy()
        return q[3 * b:3 * b + 2] + _rot(q[3 * b + 2]) @ u

    def forces_ext(self, t, q, qd, Q):
        for b in range(self.nb):
            Q[3 * b + 1] = -self.masses[b] * G

    def evaluate(self, t, q, qd, ws, what):
        if what & EVAL_M:
            ws.M[:] = 0.0
            for b in range(self.nb):
                ws.M[3 * b, 3 * b] = ws.M[3 * b + 1, 3 * b + 1] = self.masses[b]
                ws.M[3 * b + 2, 3 * b + 2] = self.inertias[b]
        if what & EVAL_Q:
            ws.Q[:] = 0.0
            self.forces_ext(t, q, qd, ws.Q)
        if what & (EVAL_PHI | EVAL_PHIQ | EVAL_GAMMA):
            if what & EVAL_PHIQ:
                ws.phiq[:] = 0.0
                ws.phit[:] = 0.0
            for k, (i, ui, j, uj) in enumerate(self.joints):
                rows = slice(2 * k, 2 * k + 2)
                if what & EVAL_PHI:
                    ws.phi[rows] = self.point(q, i, ui) - self.point(q, j, uj)
                gam = np.zeros(2)
                for b, u, sgn in ((i, ui, 1.0), (j, uj, -1.0)):
                    if b < 0:
                        continue
                    th, thd = q[3 * b + 2], qd[3 * b + 2]
                    if what & EVAL_PHIQ:
                        ws.phiq[rows, 3 * b:3 * b + 2] = sgn * np.eye(2)
                        ws.phiq[rows, 3 * b + 2] = sgn * (_drot(th) @ u)
                    gam += sgn * (_rot(th) @ u) * thd ** 2
                if what & EVAL_GAMMA:
                    ws.gamma[rows] = gam

    def energy(self, q, qd):
        e = 0.0
        for b in range(self.nb):
            v = qd[3 * b:3 * b + 3]
            e += 0.5 * self.masses[b] * (v[0] ** 2 + v[1] ** 2) + 0.5 * self.inertias[b] * v[2] ** 2
            e += self.masses[b] * G * q[3 * b + 1]
        return e


class PhysicalPendulum(PlanarRevoluteChain):
    """One body of mass ``mass`` and central inertia ``J`` pinned at the origin at distance ``L``
    from its centre of mass; released from rest at angle ``theta0`` (n = 3, m = 2)."""

    def __init__(self, theta0, L=0.8, mass=2.0, J=0.05, name="physical-pendulum"):
        self.L, self.theta0 = L, theta0
        q0 = [L * math.sin(theta0), -L * math.cos(theta0), theta0]
        super().__init__([mass], [J], [(0, (0.0, L), -1, (0.0, 0.0))], q0, name=name)
        self.omega0 = math.sqrt(mass * G * L / (J + mass * L ** 2))

    def period(self) -> float:
        """Exact period 4 K(k) / ω0 with k = sin(θ0/2) (complete elliptic integral)."""
        k = math.sin(self.theta0 / 2)
        return 4 * ellipk(k * k) / self.omega0

    def theta_exact(self, t):
        """θ(t) = 2 asin(k cd(ω0 t | k²)), released from rest at θ0 (Jacobi elliptic functions)."""
        k = math.sin(self.theta0 / 2)
        _, cn, dn, _ = ellipj(self.omega0 * np.asarray(t), k * k)
        return 2 * np.arcsin(k * cn / dn)

    def reaction_exact(self, q, qd):
        """λ that the pin must carry: −λ = m (r̈ + g e_y) with r̈ from the exact θ̈ (Newton)."""
        th, thd = q[2], qd[2]
        thdd = -self.omega0 ** 2 * math.sin(th)
        L, mass = self.L, self.masses[0]
        xdd = L * (thdd * math.cos(th) - thd ** 2 * math.sin(th))
        ydd = L * (thdd * math.sin(th) + thd ** 2 * math.cos(th))
        return -mass * np.array([xdd, ydd + G])


def double_pendulum(theta1=1.2, theta2=-0.4, l1=1.0, l2=0.7, m1=1.5, m2=1.0):
    """Two uniform bars in a chain pinned at the origin (n = 6, m = 4), at rest."""
    r1 = _rot(theta1) @ np.array([0.0, -l1 / 2])
    tip = 2 * r1
    r2 = tip + _rot(theta2) @ np.array([0.0, -l2 / 2])
    q0 = [r1[0], r1[1], theta1, r2[0], r2[1], theta2]
    return PlanarRevoluteChain(
        [m1, m2], [m1 * l1 ** 2 / 12, m2 * l2 ** 2 / 12],
        [(0, (0.0, l1 / 2), -1, (0.0, 0.0)), (0, (0.0, -l1 / 2), 1, (0.0, l2 / 2))],
        q0, name="double-pendulum-cartesian")


class SpringMassDamper(MechanicalSystem):
    """m ẍ + c ẋ + k x = 0 (n = 1, m = 0) with one extra state: the dissipated energy,
    ẋ_e = c ẋ² (so x_e(t) = E(0) − E(t))."""

    n, m, nx = 1, 0, 1
    name = "spring-mass-damper"
    output_names = ("energy",)
    coordinate_names = ["x"]

    def __init__(self, mass=1.3, k=40.0, c=0.9, x0=0.1, v0=-0.3):
        self.mass_, self.k, self.c, self.x0, self.v0 = mass, k, c, x0, v0

    def initial_state(self):
        return State(0.0, np.array([self.x0]), np.array([self.v0]), np.zeros(1))

    def evaluate(self, t, q, qd, ws, what):
        if what & EVAL_M:
            ws.M[0, 0] = self.mass_
        if what & EVAL_Q:
            ws.Q[0] = -self.k * q[0] - self.c * qd[0]

    def extra_rates(self, t, q, qd, x, out):
        out[0] = self.c * qd[0] ** 2

    def energy(self, q, qd):
        return 0.5 * self.mass_ * qd[0] ** 2 + 0.5 * self.k * q[0] ** 2

    def outputs(self, t, q, qd, out):
        out[0] = self.energy(q, qd)

    def exact(self, t):
        """Closed-form underdamped solution x(t), ẋ(t)."""
        return damped_oscillation(self.mass_, self.k, self.c, self.x0, self.v0, t)


class PrescribedSlider(MechanicalSystem):
    """A point mass (x, y) under gravity whose x is driven, Φ = x − A sin ωt (rheonomic:
    Φt ≠ 0, γ = −Φtt). Exact: x = A sin ωt, y free fall, λ = m A ω² sin ωt."""

    n, m = 2, 1
    name = "prescribed-slider"

    def __init__(self, mass=0.7, A=0.2, omega=5.0, vy0=1.5):
        self.mass_, self.A, self.omega, self.vy0 = mass, A, omega, vy0

    def initial_state(self):
        return State(0.0, np.zeros(2), np.array([self.A * self.omega, self.vy0]))

    def evaluate(self, t, q, qd, ws, what):
        A, w = self.A, self.omega
        if what & EVAL_M:
            ws.M[:] = np.diag([self.mass_, self.mass_])
        if what & EVAL_Q:
            ws.Q[:] = (0.0, -self.mass_ * G)
        if what & EVAL_PHI:
            ws.phi[0] = q[0] - A * math.sin(w * t)
        if what & EVAL_PHIQ:
            ws.phiq[0] = (1.0, 0.0)
            ws.phit[0] = -A * w * math.cos(w * t)
        if what & EVAL_GAMMA:
            ws.gamma[0] = -A * w * w * math.sin(w * t)

    def exact(self, t):
        A, w = self.A, self.omega
        q = np.column_stack((A * np.sin(w * t), self.vy0 * t - 0.5 * G * t ** 2))
        qd = np.column_stack((A * w * np.cos(w * t), self.vy0 - G * t))
        lam = self.mass_ * A * w * w * np.sin(w * t)
        return q, qd, lam


class NaNAfter(PhysicalPendulum):
    """The physical pendulum whose forces are NaN from ``t_fail`` on (failure path)."""

    def __init__(self, t_fail, theta0=0.5):
        super().__init__(theta0, name="nan-pendulum")
        self.t_fail = t_fail

    def forces_ext(self, t, q, qd, Q):
        super().forces_ext(t, q, qd, Q)
        if t >= self.t_fail:
            Q[:] = np.nan


class NaNAfterODE(SpringMassDamper):
    """The spring-mass-damper (m = 0) with NaN forces from ``t_fail`` on."""

    name = "nan-smd"

    def __init__(self, t_fail):
        super().__init__()
        self.t_fail = t_fail

    def evaluate(self, t, q, qd, ws, what):
        super().evaluate(t, q, qd, ws, what)
        if what & EVAL_Q and t >= self.t_fail:
            ws.Q[0] = np.nan
