"""Formulation A (relative Cartesian coordinates with the introduced θ, seed 004 §3) compiled
with numba, for Table 2: the stages of :mod:`rtmbs.synthesis.relative_cartesian` over flat arrays,
one subsystem on a translating base. :func:`pack` flattens a
:class:`~rtmbs.synthesis.system.SynthesisSystem`; :func:`evaluate_cartesian_rel` fills M, Q and
q̈ and advances the warm start (r*, A) in place. Small scratch arrays are allocated per call."""
from __future__ import annotations

import numpy as np
from numba import njit

from .compiled_joint import _forces_gf, _skew


@njit(cache=True)
def _psi(r, A, th, y, with_gamma, thd, pkind, pbi, pbj, psi_, psj, pL, tb, e1, ax, xb, nb):
    """Ψ, Ψ_z, Ψ_θ (eq. 14) and, with ``with_gamma``, γ̂ (eq. 16); index nb is the base."""
    nrow = 6 * nb
    psi = np.zeros(nrow)
    Pz = np.zeros((nrow, 6 * nb))
    g = np.zeros(nrow)
    row = 0
    for c in range(pkind.shape[0]):
        bi, bj = pbi[c], pbj[c]
        if pkind[c] != 1:
            P = np.zeros((2, 3))
            V = np.zeros((2, 3))
            Qd = np.zeros((2, 3))
            for side in range(2):
                k = bi if side == 0 else bj
                s = psi_[c] if side == 0 else psj[c]
                if k == nb:
                    P[side] = s
                else:
                    wv = y[6 * k + 3:6 * k + 6]
                    ws = np.cross(wv, s)
                    P[side] = r[k] + A[k] @ s
                    V[side] = y[6 * k:6 * k + 3] + A[k] @ ws
                    Qd[side] = A[k] @ np.cross(wv, ws)
            d = P[1] - P[0]
            if pkind[c] == 0:
                psi[row:row + 3] = d
                for side in range(2):
                    k = bi if side == 0 else bj
                    if k == nb:
                        continue
                    sg = -1.0 if side == 0 else 1.0
                    s = psi_[c] if side == 0 else psj[c]
                    J = -(A[k] @ _skew(s))
                    for a in range(3):
                        Pz[row + a, 6 * k + a] += sg
                    Pz[row:row + 3, 6 * k + 3:6 * k + 6] += sg * J
                if with_gamma:
                    g[row:row + 3] = Qd[0] - Qd[1]
                row += 3
            else:
                psi[row] = 0.5 * (d @ d - pL[c] * pL[c])
                for side in range(2):
                    k = bi if side == 0 else bj
                    if k == nb:
                        continue
                    dd = -d if side == 0 else d
                    s = psi_[c] if side == 0 else psj[c]
                    Pz[row, 6 * k:6 * k + 3] += dd
                    Pz[row, 6 * k + 3:6 * k + 6] += dd @ (-(A[k] @ _skew(s)))
                if with_gamma:
                    dv = V[1] - V[0]
                    g[row] = -(dv @ dv + d @ (Qd[1] - Qd[0]))
                row += 1
        else:
            ag = psi_[c] if bi == nb else A[bi] @ psi_[c]
            bg = psj[c] if bj == nb else A[bj] @ psj[c]
            psi[row] = ag @ bg
            if bi != nb:
                Pz[row, 6 * bi + 3:6 * bi + 6] += bg @ (-(A[bi] @ _skew(psi_[c])))
            if bj != nb:
                Pz[row, 6 * bj + 3:6 * bj + 6] += ag @ (-(A[bj] @ _skew(psj[c])))
            if with_gamma:
                adg = np.zeros(3)
                aqg = np.zeros(3)
                bdg = np.zeros(3)
                bqg = np.zeros(3)
                if bi != nb:
                    wv = y[6 * bi + 3:6 * bi + 6]
                    wa = np.cross(wv, psi_[c])
                    adg, aqg = A[bi] @ wa, A[bi] @ np.cross(wv, wa)
                if bj != nb:
                    wv = y[6 * bj + 3:6 * bj + 6]
                    wb = np.cross(wv, psj[c])
                    bdg, bqg = A[bj] @ wb, A[bj] @ np.cross(wv, wb)
                g[row] = -(bg @ aqg + ag @ bqg + 2.0 * (adg @ bdg))
            row += 1
    e2 = np.cross(ax, e1)
    cth, sth = np.cos(th), np.sin(th)
    wv_ = cth * e2 - sth * e1
    dw = -sth * e2 - cth * e1
    b = A[tb] @ xb
    psi[row] = wv_ @ b
    Pz[row, 6 * tb + 3:6 * tb + 6] = wv_ @ (-(A[tb] @ _skew(xb)))
    Pt = np.zeros(nrow)
    Pt[row] = dw @ b
    if with_gamma:
        om = y[6 * tb + 3:6 * tb + 6]
        xw = np.cross(om, xb)
        g[row] = -(wv_ @ (A[tb] @ np.cross(om, xw)) + 2.0 * thd * (dw @ (A[tb] @ xw)) - thd * thd * (wv_ @ b))
    return psi, Pz, Pt, g


