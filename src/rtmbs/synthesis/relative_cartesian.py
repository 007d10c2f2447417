"""Formulation A of Kim & Wang 2005 (§3): a subsystem in relative Cartesian coordinates with respect to
the base body, reduced to the introduced independent coordinate θ.

Per body i of the subsystem: relative position r*_i0 (base frame), relative orientation A_i0 and
the velocities y_i0 = [ṙ*_i0; ω'_i] (eq. 7). The constraints Ψ = [Φ̄; Γ] (eq. 14) are the joints
plus Γ = wᵀb = sin(φ − θ), φ the angle of the θ-body about its revolute axis. Stages (Table 1):

* position: Newton on Ψ(z, θ) = 0 for z with a fixed iteration count (rotations updated by
  A ← A exp(d̃π'));
* velocity: Ψ_z, Ψ_θ, N = −Ψ_z⁻¹Ψ_θ (eq. 17), y = N θ̇;
* RHS: γ̂ (eq. 16), p = Ψ_z⁻¹γ̂ (eq. 18);
* mass/force: M̄_EE, M̄_EG, M̄_GG, ḡ_E, ḡ_G (eqs. 10-12) with E_i0 (eq. 7);
* effective mass/force: M_Eθ, M_θθ, ĝ_E, g_θ (eq. 19), M̌, P̌ (eqs. 21-22);
* acceleration: θ̈ = M_θθ⁻¹(g_θ − M_Eθᵀ Ẏ0) (eq. 20) once the base equation (eq. 1) is solved.

The base body translates only (its orientation is locked, ω0 = 0, so h_i0 of eq. 8 vanishes);
the effective mass is still the full 6×6 of eq. 21. All functions run on float arrays and on
object arrays of :class:`~rtmbs.synthesis.opcount.Op` (operation counts).
"""
from __future__ import annotations

import numpy as np

from . import opcount as oc
from .description import BASE, Subsystem
from .linalg import lu_factor, lu_solve, rotation, skew, solve, zeros


def _pose(k, r, A):
    return (None, None) if k == BASE else (r[k], A[k])


def _point(k, s, r, A, y):
    """Position, velocity, rotational Jacobian −A s̃ and quadratic term A ω̃ω̃ s of a body point."""
    if k == BASE:
        return s, 0.0 * s, None, 0.0 * s
    As = A[k] @ s
    w = y[6 * k + 3:6 * k + 6]
    ws = np.cross(w, s) if s.dtype != object and w.dtype != object else skew(w) @ s
    return r[k] + As, y[6 * k:6 * k + 3] + A[k] @ ws, -(A[k] @ skew(s)), A[k] @ (skew(w) @ ws)


def _theta_w(sub: Subsystem, theta):
    e1 = sub.theta_e1
    e2 = np.cross(sub.theta_axis, e1)
    c, s = oc.cos(theta), oc.sin(theta)
    return c * e2 - s * e1, -s * e2 - c * e1          # w(θ), dw/dθ


