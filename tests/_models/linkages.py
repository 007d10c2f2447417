"""Hand-written test models for the solvers (MechanicalSystem subclasses, evaluate in plain Python).

* :class:`PlanarLinkage`: planar rigid bars in Cartesian coordinates (x, y, θ per body), revolute
  joints (body-body or body-ground), coordinate locks Φ = q_k − c0 − c1 t, gravity along −y and
  linear coordinate springs (stiff or soft). A point at distance d along a bar is r + d u(θ) with
  u(θ) = (sin θ, −cos θ): θ = 0 hangs down.
* :func:`pendulum`, :func:`double_pendulum`, :func:`slider_crank`: instances of it.
* :class:`PointPendulum`: point mass on a circle, q = (x, y), Φ = x² + y² − L² (n = 2, m = 1):
  started horizontal, its initial independent coordinate (y) is singular at the bottom.
* :class:`StiffTwoMass`: two masses on a line, a soft spring to ground and a 1e7 N/m spring (with
  a damper) between them; ``constrained=True`` adds a third mass rigidly tied to the second.
* :class:`LinearOscillator`: m ẍ + c ẋ + k x = 0 with its exact solution.
"""
from __future__ import annotations

import math

import numpy as np

from rtmbs.protocol import (
    EVAL_GAMMA, EVAL_JAC, EVAL_JAC_STIFF, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q, MechanicalSystem,
    State,
)

G = 9.81


# -- planar linkage --------------------------------------------------------------------------
def _linkage_eval(t, q, qd, what, mass, inertia, g,
                  rev_i, rev_di, rev_j, rev_dj, rev_g,
                  lock_k, lock_c,
                  spr_k, spr_par, spr_stiff,
                  M, Q, phi, phiq, phit, gamma, Jq, Jqd):
    nb = mass.shape[0]
    n = 3 * nb
    if what & 1:
        for i in range(n):
            for j in range(n):
                M[i, j] = 0.0
        for b in range(nb):
            M[3 * b, 3 * b] = mass[b]
            M[3 * b + 1, 3 * b + 1] = mass[b]
            M[3 * b + 2, 3 * b + 2] = inertia[b]
    if what & 2:
        for i in range(n):
            Q[i] = 0.0
        for b in range(nb):
            Q[3 * b + 1] = -mass[b] * g
        for s in range(spr_k.shape[0]):
            k = spr_k[s]
            Q[k] += -spr_par[s, 0] * (q[k] - spr_par[s, 2]) - spr_par[s, 1] * qd[k]
    if what & (32 | 64):
        for i in range(n):
            for j in range(n):
                Jq[i, j] = 0.0
                Jqd[i, j] = 0.0
        for s in range(spr_k.shape[0]):
            if (what & 32) or spr_stiff[s]:
                k = spr_k[s]
                Jq[k, k] += -spr_par[s, 0]
                Jqd[k, k] += -spr_par[s, 1]
    nrev = rev_i.shape[0]
    if what & (4 | 8 | 16):
        for r in range(nrev):
            bi = rev_i[r]
            bj = rev_j[r]
            di = rev_di[r]
            ti = q[3 * bi + 2]
            si = math.sin(ti)
            ci = math.cos(ti)
            row = 2 * r
            if what & 4:
                phi[row] = q[3 * bi] + di * si
                phi[row + 1] = q[3 * bi + 1] - di * ci
            if what & 8:
                for j in range(n):
                    phiq[row, j] = 0.0
                    phiq[row + 1, j] = 0.0
                phiq[row, 3 * bi] = 1.0
                phiq[row + 1, 3 * bi + 1] = 1.0
                phiq[row, 3 * bi + 2] = di * ci
                phiq[row + 1, 3 * bi + 2] = di * si
                phit[row] = 0.0
                phit[row + 1] = 0.0
            if what & 16:
                w = qd[3 * bi + 2]
                gamma[row] = di * si * w * w
                gamma[row + 1] = -di * ci * w * w
            if bj >= 0:
                dj = rev_dj[r]
                tj = q[3 * bj + 2]
                sj = math.sin(tj)
                cj = math.cos(tj)
                if what & 4:
                    phi[row] -= q[3 * bj] + dj * sj
                    phi[row + 1] -= q[3 * bj + 1] - dj * cj
                if what & 8:
                    phiq[row, 3 * bj] = -1.0
                    phiq[row + 1, 3 * bj + 1] = -1.0
                    phiq[row, 3 * bj + 2] = -dj * cj
                    phiq[row + 1, 3 * bj + 2] = -dj * sj
                if what & 16:
                    w = qd[3 * bj + 2]
                    gamma[row] -= dj * sj * w * w
                    gamma[row + 1] -= -dj * cj * w * w
            else:
                if what & 4:
                    phi[row] -= rev_g[r, 0]
                    phi[row + 1] -= rev_g[r, 1]
        for c in range(lock_k.shape[0]):
            row = 2 * nrev + c
            k = lock_k[c]
            if what & 4:
                phi[row] = q[k] - lock_c[c, 0] - lock_c[c, 1] * t
            if what & 8:
                for j in range(n):
                    phiq[row, j] = 0.0
                phiq[row, k] = 1.0
                phit[row] = -lock_c[c, 1]
            if what & 16:
                gamma[row] = 0.0


