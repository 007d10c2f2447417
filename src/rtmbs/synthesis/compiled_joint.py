"""Formulation B (recursive relative joint coordinates, seed 004 §4) compiled with numba, for
Table 2: the same stages as :mod:`rtmbs.synthesis.recursive` over flat arrays, one subsystem on a
translating base. :func:`pack` flattens a :class:`~rtmbs.synthesis.system.SynthesisSystem`;
:func:`evaluate_joint` fills M, Q (the protocol's ODE) and q̈ (the synthesis path, eqs. 1, 31)
and advances the warm start of the tree coordinates. Small scratch arrays are allocated per call.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels.functions import expr_eval


@njit(cache=True)
def _skew(v):
    S = np.zeros((3, 3))
    S[0, 1], S[0, 2] = -v[2], v[1]
    S[1, 0], S[1, 2] = v[2], -v[0]
    S[2, 0], S[2, 1] = -v[1], v[0]
    return S


@njit(cache=True)
def _kin(q, qd, ekind, epar, ech, ek, esp, esc, eax, eApc, A0, nb, nq, A, r, rd, w, Bb, Db):
    """Eqs. 23-26 along the tree (parents before children); index nb is the base."""
    A[nb] = A0
    r[nb] = 0.0
    rd[nb] = 0.0
    w[nb] = 0.0
    Bb[nb] = 0.0
    Db[nb] = 0.0
    for e in range(ekind.shape[0]):
        p, c, k = epar[e], ech[e], ek[e]
        Ap = A[p]
        if ekind[e] == 0:
            U = _skew(eax[e])
            R = np.eye(3) + np.sin(q[k]) * U + (1.0 - np.cos(q[k])) * (U @ U)
            H = np.zeros((3, 1))
            H[:, 0] = Ap @ eax[e]
            nc = 1
            Hdq = np.zeros(3)
        else:
            a, b, g = q[k], q[k + 1], q[k + 2]
            ca, sa, cb, sb, cc, sc = np.cos(a), np.sin(a), np.cos(b), np.sin(b), np.cos(g), np.sin(g)
            Rx = np.array([[1.0, 0.0, 0.0], [0.0, ca, -sa], [0.0, sa, ca]])
            Ry = np.array([[cb, 0.0, sb], [0.0, 1.0, 0.0], [-sb, 0.0, cb]])
            Rz = np.array([[cc, -sc, 0.0], [sc, cc, 0.0], [0.0, 0.0, 1.0]])
            RxRy = Rx @ Ry
            R = RxRy @ Rz
            Hp = np.zeros((3, 3))
            Hp[0, 0] = 1.0
            Hp[:, 1] = Rx[:, 1]
            Hp[:, 2] = RxRy[:, 2]
            H = Ap @ Hp
            nc = 3
            w1 = qd[k] * Hp[:, 0]
            w2 = w1 + qd[k + 1] * Hp[:, 1]
            Hdq = Ap @ (qd[k + 1] * np.cross(w1, Hp[:, 1]) + qd[k + 2] * np.cross(w2, Hp[:, 2]))
        A[c] = Ap @ R @ eApc[e]
        sg = Ap @ esp[e]
        ps = r[p] + sg
        r[c] = ps - A[c] @ esc[e]
        Om = H @ qd[k:k + nc]
        w[c] = w[p] + Om
        pd = rd[p] + np.cross(w[p], sg)
        rd[c] = pd + np.cross(w[c], r[c] - ps)
        Hdq = Hdq + np.cross(w[p], Om)
        Bb[c] = Bb[p]
        P = _skew(ps)
        Bb[c, :3, k:k + nc] = P @ H
        Bb[c, 3:, k:k + nc] = H
        Db[c, :3] = Db[p, :3] + np.cross(pd, Om) + P @ Hdq
        Db[c, 3:] = Db[p, 3:] + Hdq


@njit(cache=True)
def _point(k, s, A, r, rd, w, Bb, Db):
    sg = A[k] @ s
    p = r[k] + sg
    v = rd[k] + np.cross(w[k], sg)
    P = _skew(p)
    J = Bb[k, :3] - P @ Bb[k, 3:]
    c = Db[k, :3] - P @ Db[k, 3:] + np.cross(w[k], v)
    return p, v, J, c


@njit(cache=True)
def _cuts(ckind, cbi, cbj, csi, csj, cz, cx, cy, cL, ncut, nq, A, r, rd, w, Bb, Db):
    phi = np.zeros(ncut)
    Pq = np.zeros((ncut, nq))
    g = np.zeros(ncut)
    i = 0
    for c in range(ckind.shape[0]):
        bi, bj = cbi[c], cbj[c]
        pi, vi, Ji, ci = _point(bi, csi[c], A, r, rd, w, Bb, Db)
        pj, vj, Jj, cj = _point(bj, csj[c], A, r, rd, w, Bb, Db)
        d = pj - pi
        if ckind[c] <= 1:
            phi[i:i + 3] = d
            Pq[i:i + 3] = Jj - Ji
            g[i:i + 3] = ci - cj
            i += 3
        if ckind[c] == 1:
            for m in range(2):
                a = A[bi] @ cz[c]
                b = A[bj] @ (cx[c] if m == 0 else cy[c])
                ab = np.cross(a, b)
                phi[i] = a @ b
                Pq[i] = ab @ Bb[bi, 3:] - ab @ Bb[bj, 3:]
                ad, bd = np.cross(w[bi], a), np.cross(w[bj], b)
                g[i] = -(b @ np.cross(w[bi], ad) + a @ np.cross(w[bj], bd) + 2.0 * (ad @ bd)
                         + b @ np.cross(Db[bi, 3:], a) + a @ np.cross(Db[bj, 3:], b))
                i += 1
        if ckind[c] == 2:
            phi[i] = 0.5 * (d @ d - cL[c] * cL[c])
            Pq[i] = d @ (Jj - Ji)
            dd = vj - vi
            g[i] = -(dd @ dd + d @ (cj - ci))
            i += 1
    return phi, Pq, g


@njit(cache=True)
def _forces_gf(t, q, qd, nb, nbase, rg, Ag, rdg, wg, mass, fkind, fbi, fbj, fsi, fsj, fpar, fdir, fadr, flen,
               fops, fargs, m0, r0i, S, A0, grav):
    """Gravity and the force elements: per body f and the torque about its CG (global), and the
    base's Q̂0 = [f; moment in base axes]. Body keys: −2 ground, nb base, k subsystem body k;
    (rg, Ag, rdg, wg): bodies' r* (global axes), A, ṙ*, ω."""
    r0 = r0i + S[:3] @ q[:nbase]
    v0 = S[:3] @ qd[:nbase]
    gf = np.zeros((nb, 6))
    Q0 = np.zeros(6)
    Q0[:3] = m0 * grav
    for k in range(nb):
        gf[k, :3] = mass[k] * grav
    for e in range(fkind.shape[0]):
        P = np.zeros((2, 3))
        V = np.zeros((2, 3))
        for side in range(2):
            kk = fbi[e] if side == 0 else fbj[e]
            s = fsi[e] if side == 0 else fsj[e]
            if kk == -2:
                P[side] = s
            elif kk == nb:
                P[side] = r0 + A0 @ s
                V[side] = v0
            else:
                sg = Ag[kk] @ s
                P[side] = r0 + rg[kk] + sg
                V[side] = v0 + rdg[kk] + np.cross(wg[kk], sg)
        if fkind[e] == 0:
            dv = P[1] - P[0]
            L = np.sqrt(dv @ dv)
            Ld = dv @ (V[1] - V[0]) / L
            T = fpar[e, 0] * (L - fpar[e, 2]) + fpar[e, 1] * Ld + fpar[e, 3]
            Fi = (T / L) * dv                     # on i; −Fi on j
        else:
            mag = fpar[e, 4]
            if flen[e] > 0:
                mag = expr_eval(t, fops, fargs, fadr[e], flen[e])[0]
            Fi = -mag * fdir[e]                   # the force f(t)·e acts on j
        for side in range(2):
            if fkind[e] == 1 and side == 0:
                continue
            F = Fi if side == 0 else -Fi
            kk = fbi[e] if side == 0 else fbj[e]
            s = fsi[e] if side == 0 else fsj[e]
            if kk == nb:
                Q0[:3] += F
                Q0[3:] += np.cross(s, A0.T @ F)
            elif kk >= 0:
                gf[kk, :3] += F
                gf[kk, 3:] += np.cross(Ag[kk] @ s, F)
    return gf, Q0


