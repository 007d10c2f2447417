"""Formulation B (recursive relative joint coordinates, seed 004 §4) compiled with numba, for
Table 2 and the four-corner car: the same stages as :mod:`rtmbs.synthesis.recursive` over flat
arrays, for subsystems of one topology stacked on a leading axis (:func:`_subsystem` per
subsystem), on a base with a locked orientation or free (Bryant angles, as in system.py).
:func:`pack` flattens a :class:`~rtmbs.synthesis.system.SynthesisSystem`; :func:`evaluate_joint`
fills M, Q (the protocol's ODE) and q̈ (the synthesis path, eqs. 1, 31) and advances the warm
start of the tree coordinates. Small scratch arrays are allocated per call.
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
def _kin(q, qd, ekind, epar, ech, ek, esp, esc, eax, eApc, A0, w0, nb, nq, A, r, rd, w, Bb, Db):
    """Eqs. 23-26 along the tree (parents before children); index nb is the base (orientation
    A0, angular velocity w0; frame translating with its CG)."""
    A[nb] = A0
    r[nb] = 0.0
    rd[nb] = 0.0
    w[nb] = w0
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
               fops, fargs, m0, r0i, S, A0, grav, w0):
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
        if fkind[e] < 0:                          # padding (stacked subsystems)
            continue
        P = np.zeros((2, 3))
        V = np.zeros((2, 3))
        for side in range(2):
            kk = fbi[e] if side == 0 else fbj[e]
            s = fsi[e] if side == 0 else fsj[e]
            if kk == -2:
                P[side] = s
            elif kk == nb:
                P[side] = r0 + A0 @ s
                V[side] = v0 + np.cross(w0, A0 @ s)
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
                Q0[3:] += np.cross(A0 @ s, F)      # about the CG, global axes
            elif kk >= 0:
                gf[kk, :3] += F
                gf[kk, 3:] += np.cross(Ag[kk] @ s, F)
    return gf, Q0


@njit(cache=True)
def _subsystem(t, q, qd, qt, iters, ints, ekind, epar, ech, ek, esp, esc, eax, eApc,
               ckind, cbi, cbj, csi, csj, cz, cx, cy, cL, u, mass, Jb,
               fkind, fbi, fbj, fsi, fsj, fpar, fdir, fadr, flen, fops, fargs,
               r0i, S, A0, grav, th, thd, w0):
    """All stages of one subsystem at (t, q, q̇) with θ = th, θ̇ = thd: its M̄_yy, Q*_y, M*, Q*_q,
    ĝ_E (eq. 35, 33, 34), M̌, P̌ (eqs. 36-37) and the forces of its elements on the base (Q̂0
    without the base's weight); ``qt`` (tree coordinates) is the warm start, updated in place."""
    nb, nq, ncut, v, nbase = ints[0], ints[1], ints[2], ints[3], ints[4]
    nu = nq - 1
    A = np.zeros((nb + 1, 3, 3))
    r = np.zeros((nb + 1, 3))
    rd = np.zeros((nb + 1, 3))
    w = np.zeros((nb + 1, 3))
    Bb = np.zeros((nb + 1, 6, nq))
    Db = np.zeros((nb + 1, 6))
    zero = np.zeros(nq)
    zero3 = np.zeros(3)
    qt[v] = th
    # position: Newton on Φ(u, v) = 0
    for _ in range(iters):
        _kin(qt, zero, ekind, epar, ech, ek, esp, esc, eax, eApc, A0, zero3, nb, nq, A, r, rd, w, Bb, Db)
        phi, Pq, _ = _cuts(ckind, cbi, cbj, csi, csj, cz, cx, cy, cL, ncut, nq, A, r, rd, w, Bb, Db)
        Pu = np.empty((ncut, nu))
        for j in range(nu):
            Pu[:, j] = Pq[:, u[j]]
        du = np.linalg.solve(Pu, -phi)
        for j in range(nu):
            qt[u[j]] += du[j]
    # velocity
    _kin(qt, zero, ekind, epar, ech, ek, esp, esc, eax, eApc, A0, zero3, nb, nq, A, r, rd, w, Bb, Db)
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
    _kin(qt, qdt, ekind, epar, ech, ek, esp, esc, eax, eApc, A0, w0, nb, nq, A, r, rd, w, Bb, Db)
    _, _, gam = _cuts(ckind, cbi, cbj, csi, csj, cz, cx, cy, cL, ncut, nq, A, r, rd, w, Bb, Db)
    cvec = np.linalg.solve(Pu[:, :nu], gam)
    # forces: f and torque about the CG per body (global); base Q̂0
    gf, Q0 = _forces_gf(t, q, qd, nb, nbase, r[:nb], A[:nb], rd[:nb], w[:nb], mass, fkind, fbi, fbj, fsi, fsj,
                        fpar, fdir, fadr, flen, fops, fargs, 0.0, r0i, S, A0, grav, w0)
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
    return Myy, Qy, Ms, Qq, gEh, Mc, Pc, Q0


@njit(cache=True)
def evaluate_joint(t, q, qd, qt, iters, ints, ekind, epar, ech, ek, esp, esc, eax, eApc,
                   ckind, cbi, cbj, csi, csj, cz, cx, cy, cL, u, mass, Jb,
                   fkind, fbi, fbj, fsi, fsj, fpar, fdir, fadr, flen, fops, fargs,
                   m0, J0, r0i, S, A0, grav, M_out, Q_out, qdd_out):
    """One evaluation (all stages of every subsystem) at (t, q, q̇). The per-subsystem arrays
    are stacked on a leading axis (subsystems of one topology, e.g. the four corners of a car);
    ``qt`` (subsystems × tree coordinates) is the warm start, updated in place. Fills the
    protocol's M, Q and the synthesis accelerations (eq. 1 with Σ M̌, Σ P̌, then eq. 31 per
    subsystem). ints = (nb, nq, ncut, v, nbase, free base) per subsystem; a free base's q̇ maps to
    Ŷ0 = [ṙ0; ω0] through its Bryant angles (T, Td as in system.py)."""
    ns = ekind.shape[0]
    nbase = ints[0, 4]
    # the base motion: Ŷ0 = T q̇_base, Ẏ0 = T q̈_base + Td (system.py _base_motion)
    T = S.copy()
    Td = np.zeros(6)
    w0 = np.zeros(3)
    Ab = A0.copy()
    if ints[0, 5] == 1:                          # free base: translation + Bryant x-y-z angles
        a, b, g = q[3], q[4], q[5]
        ca, sa, cb, sb, cc, sc = np.cos(a), np.sin(a), np.cos(b), np.sin(b), np.cos(g), np.sin(g)
        Rx = np.array([[1.0, 0.0, 0.0], [0.0, ca, -sa], [0.0, sa, ca]])
        Ry = np.array([[cb, 0.0, sb], [0.0, 1.0, 0.0], [-sb, 0.0, cb]])
        Rz = np.array([[cc, -sc, 0.0], [sc, cc, 0.0], [0.0, 0.0, 1.0]])
        RxRy = Rx @ Ry
        Ab = RxRy @ Rz @ A0
        H = np.zeros((3, 3))
        H[0, 0] = 1.0
        H[:, 1] = Rx[:, 1]
        H[:, 2] = RxRy[:, 2]
        T[3:, 3:] = H
        w0 = H @ qd[3:6]
        w1 = qd[3] * H[:, 0]
        w2 = w1 + qd[4] * H[:, 1]
        Td[3:] = qd[4] * np.cross(w1, H[:, 1]) + qd[5] * np.cross(w2, H[:, 2])
    Jg0 = Ab @ J0 @ Ab.T
    Mb = np.zeros((6, 6))
    Mb[:3, :3] = m0 * np.eye(3)
    Mb[3:, 3:] = Jg0
    Mbase = Mb.copy()
    Mhat = Mb.copy()
    Qbase = np.zeros(6)
    Qbase[:3] = m0 * grav
    Qbase[3:] = -np.cross(w0, Jg0 @ w0)
    Phat = Qbase.copy()
    Qys = np.zeros((ns, 6))
    Mss = np.zeros(ns)
    Qqs = np.zeros(ns)
    M_out[:, :] = 0.0
    for s in range(ns):
        Myy, Qy, Ms, Qq, gEh, Mc, Pc, Q0s = _subsystem(
            t, q, qd, qt[s], iters, ints[s], ekind[s], epar[s], ech[s], ek[s], esp[s], esc[s], eax[s], eApc[s],
            ckind[s], cbi[s], cbj[s], csi[s], csj[s], cz[s], cx[s], cy[s], cL[s], u[s], mass[s], Jb[s],
            fkind[s], fbi[s], fbj[s], fsi[s], fsj[s], fpar[s], fdir[s], fadr[s], flen[s], fops, fargs,
            r0i, S, Ab, grav, q[nbase + s], qd[nbase + s], w0)
        Mbase += Myy
        Mhat += Mc
        Qbase += Q0s + gEh
        Phat += Q0s + Pc
        Qys[s] = Qy
        Mss[s] = Ms
        Qqs[s] = Qq
    # protocol M, Q (eq. 19 per subsystem) and the synthesis accelerations (eq. 1, eq. 31)
    M_out[:nbase, :nbase] = T.T @ Mbase @ T
    Q_out[:nbase] = T.T @ (Qbase - Mbase @ Td)
    for s in range(ns):
        SQ = T.T @ Qys[s]
        M_out[:nbase, nbase + s] = SQ
        M_out[nbase + s, :nbase] = SQ
        M_out[nbase + s, nbase + s] = Mss[s]
        Q_out[nbase + s] = Qqs[s] - Qys[s] @ Td
    xdd = np.linalg.solve(T.T @ Mhat @ T, T.T @ (Phat - Mhat @ Td))
    qdd_out[:nbase] = xdd
    Yd = T @ xdd + Td
    for s in range(ns):
        qdd_out[nbase + s] = (Qqs[s] - Qys[s] @ Yd) / Mss[s]


def pack(syn):
    """Flat arrays of a :class:`SynthesisSystem` in formulation B with 1-DOF subsystems of one
    topology (same tree and cut joints, e.g. the corners of a car), stacked on a leading axis;
    each subsystem carries the force elements that act on its bodies (elements between the base
    and the ground go with the first)."""
    from ..errors import SolverError
    from .description import BASE, GROUND

    sm = syn.sm
    if syn.formulation != "relative-joint" or not sm.subsystems:
        raise SolverError("compiled: the compiled kernel takes formulation B with one or more subsystems")
    per = []
    for si, (sub, tree) in enumerate(zip(sm.subsystems, syn._trees)):
        nb = len(sub.bodies)

        def bidx(k, nb=nb):
            return nb if k == BASE else k

        E, C = tree.edges, tree.cuts
        per.append(dict(
            ints=np.array([nb, tree.nq, tree.ncut, tree.v, syn.nbase, int(sm.base_free)], np.int64),
            ekind=np.array([0 if e[1] == "revolute" else 1 for e in E], np.int64),
            epar=np.array([bidx(e[2]) for e in E], np.int64),
            ech=np.array([bidx(e[3]) for e in E], np.int64),
            ek=np.array([e[8] for e in E], np.int64),
            esp=np.array([e[4] for e in E], float), esc=np.array([e[5] for e in E], float),
            eax=np.array([e[6] for e in E], float), eApc=np.array([e[7] for e in E], float),
            ckind=np.array([{"spherical": 0, "revolute": 1, "distance": 2}[c[1]] for c in C], np.int64),
            cbi=np.array([bidx(c[2]) for c in C], np.int64), cbj=np.array([bidx(c[3]) for c in C], np.int64),
            csi=np.array([c[4] for c in C], float), csj=np.array([c[5] for c in C], float),
            cz=np.array([c[6][:, 2] for c in C], float), cx=np.array([c[7][:, 0] for c in C], float),
            cy=np.array([c[7][:, 1] for c in C], float), cL=np.array([c[8] for c in C], float),
            u=np.array(tree.u, np.int64), mass=sub.mass.astype(float), Jb=sub.inertia.astype(float)))
    shape = [(k, v.shape) for k, v in per[0].items() if k != "ints"]
    for si, d in enumerate(per[1:], 1):
        same = [(k, v.shape) for k, v in d.items() if k != "ints"] == shape and \
            np.array_equal(d["ints"], per[0]["ints"]) and np.array_equal(d["ekind"], per[0]["ekind"]) \
            and np.array_equal(d["ckind"], per[0]["ckind"])
        if not same:
            raise SolverError(f"compiled: subsystem {sm.subsystems[si].bodies[0]} differs in topology from "
                              f"{sm.subsystems[0].bodies[0]}; the compiled kernel stacks subsystems of one topology")
    geo = tuple(np.stack([d[k] for d in per]) for k in per[0])
    return geo + pack_forces(sm, [len(sub.bodies) for sub in sm.subsystems])


def pack_forces(sm, nbs):
    """The force elements per subsystem (stacked, padded with kind −1) and the base as flat
    arrays (body keys: −2 ground, nb base, k body k of that subsystem; ``nbs`` bodies per
    subsystem). An element between two subsystems is refused."""
    from ..errors import SolverError
    from .description import BASE, GROUND

    ns = len(nbs)
    lists = [[] for _ in range(ns)]
    for f in sm.forces:
        subs = {k[0] for k in (f.bi, f.bj) if isinstance(k, tuple)}
        if len(subs) > 1:
            raise SolverError(f"compiled: force element '{f.name}' joins two subsystems; the compiled "
                              "kernel takes elements within one subsystem, to the base or the ground")
        lists[subs.pop() if subs else 0].append(f)
    nf = max(1, max(len(x) for x in lists))
    fkind = np.full((ns, nf), -1, np.int64)
    fbi = np.full((ns, nf), -2, np.int64)
    fbj = np.full((ns, nf), -2, np.int64)
    fsi, fsj, fdir = np.zeros((ns, nf, 3)), np.zeros((ns, nf, 3)), np.zeros((ns, nf, 3))
    fpar = np.zeros((ns, nf, 5))
    fadr = np.zeros((ns, nf), np.int64)
    flen = np.zeros((ns, nf), np.int64)
    ops, args = [], []
    for s, F in enumerate(lists):
        nb = nbs[s]

        def fkey(k):
            if k == GROUND:
                return -2
            if k == BASE:
                return nb
            return k[1]

        for e, f in enumerate(F):
            fkind[s, e] = 0 if f.kind == "spring" else 1
            fbi[s, e] = fkey(f.bi) if f.kind == "spring" else -2
            fbj[s, e] = fkey(f.bj)
            fsi[s, e], fsj[s, e] = f.si, f.sj
            fpar[s, e] = [f.k, f.c, f.L0, f.F0, f.value]
            fdir[s, e] = f.direction
            fadr[s, e] = len(ops)
            if f.fun is not None:
                ops += list(np.asarray(f.fun[0], float))
                args += list(np.asarray(f.fun[1], float))
                flen[s, e] = len(f.fun[0])
    return (fkind, fbi, fbj, fsi, fsj, fpar, fdir, fadr, flen,
            np.array(ops + [0.0], float), np.array(args + [0.0], float), float(sm.base_mass),
            np.asarray(sm.base_inertia, float), np.asarray(sm.base_r0, float), np.asarray(sm.base_S, float),
            np.asarray(sm.base_A, float), np.asarray(sm.gravity, float))