class PlanarLinkage(MechanicalSystem):
    """Planar bars; see the module docstring. ``joints``: (i, d_i, j, d_j) with j = −1 and
    d_j replaced by the ground point (gx, gy): (i, d_i, -1, (gx, gy)). ``locks``: (k, c0, c1).
    ``springs``: (k, stiffness, damping, q0, stiff?)."""

    def __init__(self, name, mass, length, joints, locks=(), springs=(), inertia=None, g=G):
        self.name = name
        self.mass = np.asarray(mass, float)
        self.length = np.asarray(length, float)
        nb = len(self.mass)
        self.inertia = (np.asarray(inertia, float) if inertia is not None
                        else self.mass * self.length ** 2 / 12.0)
        self.g = float(g)
        self.rev_i = np.array([j[0] for j in joints], np.int64)
        self.rev_di = np.array([j[1] for j in joints], float)
        self.rev_j = np.array([j[2] for j in joints], np.int64)
        self.rev_dj = np.array([j[3] if j[2] >= 0 else 0.0 for j in joints], float)
        self.rev_g = np.array([j[3] if j[2] < 0 else (0.0, 0.0) for j in joints], float).reshape(-1, 2)
        self.lock_k = np.array([lk[0] for lk in locks], np.int64)
        self.lock_c = np.array([lk[1:] for lk in locks], float).reshape(-1, 2)
        self.spr_k = np.array([s[0] for s in springs], np.int64)
        self.spr_par = np.array([s[1:4] for s in springs], float).reshape(-1, 3)
        self.spr_stiff = np.array([bool(s[4]) for s in springs], np.bool_)
        self.n = 3 * nb
        self.m = 2 * len(joints) + len(locks)
        self.coordinate_names = [f"b{b}.{c}" for b in range(nb) for c in ("x", "y", "th")]
        self._q0 = np.zeros(self.n)
        self._qd0 = np.zeros(self.n)

    def evaluate(self, t, q, qd, ws, what):
        _linkage_eval(t, q, qd, what, self.mass, self.inertia, self.g,
                      self.rev_i, self.rev_di, self.rev_j, self.rev_dj, self.rev_g,
                      self.lock_k, self.lock_c, self.spr_k, self.spr_par, self.spr_stiff,
                      ws.M, ws.Q, ws.phi, ws.phiq, ws.phit, ws.gamma, ws.Jq, ws.Jqd)

    def initial_state(self) -> State:
        return State(0.0, self._q0.copy(), self._qd0.copy())

    def energy(self, q, qd) -> float:
        e = 0.0
        for b in range(len(self.mass)):
            e += 0.5 * self.mass[b] * (qd[3 * b] ** 2 + qd[3 * b + 1] ** 2)
            e += 0.5 * self.inertia[b] * qd[3 * b + 2] ** 2 + self.mass[b] * self.g * q[3 * b + 1]
        for s in range(len(self.spr_k)):
            e += 0.5 * self.spr_par[s, 0] * (q[self.spr_k[s]] - self.spr_par[s, 2]) ** 2
        return e

    def consistent_velocities(self, q, k, rate, t=0.0):
        """q̇ with Φq q̇ + Φt = 0 and q̇_k = rate (offline, numpy)."""
        ws = self._eval(EVAL_PHIQ, q, None, t)
        A = np.vstack([ws.phiq, np.eye(self.n)[k]])
        return np.linalg.solve(A, np.concatenate([-ws.phit, [rate]]))