@njit(cache=True)
def evaluate_joint(t, q, qd, qt, iters, ints, ekind, epar, ech, ek, esp, esc, eax, eApc,
                   ckind, cbi, cbj, csi, csj, cz, cx, cy, cL, u, mass, Jb,
                   fkind, fbi, fbj, fsi, fsj, fpar, fdir, fadr, flen, fops, fargs,
                   m0, J0, r0i, S, A0, grav, M_out, Q_out, qdd_out):
    """One evaluation (all stages) at (t, q, q̇); ``qt`` (tree coordinates) is the warm start,
    updated in place. ints = (nb, nq, ncut, v, nbase)."""
    nb, nq, ncut, v, nbase = ints[0], ints[1], ints[2], ints[3], ints[4]
    nu = nq - 1
    A = np.zeros((nb + 1, 3, 3))
    r = np.zeros((nb + 1, 3))
    rd = np.zeros((nb + 1, 3))
    w = np.zeros((nb + 1, 3))
    Bb = np.zeros((nb + 1, 6, nq))
    Db = np.zeros((nb + 1, 6))
    zero = np.zeros(nq)
    th, thd = q[nbase], qd[nbase]
    qt[v] = th
    # position: Newton on Φ(u, v) = 0
    for _ in range(iters):
        _kin(qt, zero, ekind, epar, ech, ek, esp, esc, eax, eApc, A0, nb, nq, A, r, rd, w, Bb, Db)
        phi, Pq, _ = _cuts(ckind, cbi, cbj, csi, csj, cz, cx, cy, cL, ncut, nq, A, r, rd, w, Bb, Db)
        Pu = np.empty((ncut, nu))
        for j in range(nu):
            Pu[:, j] = Pq[:, u[j]]
        du = np.linalg.solve(Pu, -phi)
        for j in range(nu):
            qt[u[j]] += du[j]
    # velocity
    _kin(qt, zero, ekind, epar, ech, ek, esp, esc, eax, eApc, A0, nb, nq, A, r, rd, w, Bb, Db)
    _, Pq, _ = _cuts(ckind, cbi, cbj, csi, csj, cz, cx, cy, cL, ncut, nq, A, r, rd, w, Bb, Db)
    Pu = np.empty((ncut, nu + 1))
    for j in range(nu):
        Pu[:, j] = Pq[:, u[j]]
    Pu[:, nu] = Pq[:, v]
    RHS = np.empty((ncut, 2))
    RHS[:, 0] = Pq[:, v]
    qdt = np.zeros(nq)
    # RHS
    qdt[v] = thd
    Rv = np.linalg.solve(Pu[:, :nu], Pq[:, v].copy())
    for j in range(nu):
        qdt[u[j]] = -Rv[j] * thd
    _kin(qt, qdt, ekind, epar, ech, ek, esp, esc, eax, eApc, A0, nb, nq, A, r, rd, w, Bb, Db)
    _, _, gam = _cuts(ckind, cbi, cbj, csi, csj, cz, cx, cy, cL, ncut, nq, A, r, rd, w, Bb, Db)
    cvec = np.linalg.solve(Pu[:, :nu], gam)
    # forces: f and torque about the CG per body (global); base Q̂0
    gf, Q0 = _forces_gf(t, q, qd, nb, nbase, r[:nb], A[:nb], rd[:nb], w[:nb], mass, fkind, fbi, fbj, fsi, fsj,
                        fpar, fdir, fadr, flen, fops, fargs, m0, r0i, S, A0, grav)
    # mass/force: state-space M̂, Q̂ and the composite recursion (eq. 29)
    K = np.zeros((nb + 1, 6, 6))
    Fc = np.zeros((nb + 1, 6))
    for k in range(nb):
        Jg = A[k] @ Jb[k] @ A[k].T
        Rs = _skew(r[k])
        m = mass[k]
        K[k, :3, :3] = m * np.eye(3)
        K[k, :3, 3:] = -m * Rs
        K[k, 3:, :3] = m * Rs
        K[k, 3:, 3:] = Jg - m * (Rs @ Rs)
        f = gf[k, :3] + m * np.cross(rd[k], w[k])
        n = gf[k, 3:] - np.cross(w[k], Jg @ w[k])
        Qh = np.zeros(6)
        Qh[:3] = f
        Qh[3:] = Rs @ f + n
        Fc[k] = Qh - K[k] @ Db[k]
    for e in range(ekind.shape[0] - 1, -1, -1):
        c, p = ech[e], epar[e]
        if p != nb:
            K[p] += K[c]
            Fc[p] += Fc[c]
    Myy = np.zeros((6, 6))
    Py = np.zeros(6)
    Myq = np.zeros((6, nq))
    Mqq = np.zeros((nq, nq))
    Pq2 = np.zeros(nq)
    edge_of = np.full(nb + 1, -1)
    for e in range(ekind.shape[0]):
        edge_of[ech[e]] = e
    for e in range(ekind.shape[0]):
        p, c, k = epar[e], ech[e], ek[e]
        nc = 1 if ekind[e] == 0 else 3
        B = Bb[c][:, k:k + nc].copy()
        if p == nb:
            Myy += K[c]
            Py += Fc[c]
        KB = K[c] @ B
        Myq[:, k:k + nc] = KB
        Pq2[k:k + nc] = B.T @ Fc[c]
        a = c
        while a != nb:
            ea = edge_of[a]
            ka = ek[ea]
            na = 1 if ekind[ea] == 0 else 3
            Ba = Bb[a][:, ka:ka + na].copy()
            blk = Ba.T @ KB
            Mqq[ka:ka + na, k:k + nc] = blk
            Mqq[k:k + nc, ka:ka + na] = blk.T
            a = epar[ea]
    # effective mass/force (eqs. 33-37), v = θ
    Muu = np.empty((nu, nu))
    Muv = np.empty(nu)
    Myu = np.empty((6, nu))
    Pu_ = np.empty(nu)
    for i in range(nu):
        Muv[i] = Mqq[u[i], v]
        Pu_[i] = Pq2[u[i]]
        Myu[:, i] = Myq[:, u[i]]
        for j in range(nu):
            Muu[i, j] = Mqq[u[i], u[j]]
    Ms = Mqq[v, v] - 2.0 * (Muv @ Rv) + Rv @ (Muu @ Rv)
    Qq = Pq2[v] - Muv @ cvec - Rv @ Pu_ + Rv @ (Muu @ cvec)
    Qy = Myq[:, v] - Myu @ Rv
    gEh = Py - Myu @ cvec
    Mc = Myy - np.outer(Qy, Qy) / Ms
    Pc = gEh - Qy * (Qq / Ms)
    # protocol M, Q and the synthesis accelerations (eq. 1, eq. 31)
    Mb = np.zeros((6, 6))
    Mb[:3, :3] = m0 * np.eye(3)
    Mb[3:, 3:] = J0
    M_out[:nbase, :nbase] = S.T @ (Mb + Myy) @ S
    M_out[:nbase, nbase] = S.T @ Qy
    M_out[nbase, :nbase] = S.T @ Qy
    M_out[nbase, nbase] = Ms
    Q_out[:nbase] = S.T @ (Q0 + gEh)
    Q_out[nbase] = Qq
    xdd = np.linalg.solve(S.T @ (Mb + Mc) @ S, S.T @ (Q0 + Pc))
    qdd_out[:nbase] = xdd
    qdd_out[nbase] = (Qq - Qy @ (S @ xdd)) / Ms