@njit(cache=True)
def evaluate_cartesian_rel(t, q, qd, rw, Aw, iters, ints, pkind, pbi, pbj, psi_, psj, pL, e1, ax, xb,
                           mass, Jb, fkind, fbi, fbj, fsi, fsj, fpar, fdir, fadr, flen, fops, fargs,
                           m0, J0, r0i, S, A0, grav, M_out, Q_out, qdd_out):
    """One evaluation (all stages of formulation A) at (t, q, q̇); (rw, Aw) the warm start."""
    nb, nbase = ints[0], ints[1]
    tb = ints[2]
    th, thd = q[nbase], qd[nbase]
    y0 = np.zeros(6 * nb)
    for _ in range(iters):                                  # position
        psi, Pz, _, _ = _psi(rw, Aw, th, y0, False, 0.0, pkind, pbi, pbj, psi_, psj, pL, tb, e1, ax, xb, nb)
        dz = np.linalg.solve(Pz, -psi)
        for k in range(nb):
            rw[k] += dz[6 * k:6 * k + 3]
            dp = dz[6 * k + 3:6 * k + 6]
            a2 = dp @ dp + 1e-300
            a = np.sqrt(a2)
            Sk = _skew(dp)
            Aw[k] = Aw[k] @ (np.eye(3) + (np.sin(a) / a) * Sk + ((1.0 - np.cos(a)) / a2) * (Sk @ Sk))
    _, Pz, Pt, _ = _psi(rw, Aw, th, y0, False, 0.0, pkind, pbi, pbj, psi_, psj, pL, tb, e1, ax, xb, nb)
    B2 = np.empty((6 * nb, 2))
    B2[:, 0] = -Pt
    N = np.linalg.solve(Pz, -Pt)                             # velocity
    y = N * thd
    _, _, _, gam = _psi(rw, Aw, th, y, True, thd, pkind, pbi, pbj, psi_, psj, pL, tb, e1, ax, xb, nb)
    p = np.linalg.solve(Pz, gam)                             # RHS
    # forces, global: bodies (r*, A, ṙ*, ω global)
    rg = np.zeros((nb, 3))
    Ag = np.zeros((nb, 3, 3))
    rdg = np.zeros((nb, 3))
    wg = np.zeros((nb, 3))
    for k in range(nb):
        Ag[k] = A0 @ Aw[k]
        rg[k] = A0 @ rw[k]
        rdg[k] = A0 @ y[6 * k:6 * k + 3]
        wg[k] = Ag[k] @ y[6 * k + 3:6 * k + 6]
    gf, Q0 = _forces_gf(t, q, qd, nb, nbase, rg, Ag, rdg, wg, mass, fkind, fbi, fbj, fsi, fsj, fpar, fdir,
                        fadr, flen, fops, fargs, m0, r0i, S, A0, grav, np.zeros(3))
    # mass/force (eqs. 10-12)
    MEE = np.zeros((6, 6))
    MEG = np.zeros((6, 6 * nb))
    MGG = np.zeros((6 * nb, 6 * nb))
    gE = np.zeros(6)
    gG = np.zeros(6 * nb)
    for k in range(nb):
        m, J = mass[k], Jb[k]
        w = y[6 * k + 3:6 * k + 6]
        f = gf[k, :3]
        n = Ag[k].T @ gf[k, 3:] - np.cross(w, J @ w)
        Ar = A0 @ _skew(rw[k])
        MEE[:3, :3] += m * np.eye(3)
        MEE[:3, 3:] += -m * Ar
        MEE[3:, :3] += -m * Ar.T
        MEE[3:, 3:] += m * (Ar.T @ Ar) + Aw[k] @ J @ Aw[k].T
        MEG[:3, 6 * k:6 * k + 3] = m * A0
        MEG[3:, 6 * k:6 * k + 3] = -m * (Ar.T @ A0)
        MEG[3:, 6 * k + 3:6 * k + 6] = Aw[k] @ J
        for a in range(3):
            MGG[6 * k + a, 6 * k + a] = m
        MGG[6 * k + 3:6 * k + 6, 6 * k + 3:6 * k + 6] = J
        gE[:3] += f
        gE[3:] += -(Ar.T @ f) + Aw[k] @ n
        gG[6 * k:6 * k + 3] = A0.T @ f
        gG[6 * k + 3:6 * k + 6] = n
    # effective mass/force (eqs. 19, 21, 22)
    MEt = MEG @ N
    Mtt = N @ (MGG @ N)
    gEh = gE - MEG @ p
    gt = N @ (gG - MGG @ p)
    Mc = MEE - np.outer(MEt, MEt) / Mtt
    Pc = gEh - MEt * (gt / Mtt)
    Mb = np.zeros((6, 6))
    Mb[:3, :3] = m0 * np.eye(3)
    Mb[3:, 3:] = J0
    M_out[:nbase, :nbase] = S.T @ (Mb + MEE) @ S
    M_out[:nbase, nbase] = S.T @ MEt
    M_out[nbase, :nbase] = S.T @ MEt
    M_out[nbase, nbase] = Mtt
    Q_out[:nbase] = S.T @ (Q0 + gEh)
    Q_out[nbase] = gt
    xdd = np.linalg.solve(S.T @ (Mb + Mc) @ S, S.T @ (Q0 + Pc))   # eq. 1
    qdd_out[:nbase] = xdd
    qdd_out[nbase] = (gt - MEt @ (S @ xdd)) / Mtt                # eq. 20