def _u(th):
    return np.array([math.sin(th), -math.cos(th)])


def pendulum(L=1.0, mass=1.0, theta0=0.5, omega0=0.0):
    """Bar of length L pinned at one end to the origin: n = 3, m = 2, f = 1."""
    sysm = PlanarLinkage("pendulum", [mass], [L], [(0, -L / 2, -1, (0.0, 0.0))])
    sysm._q0[:] = [*(L / 2 * _u(theta0)), theta0]
    sysm._qd0[:] = sysm.consistent_velocities(sysm._q0, 2, omega0)
    return sysm


def double_pendulum(L1=1.0, L2=0.7, m1=1.0, m2=0.6, th1=1.0, th2=0.3):
    """Two bars, the first pinned to the origin, the second to the tip of the first: n = 6, m = 4."""
    sysm = PlanarLinkage("double-pendulum", [m1, m2], [L1, L2],
                         [(0, -L1 / 2, -1, (0.0, 0.0)), (0, L1 / 2, 1, -L2 / 2)])
    r1 = L1 / 2 * _u(th1)
    r2 = L1 * _u(th1) + L2 / 2 * _u(th2)
    sysm._q0[:] = [*r1, th1, *r2, th2]
    return sysm


def slider_crank(Lc=0.2, Lr=0.5, mc=1.0, mr=1.0, ms=2.0, phi0=0.3, omega0=8.0,
                 slider_spring=None):
    """Crank (body 0) pinned to the origin, rod (body 1), slider (body 2) on the x axis
    (locks y = 0, θ = 0): n = 9, m = 8, f = 1, a closed loop. ``slider_spring=(k, c, stiff)`` adds
    a spring on the slider's x towards its initial position."""
    springs = ()
    sx0 = 0.0
    P = Lc * _u(phi0)
    sx0 = P[0] + math.sqrt(Lr ** 2 - P[1] ** 2)
    if slider_spring is not None:
        k, c, stiff = slider_spring
        springs = ((6, k, c, sx0, stiff),)
    sysm = PlanarLinkage(
        "slider-crank", [mc, mr, ms], [Lc, Lr, 0.1],
        [(0, -Lc / 2, -1, (0.0, 0.0)), (0, Lc / 2, 1, -Lr / 2), (1, Lr / 2, 2, 0.0)],
        locks=((7, 0.0, 0.0), (8, 0.0, 0.0)), springs=springs,
    )
    S = np.array([sx0, 0.0])
    d = (S - P) / Lr
    th1 = math.atan2(d[0], -d[1])
    sysm._q0[:] = [*(P / 2), phi0, *((P + S) / 2), th1, sx0, 0.0, 0.0]
    sysm._qd0[:] = sysm.consistent_velocities(sysm._q0, 2, omega0)
    return sysm