def pack(syn):
    """Flat arrays of a one-subsystem, 1-DOF :class:`SynthesisSystem` in formulation B."""
    from ..errors import SolverError
    from .description import BASE, GROUND

    sm = syn.sm
    if syn.formulation != "relative-joint" or len(sm.subsystems) != 1:
        raise SolverError("compiled: the compiled kernel takes formulation B with one subsystem")
    sub, tree = sm.subsystems[0], syn._trees[0]
    nb = len(sub.bodies)

    def bidx(k):
        return nb if k == BASE else k

    E = tree.edges
    ekind = np.array([0 if e[1] == "revolute" else 1 for e in E], np.int64)
    epar = np.array([bidx(e[2]) for e in E], np.int64)
    ech = np.array([bidx(e[3]) for e in E], np.int64)
    ek = np.array([e[8] for e in E], np.int64)
    esp, esc, eax = (np.array([e[i] for e in E], float) for i in (4, 5, 6))
    eApc = np.array([e[7] for e in E], float)
    C = tree.cuts
    ckind = np.array([{"spherical": 0, "revolute": 1, "distance": 2}[c[1]] for c in C], np.int64)
    cbi = np.array([bidx(c[2]) for c in C], np.int64)
    cbj = np.array([bidx(c[3]) for c in C], np.int64)
    csi, csj = np.array([c[4] for c in C], float), np.array([c[5] for c in C], float)
    cz = np.array([c[6][:, 2] for c in C], float)
    cx = np.array([c[7][:, 0] for c in C], float)
    cy = np.array([c[7][:, 1] for c in C], float)
    cL = np.array([c[8] for c in C], float)
    ints = np.array([nb, tree.nq, tree.ncut, tree.v, syn.nbase], np.int64)
    return (ints, ekind, epar, ech, ek, esp, esc, eax, eApc, ckind, cbi, cbj, csi, csj, cz, cx, cy, cL,
            np.array(tree.u, np.int64), sub.mass.astype(float), sub.inertia.astype(float), *pack_forces(sm, nb))