def constraints(sub: Subsystem, r, A, theta, jac=True):
    """Ψ (eq. 14) and, with ``jac``, Ψ_z (virtual displacements [δr*; δπ'] per body) and Ψ_θ."""
    nb = len(sub.bodies)
    nrow = sum(3 if p.kind == "sph" else 1 for p in sub.prims) + 1
    psi = zeros(nrow, r)
    Pz = zeros((nrow, 6 * nb), r) if jac else None
    y0 = zeros(6 * nb, r)
    row = 0
    for p in sub.prims:
        if p.kind == "sph" or p.kind == "dist":
            Pi, _, Ji, _ = _point(p.bi, p.si, r, A, y0)
            Pj, _, Jj, _ = _point(p.bj, p.sj, r, A, y0)
            d = Pj - Pi
            if p.kind == "sph":
                psi[row:row + 3] = d
                if jac:
                    for k, J, sg in ((p.bi, Ji, -1.0), (p.bj, Jj, 1.0)):
                        if k != BASE:
                            Pz[row:row + 3, 6 * k:6 * k + 3] += sg * np.eye(3)
                            Pz[row:row + 3, 6 * k + 3:6 * k + 6] += J if sg > 0 else -J
                row += 3
            else:
                psi[row] = 0.5 * (d @ d - p.length * p.length)
                if jac:
                    for k, J, sg in ((p.bi, Ji, -1.0), (p.bj, Jj, 1.0)):
                        if k != BASE:
                            dd = d if sg > 0 else -d
                            Pz[row, 6 * k:6 * k + 3] += dd
                            Pz[row, 6 * k + 3:6 * k + 6] += dd @ J
                row += 1
        else:  # perp: (A_i a)ᵀ(A_j b) = 0
            ag = p.si if p.bi == BASE else A[p.bi] @ p.si
            bg = p.sj if p.bj == BASE else A[p.bj] @ p.sj
            psi[row] = ag @ bg
            if jac:
                if p.bi != BASE:
                    Pz[row, 6 * p.bi + 3:6 * p.bi + 6] += bg @ (-(A[p.bi] @ skew(p.si)))
                if p.bj != BASE:
                    Pz[row, 6 * p.bj + 3:6 * p.bj + 6] += ag @ (-(A[p.bj] @ skew(p.sj)))
            row += 1
    # Γ: sin(φ − θ) of the θ-body
    k = sub.theta_body
    w, dw = _theta_w(sub, theta)
    b = A[k] @ sub.theta_x
    psi[row] = w @ b
    Pt = None
    if jac:
        Pz[row, 6 * k + 3:6 * k + 6] = w @ (-(A[k] @ skew(sub.theta_x)))
        Pt = zeros((nrow, 1), r)
        Pt[row, 0] = dw @ b
    return psi, Pz, Pt


def position(sub: Subsystem, r, A, theta, iterations: int):
    """Position stage: ``iterations`` Newton steps on Ψ(z, θ) = 0 from (r, A) (fixed cost)."""
    r = r.copy()
    A = A.copy()
    for _ in range(iterations):
        psi, Pz, _ = constraints(sub, r, A, theta)
        dz = solve(Pz, -psi)
        for k in range(len(sub.bodies)):
            r[k] = r[k] + dz[6 * k:6 * k + 3]
            A[k] = A[k] @ rotation(dz[6 * k + 3:6 * k + 6])
    return r, A


def velocity(sub: Subsystem, r, A, theta, thetad):
    """Velocity stage: Ψ_z (its LU factors, returned for the RHS stage), Ψ_θ,
    N = −Ψ_z⁻¹Ψ_θ (eq. 17) and y = N θ̇."""
    _, Pz, Pt = constraints(sub, r, A, theta)
    F = lu_factor(Pz)
    N = lu_solve(F, -Pt)
    return F, N, N[:, 0] * thetad