# -- point pendulum --------------------------------------------------------------------------
def _point_eval(q, qd, what, mass, L, g, c, M, Q, phi, phiq, phit, gamma, Jq, Jqd):
    if what & 1:
        M[0, 0] = mass
        M[1, 1] = mass
        M[0, 1] = 0.0
        M[1, 0] = 0.0
    if what & 2:
        Q[0] = -c * qd[0]
        Q[1] = -mass * g - c * qd[1]
    if what & 4:
        phi[0] = q[0] * q[0] + q[1] * q[1] - L * L
    if what & 8:
        phiq[0, 0] = 2.0 * q[0]
        phiq[0, 1] = 2.0 * q[1]
        phit[0] = 0.0
    if what & 16:
        gamma[0] = -2.0 * (qd[0] * qd[0] + qd[1] * qd[1])
    if what & (32 | 64):
        for i in range(2):
            for j in range(2):
                Jq[i, j] = 0.0
                Jqd[i, j] = 0.0
        if what & 32:
            Jqd[0, 0] = -c
            Jqd[1, 1] = -c


class PointPendulum(MechanicalSystem):
    """Point mass on a massless rod of length L: q = (x, y), Φ = x² + y² − L² (n = 2, m = 1).
    Starts horizontal at rest, so y is the natural independent coordinate at q0 and becomes
    singular at the bottom (after a quarter turn). ``damping`` c: Q = −c q̇ (non-stiff)."""

    name = "point-pendulum"
    n = 2
    m = 1

    def __init__(self, L=1.0, mass=1.0, damping=0.0, v0=0.0):
        self.L = float(L)
        self.mass_ = float(mass)
        self.c = float(damping)
        self.v0 = float(v0)

    def evaluate(self, t, q, qd, ws, what):
        _point_eval(q, qd, what, self.mass_, self.L, G, self.c, ws.M, ws.Q, ws.phi, ws.phiq, ws.phit,
                    ws.gamma, ws.Jq, ws.Jqd)

    def initial_state(self):
        return State(0.0, np.array([self.L, 0.0]), np.array([0.0, self.v0]))

    def energy(self, q, qd):
        return 0.5 * self.mass_ * (qd[0] ** 2 + qd[1] ** 2) + self.mass_ * G * q[1]


# -- stiff two-mass --------------------------------------------------------------------------
def _stiff_eval(q, qd, what, ms, k1, c1, k2, c2, M, Q, phi, phiq, phit, gamma, Jq, Jqd):
    n = q.shape[0]
    if what & 1:
        for i in range(n):
            for j in range(n):
                M[i, j] = 0.0
            M[i, i] = ms[i]
    if what & 2:
        for i in range(n):
            Q[i] = 0.0
        f2 = k2 * (q[1] - q[0]) + c2 * (qd[1] - qd[0])
        Q[0] = -k1 * q[0] - c1 * qd[0] + f2
        Q[1] = -f2
    if what & (32 | 64):
        for i in range(n):
            for j in range(n):
                Jq[i, j] = 0.0
                Jqd[i, j] = 0.0
        Jq[0, 0] = -k2
        Jq[0, 1] = k2
        Jq[1, 0] = k2
        Jq[1, 1] = -k2
        Jqd[0, 0] = -c2
        Jqd[0, 1] = c2
        Jqd[1, 0] = c2
        Jqd[1, 1] = -c2
        if what & 32:
            Jq[0, 0] -= k1
            Jqd[0, 0] -= c1
    if n == 3:
        if what & 4:
            phi[0] = q[2] - q[1]
        if what & 8:
            phiq[0, 0] = 0.0
            phiq[0, 1] = -1.0
            phiq[0, 2] = 1.0
            phit[0] = 0.0
        if what & 16:
            gamma[0] = 0.0