def pack_forces(sm, nb):
    """The force elements and the base as flat arrays (body keys: −2 ground, nb base, k body k of
    the one subsystem)."""
    from .description import BASE, GROUND

    F = sm.forces

    def fkey(k):
        if k == GROUND:
            return -2
        if k == BASE:
            return nb
        return k[1]

    fkind = np.array([0 if f.kind == "spring" else 1 for f in F], np.int64)
    fbi = np.array([fkey(f.bi) if f.kind == "spring" else -2 for f in F], np.int64)
    fbj = np.array([fkey(f.bj) for f in F], np.int64)
    fsi, fsj = np.array([f.si for f in F], float), np.array([f.sj for f in F], float)
    fpar = np.array([[f.k, f.c, f.L0, f.F0, f.value] for f in F], float)
    fdir = np.array([f.direction for f in F], float)
    ops, args, adr, ln = [], [], [], []
    for f in F:
        adr.append(len(ops))
        if f.fun is None:
            ln.append(0)
        else:
            ops += list(np.asarray(f.fun[0], float))
            args += list(np.asarray(f.fun[1], float))
            ln.append(len(f.fun[0]))
    return (fkind, fbi, fbj, fsi, fsj, fpar, fdir, np.array(adr, np.int64), np.array(ln, np.int64),
            np.array(ops + [0.0], float), np.array(args + [0.0], float), float(sm.base_mass),
            np.asarray(sm.base_inertia, float), np.asarray(sm.base_r0, float), np.asarray(sm.base_S, float),
            np.asarray(sm.base_A, float), np.asarray(sm.gravity, float))