def gamma_hat(sub: Subsystem, r, A, y, theta, thetad, F):
    """RHS stage: γ̂ = −(Ψ̇_z y + Ψ̇_θ θ̇) (eq. 16) and p = Ψ_z⁻¹γ̂ (eq. 18, with the velocity
    stage's LU factors F of Ψ_z)."""
    nrow = 6 * len(sub.bodies)
    g = zeros(nrow, r)
    row = 0
    for p in sub.prims:
        if p.kind in ("sph", "dist"):
            Pi, vi, _, qi = _point(p.bi, p.si, r, A, y)
            Pj, vj, _, qj = _point(p.bj, p.sj, r, A, y)
            if p.kind == "sph":
                g[row:row + 3] = qi - qj
                row += 3
            else:
                d, dd = Pj - Pi, vj - vi
                g[row] = -(dd @ dd + d @ (qj - qi))
                row += 1
        else:
            terms = []
            vecs = []
            for k, a in ((p.bi, p.si), (p.bj, p.sj)):
                if k == BASE:
                    vecs.append((a, 0.0 * a, 0.0 * a))
                else:
                    w = y[6 * k + 3:6 * k + 6]
                    wa = skew(w) @ a
                    vecs.append((A[k] @ a, A[k] @ wa, A[k] @ (skew(w) @ wa)))
            (ag, adg, aqg), (bg, bdg, bqg) = vecs
            g[row] = -(bg @ aqg + ag @ bqg + 2.0 * (adg @ bdg))
            row += 1
    k = sub.theta_body
    w, dw = _theta_w(sub, theta)
    om = y[6 * k + 3:6 * k + 6]
    xw = skew(om) @ sub.theta_x
    b = A[k] @ sub.theta_x
    g[row] = -(w @ (A[k] @ (skew(om) @ xw)) + (2.0 * thetad) * (dw @ (A[k] @ xw))
               - (thetad * thetad) * (w @ b))
    return g, lu_solve(F, g)


def mass_force(sub: Subsystem, r, A, y, base_A, gforces):
    """Mass/force stage: M̄_EE (6×6), M̄_EG (6×6nb), M̄_GG (6nb×6nb), ḡ_E, ḡ_G (eqs. 10-12) from
    the bodies' mass matrices diag(m I, J') and forces g_i = [f; n' − ω̃'J'ω'] (``gforces``:
    (nb, 6), f global, n' body frame)."""
    nb = len(sub.bodies)
    MEE = zeros((6, 6), r)
    MEG = zeros((6, 6 * nb), r)
    MGG = zeros((6 * nb, 6 * nb), r)
    gE = zeros(6, r)
    gG = zeros(6 * nb, r)
    for k in range(nb):
        m, J = sub.mass[k], sub.inertia[k]
        w = y[6 * k + 3:6 * k + 6]
        f = gforces[k, :3]
        n = gforces[k, 3:] - skew(w) @ (J @ w)
        # E_i0 = [I, −A0 r̃*; 0, A_i0ᵀ]  (eq. 7); M_i E_i0 and G0ᵀ M_i G0 = diag(m I, J')
        Ar = base_A @ skew(r[k])
        MEE[:3, :3] += m * np.eye(3)
        MEE[:3, 3:] += -m * Ar
        MEE[3:, :3] += -m * Ar.T
        MEE[3:, 3:] += m * (Ar.T @ Ar) + A[k] @ J @ A[k].T
        MEG[:3, 6 * k:6 * k + 3] = m * base_A
        MEG[3:, 6 * k:6 * k + 3] = (-m) * (Ar.T @ base_A)
        MEG[3:, 6 * k + 3:6 * k + 6] = A[k] @ J
        MGG[6 * k:6 * k + 3, 6 * k:6 * k + 3] = m * np.eye(3)
        MGG[6 * k + 3:6 * k + 6, 6 * k + 3:6 * k + 6] = J
        gE[:3] += f
        gE[3:] += -(Ar.T @ f) + A[k] @ n
        gG[6 * k:6 * k + 3] = base_A.T @ f
        gG[6 * k + 3:6 * k + 6] = n
    return MEE, MEG, MGG, gE, gG


def effective(MEE, MEG, MGG, gE, gG, N, p):
    """Effective mass/force stage: M_Eθ, M_θθ, ĝ_E, g_θ (eq. 19), M̌, P̌ (eqs. 21-22)."""
    MEt = MEG @ N
    Mtt = N.T @ (MGG @ N)
    gEh = gE - MEG @ p
    gt = N.T @ (gG - MGG @ p)
    X = solve(Mtt, np.concatenate([MEt.T, gt.reshape(-1, 1)], axis=1))
    Mc = MEE - MEt @ X[:, :6]
    Pc = gEh - MEt @ X[:, 6]
    return MEt, Mtt, gt, Mc, Pc, gEh