def pack(syn):
    """Flat arrays of a one-subsystem, 1-DOF :class:`SynthesisSystem` in formulation A."""
    from ..errors import SolverError
    from .compiled_joint import pack_forces
    from .description import BASE

    sm = syn.sm
    if syn.formulation != "relative-cartesian" or len(sm.subsystems) != 1:
        raise SolverError("compiled: the compiled kernel takes formulation A with one subsystem")
    sub = sm.subsystems[0]
    nb = len(sub.bodies)

    def bidx(k):
        return nb if k == BASE else k

    P = sub.prims
    kinds = {"sph": 0, "perp": 1, "dist": 2}
    arr = (np.array([kinds[p.kind] for p in P], np.int64), np.array([bidx(p.bi) for p in P], np.int64),
           np.array([bidx(p.bj) for p in P], np.int64), np.array([p.si for p in P], float),
           np.array([p.sj for p in P], float), np.array([p.length for p in P], float))
    ints = np.array([nb, syn.nbase, sub.theta_body], np.int64)
    fs = pack_forces(sm, [nb])                 # stacked per subsystem: take the one
    return (ints, *arr, np.asarray(sub.theta_e1, float), np.asarray(sub.theta_axis, float),
            np.asarray(sub.theta_x, float), sub.mass.astype(float), sub.inertia.astype(float),
            *(a[0] for a in fs[:9]), *fs[9:])