class StiffTwoMass(MechanicalSystem):
    """x1 on a soft spring k1 (1e3 N/m, damper c1 = 4 N s/m: ζ = 0.2) to ground, x2 tied to x1 by k2 = 1e7 N/m with damper c2;
    masses 0.1 kg. The stiff spring and its damper are the ``EVAL_JAC_STIFF`` terms.
    ``constrained=True``: a third mass with x3 − x2 = 0 (n = 3, m = 1)."""

    def __init__(self, constrained=False, m=0.1, k1=1e3, c1=4.0, k2=1e7, c2=20.0,
                 x0=(0.01, 0.0101)):
        self.n = 3 if constrained else 2
        self.m = 1 if constrained else 0
        self.name = "stiff-two-mass" + ("-constrained" if constrained else "")
        self.ms = np.full(self.n, float(m))
        self.k1, self.c1, self.k2, self.c2 = float(k1), float(c1), float(k2), float(c2)
        self.x0 = np.zeros(self.n)
        self.x0[:2] = x0
        if constrained:
            self.x0[2] = self.x0[1]

    def evaluate(self, t, q, qd, ws, what):
        _stiff_eval(q, qd, what, self.ms, self.k1, self.c1, self.k2, self.c2, ws.M, ws.Q, ws.phi,
                    ws.phiq, ws.phit, ws.gamma, ws.Jq, ws.Jqd)

    def initial_state(self):
        return State(0.0, self.x0.copy(), np.zeros(self.n))

    def energy(self, q, qd):
        return (0.5 * float(np.sum(self.ms * qd ** 2)) + 0.5 * self.k1 * q[0] ** 2
                + 0.5 * self.k2 * (q[1] - q[0]) ** 2)


# -- linear oscillator -----------------------------------------------------------------------
def damped_oscillation(mass, k, c, x0, v0, t):
    """x(t), ẋ(t) of m ẍ + c ẋ + k x = 0 (underdamped) from x(0) = x0, ẋ(0) = v0."""
    wn = math.sqrt(k / mass)
    zeta = c / (2 * math.sqrt(k * mass))
    wd = wn * math.sqrt(1 - zeta ** 2)
    a = x0
    b = (v0 + zeta * wn * x0) / wd
    e = np.exp(-zeta * wn * t)
    x = e * (a * np.cos(wd * t) + b * np.sin(wd * t))
    v = e * ((-zeta * wn) * (a * np.cos(wd * t) + b * np.sin(wd * t))
             + (-a * wd * np.sin(wd * t) + b * wd * np.cos(wd * t)))
    return x, v


class LinearOscillator(MechanicalSystem):
    """m ẍ + c ẋ + k x = 0 (n = 1, m = 0), plain numpy evaluate, exact solution :meth:`exact`."""

    name = "linear-oscillator"
    n = 1
    m = 0

    def __init__(self, mass=1.0, k=(2 * math.pi) ** 2, c=0.4, x0=1.0, v0=0.0, stiff=True):
        self.mass_, self.k, self.c, self.x0, self.v0 = mass, k, c, x0, v0
        self.stiff = stiff

    def evaluate(self, t, q, qd, ws, what):
        if what & EVAL_M:
            ws.M[0, 0] = self.mass_
        if what & EVAL_Q:
            ws.Q[0] = -self.k * q[0] - self.c * qd[0]
        if what & (EVAL_JAC | EVAL_JAC_STIFF):
            on = bool(what & EVAL_JAC) or self.stiff
            ws.Jq[0, 0] = -self.k if on else 0.0
            ws.Jqd[0, 0] = -self.c if on else 0.0

    def initial_state(self):
        return State(0.0, np.array([self.x0]), np.array([self.v0]))

    def exact(self, t):
        """x(t), ẋ(t) of the underdamped oscillator."""
        return damped_oscillation(self.mass_, self.k, self.c, self.x0, self.v0, t)

    def energy(self, q, qd):
        return 0.5 * self.mass_ * qd[0] ** 2 + 0.5 * self.k * q[0] ** 2


__all__ = [
    "PlanarLinkage", "pendulum", "double_pendulum", "slider_crank", "PointPendulum",
    "StiffTwoMass", "LinearOscillator", "EVAL_PHI", "EVAL_GAMMA",
]
