"""Formulation B of Kim & Wang 2005 (§4): a subsystem in relative joint coordinates, built recursively
over a spanning tree, closed by cut-joint constraints and reduced by coordinate partitioning.

Tree: from the base, breadth first over the revolute (1 coordinate: the angle about the axis)
and spherical (3: x-y-z Bryant angles of the child relative to the parent, zero at the initial
configuration) joints in file order; a joint closing a loop, every distance joint (the massless
tie rod) and any joint named in ``cut`` are cut joints (eq. 27). Kinematics (global axes,
positions relative to the base CG): A_j = A_i R(q_j) A⁰_ij (eq. 23), r_j = r_i + A_i s'_ij − A_j s'_ji
(eq. 24); state vectors Ŷ_j = [ṙ_j + r̃*_j ω_j; ω_j] = Ŷ_i + B_j q̇_j (eq. 25), B_j = [p̃ H_j; H_j]
(p: the joint point, H_j: joint rates to relative angular velocity) and Ẏ̂_j = Ẏ̂_i + B_j q̈_j + D_j
(eq. 26). Eq. 29 is assembled by the backward recursion of composite state-space inertias
K_j = M̂_j + Σ K_children and forces; the independent coordinate v is the coordinate θ of the
revolute joint of formulation A (the same θ), u the others (a fixed partition, Φ_u checked
regular): eqs. 31-37.
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from . import opcount as oc
from .description import BASE, Subsystem
from .linalg import lu_factor, lu_solve, skew, solve, zeros


class Tree:
    """The spanning tree of one subsystem: ``edges`` in order (parent before child) as
    (joint, kind, parent, child, s_parent, s_child, axis in parent frame, A⁰ parent→child,
    first coordinate), ``cuts`` the cut joints, ``nq``, ``v`` (index of θ), ``u``."""

    def __init__(self, sub: Subsystem, cut=()):
        nb = len(sub.bodies)
        unknown = [c for c in cut if c not in [j[0] for j in sub.joints]]
        if unknown:
            raise ModelError("synthesis.cut", f"unknown joint '{unknown[0]}' (joints: "
                             f"{', '.join(j[0] for j in sub.joints)})")
        seen = {BASE}
        self.edges, self.cuts = [], []
        nq = 0
        A0 = {BASE: np.eye(3)}
        for k in range(nb):
            A0[k] = sub.A0[k]
        pending = [j for j in sub.joints]
        changed = True
        while changed:
            changed = False
            for j in list(pending):
                name, kind, bi, bj, si, sj, Ci, Cj, L = j
                if kind == "distance" or name in cut:
                    continue
                if (bi in seen) == (bj in seen):
                    continue
                if bi in seen:
                    p, c, sp, sc, ax = bi, bj, si, sj, Ci[:, 2]
                else:
                    p, c, sp, sc, ax = bj, bi, sj, si, Cj[:, 2]
                ncoord = 1 if kind == "revolute" else 3
                self.edges.append((name, kind, p, c, sp, sc, ax, A0[p].T @ A0[c], nq))
                nq += ncoord
                seen.add(c)
                pending.remove(j)
                changed = True
        missing = [sub.bodies[k] for k in range(nb) if k not in seen]
        if missing:
            raise ModelError("synthesis.cut", f"cutting {', '.join(cut) or 'the distance joints'} leaves "
                             f"the tree disconnected: {', '.join(missing)} not reached from the base")
        self.cuts = [j for j in sub.joints if j in pending]
        self.nq = nq
        self.parent = {e[3]: e[2] for e in self.edges}
        self.edge_of = {e[3]: i for i, e in enumerate(self.edges)}
        th = [e for e in self.edges if e[0] == sub.theta_joint]
        if not th or th[0][1] != "revolute":
            raise ModelError("synthesis.cut", f"the θ joint '{sub.theta_joint}' must be a tree joint")
        self.v = th[0][8]
        self.u = [i for i in range(nq) if i != self.v]
        self.ncut = sum({"spherical": 3, "revolute": 5, "distance": 1}[j[1]] for j in self.cuts)
        if self.nq - self.ncut != sub.ndof:
            raise ModelError("synthesis.cut", f"{self.nq} tree coordinates − {self.ncut} cut equations "
                             f"≠ {sub.ndof} degrees of freedom")


def _rot_axis(u, q):
    """R(u, q) = I + sin q ũ + (1 − cos q) ũ² (u a unit vector)."""
    U = skew(u)
    return np.eye(3) + oc.sin(q) * U + (1.0 - oc.cos(q)) * (U @ U)


def _bryant(a, b, c):
    """Rx(a) Ry(b) Rz(c) and its axes e_x, Rx e_y, Rx Ry e_z (columns of H in the parent frame)."""
    ca, sa, cb, sb, cc, sc = oc.cos(a), oc.sin(a), oc.cos(b), oc.sin(b), oc.cos(c), oc.sin(c)
    Rx = np.array([[1.0, 0.0, 0.0], [0.0, ca, -sa], [0.0, sa, ca]], dtype=object if isinstance(a, oc.Op) else float)
    Ry = np.array([[cb, 0.0, sb], [0.0, 1.0, 0.0], [-sb, 0.0, cb]], dtype=Rx.dtype)
    Rz = np.array([[cc, -sc, 0.0], [sc, cc, 0.0], [0.0, 0.0, 1.0]], dtype=Rx.dtype)
    RxRy = Rx @ Ry
    H = zeros((3, 3), Rx)
    H[0, 0] = 1.0
    H[:, 1] = Rx[:, 1]
    H[:, 2] = RxRy[:, 2]
    return RxRy @ Rz, H


def kinematics(tree: Tree, sub: Subsystem, A0, q, qd, w0=None):
    """Position and velocity (eqs. 23-26): per body A (global), r* (relative to the base CG),
    ṙ*, ω, the joint points p*, B̄_j (6 × nq) and D̄_j (6) on the path from the base. ``w0``: the
    base's angular velocity (global; None: 0). Positions and velocities are taken in the frame
    translating with the base CG, so the base's state vector there is [0; ω0]; its acceleration
    [r̈0; ω̇0] enters as Ẏ0 of eq. 1 (r̈0 as the inertial force of the translating frame)."""
    nb = len(sub.bodies)
    A, r, rd, w, Bb, Db = {}, {}, {}, {}, {}, {}
    A[BASE] = A0
    r[BASE] = zeros(3, q)
    rd[BASE] = zeros(3, q)
    w[BASE] = zeros(3, q) if w0 is None else w0
    Bb[BASE] = zeros((6, tree.nq), q)
    Db[BASE] = zeros(6, q)
    for name, kind, p, c, sp, sc, ax, Apc, k in tree.edges:
        if kind == "revolute":
            R = _rot_axis(ax, q[k])
            H = (A[p] @ ax).reshape(3, 1)
            qj = q[k:k + 1]
            qdj = qd[k:k + 1]
            Hdq = zeros(3, q)
        else:
            R, Hp = _bryant(q[k], q[k + 1], q[k + 2])
            H = A[p] @ Hp
            qj, qdj = q[k:k + 3], qd[k:k + 3]
            # d/dt of the columns (relative part): α̇ e_x × (Rx e_y) β̇ + (α̇ e_x + β̇ Rx e_y) × (RxRy e_z) γ̇
            ex = Hp[:, 0]
            w1 = qdj[0] * ex
            w2 = w1 + qdj[1] * Hp[:, 1]
            Hdq = A[p] @ (qdj[1] * (skew(w1) @ Hp[:, 1]) + qdj[2] * (skew(w2) @ Hp[:, 2]))
        A[c] = A[p] @ R @ Apc
        sg = A[p] @ sp
        pstar = r[p] + sg
        r[c] = pstar - A[c] @ sc
        Om = H @ qdj
        w[c] = w[p] + Om
        pd = rd[p] + skew(w[p]) @ sg
        rd[c] = pd + skew(w[c]) @ (r[c] - pstar)
        Hdq = Hdq + skew(w[p]) @ Om                        # Ḣ q̇ (parent's rotation)
        P = skew(pstar)
        B = zeros((6, H.shape[1]), q)
        B[:3] = P @ H
        B[3:] = H
        Bb[c] = Bb[p].copy()
        Bb[c][:, k:k + H.shape[1]] = B
        D = zeros(6, q)
        D[:3] = skew(pd) @ Om + P @ Hdq
        D[3:] = Hdq
        Db[c] = Db[p] + D
    return dict(A=A, r=r, rd=rd, w=w, B=Bb, D=Db)


def _pt(kin, k, s):
    """Point s of body k: relative position p*, relative velocity, Jacobian [I, −p̃*] B̄ (3 × nq)
    and the velocity-dependent part of its relative acceleration [I, −p̃*] D̄ + ω × ṗ*."""
    A, r, rd, w = kin["A"][k], kin["r"][k], kin["rd"][k], kin["w"][k]
    sg = A @ s
    p = r + sg
    v = rd + skew(w) @ sg
    P = skew(p)
    J = kin["B"][k][:3] - P @ kin["B"][k][3:]
    c = kin["D"][k][:3] - P @ kin["D"][k][3:] + skew(w) @ v
    return p, v, J, c


def cut_constraints(tree: Tree, kin, q, velocity_terms=True):
    """Φ (eq. 27), Φ_q and γ̄ of the cut joints."""
    rows = tree.ncut
    phi = zeros(rows, q)
    Pq = zeros((rows, tree.nq), q)
    g = zeros(rows, q)
    i = 0
    for name, kind, bi, bj, si, sj, Ci, Cj, L in tree.cuts:
        pi, vi, Ji, ci = _pt(kin, bi, si)
        pj, vj, Jj, cj = _pt(kin, bj, sj)
        d = pj - pi
        if kind in ("spherical", "revolute"):
            phi[i:i + 3] = d
            Pq[i:i + 3] = Jj - Ji
            g[i:i + 3] = ci - cj
            i += 3
        if kind == "revolute":
            for bx in (Cj[:, 0], Cj[:, 1]):
                a = kin["A"][bi] @ Ci[:, 2]
                b = kin["A"][bj] @ bx
                wi, wj = kin["w"][bi], kin["w"][bj]
                phi[i] = a @ b
                Pq[i] = (skew(a) @ b) @ kin["B"][bi][3:] - (skew(a) @ b) @ kin["B"][bj][3:]
                ad, bd = skew(wi) @ a, skew(wj) @ b
                g[i] = -(b @ (skew(wi) @ ad) + a @ (skew(wj) @ bd) + 2.0 * (ad @ bd)
                         + b @ (skew(kin["D"][bi][3:]) @ a) + a @ (skew(kin["D"][bj][3:]) @ b))
                i += 1
        if kind == "distance":
            phi[i] = 0.5 * (d @ d - L * L)
            Pq[i] = d @ (Jj - Ji)
            dd = vj - vi
            g[i] = -(dd @ dd + d @ (cj - ci))
            i += 1
    return phi, Pq, g


def position(tree: Tree, sub: Subsystem, A0, q, iterations: int):
    """Position stage: ``iterations`` Newton steps on Φ(u, v) = 0 for u (v = θ given)."""
    q = q.copy()
    for _ in range(iterations):
        kin = kinematics(tree, sub, A0, q, zeros(tree.nq, q))
        phi, Pq, _ = cut_constraints(tree, kin, q)
        du = solve(Pq[:, tree.u], -phi)
        for n, k in enumerate(tree.u):
            q[k] = q[k] + du[n]
    return q


def velocity(tree: Tree, sub: Subsystem, A0, q, thetad):
    """Velocity stage: Φ_u (its LU factors, returned for the RHS stage), Φ_v, R = Φ_u⁻¹Φ_v and q̇
    (u̇ = −R v̇, eq. 32 with γ = 0 at velocity level)."""
    kin = kinematics(tree, sub, A0, q, zeros(tree.nq, q))
    _, Pq, _ = cut_constraints(tree, kin, q)
    Pu = lu_factor(Pq[:, tree.u])
    R = lu_solve(Pu, Pq[:, [tree.v]])
    qd = zeros(tree.nq, q)
    qd[tree.v] = thetad
    qd[tree.u] = -R[:, 0] * thetad
    return Pu, R, qd


def rhs(tree: Tree, sub: Subsystem, A0, q, qd, Pu, w0=None):
    """RHS stage: the kinematics with velocities (B̄, D̄), γ̄ and c = Φ_u⁻¹γ̄ (``Pu``: the velocity
    stage's LU factors of Φ_u)."""
    kin = kinematics(tree, sub, A0, q, qd, w0)
    _, _, g = cut_constraints(tree, kin, q)
    return kin, lu_solve(Pu, g)


def mass_force(tree: Tree, sub: Subsystem, kin, forces_g):
    """Mass/force stage: state-space M̂_j, Q̂_j of each body and eq. 29's M̄_yy, M̄_yq, M̄_qq, P̄_y,
    P̄_q by the backward recursion of composite inertias (``forces_g``: (nb, 6) f and the torque
    about the CG, global)."""
    nb = len(sub.bodies)
    q0 = kin["D"][BASE]
    K, F = {}, {}
    for k in range(nb):
        A, rs, w = kin["A"][k], kin["r"][k], kin["w"][k]
        m = sub.mass[k]
        Jg = A @ sub.inertia[k] @ A.T
        Rs = skew(rs)
        Mh = zeros((6, 6), q0)
        Mh[:3, :3] = m * np.eye(3)
        Mh[:3, 3:] = -m * Rs
        Mh[3:, :3] = m * Rs
        Mh[3:, 3:] = Jg - m * (Rs @ Rs)
        f = forces_g[k, :3] + m * (skew(kin["rd"][k]) @ w)
        n = forces_g[k, 3:] - skew(w) @ (Jg @ w)
        Qh = zeros(6, q0)
        Qh[:3] = f
        Qh[3:] = Rs @ f + n
        K[k] = Mh
        F[k] = Qh - Mh @ kin["D"][k]
    for e in reversed(tree.edges):                      # children before parents
        c, p = e[3], e[2]
        if p != BASE:
            K[p] = K[p] + K[c]
            F[p] = F[p] + F[c]
    nq = tree.nq
    Myy = zeros((6, 6), q0)
    Py = zeros(6, q0)
    Myq = zeros((6, nq), q0)
    Mqq = zeros((nq, nq), q0)
    Pq = zeros(nq, q0)
    cols = {}
    for name, kind, p, c, sp, sc, ax, Apc, k in tree.edges:
        B = kin["B"][c][:, k:k + (1 if kind == "revolute" else 3)]
        cols[c] = (k, B)
        if p == BASE:
            Myy = Myy + K[c]
            Py = Py + F[c]
        KB = K[c] @ B
        Myq[:, k:k + B.shape[1]] = KB
        Pq[k:k + B.shape[1]] = B.T @ F[c]
        # couplings with the joints on the path to the base: B_aᵀ K_c B_c
        a = c
        while a != BASE:
            ka, Ba = cols[a]
            blk = Ba.T @ KB
            Mqq[ka:ka + Ba.shape[1], k:k + B.shape[1]] = blk
            Mqq[k:k + B.shape[1], ka:ka + Ba.shape[1]] = blk.T
            a = tree.parent[a]
    return Myy, Myq, Mqq, Py, Pq


def effective(tree: Tree, Myy, Myq, Mqq, Py, Pq, R, c):
    """Effective mass/force stage (eqs. 31-37): M*, Q*_q, Q*_y, M̌, P̌ (v = θ)."""
    u, v = tree.u, [tree.v]
    Muu, Muv, Mvv = Mqq[np.ix_(u, u)], Mqq[np.ix_(u, v)], Mqq[np.ix_(v, v)]
    Myu, Myv = Myq[:, u], Myq[:, v]
    Ms = Mvv - Muv.T @ R - R.T @ Muv + R.T @ (Muu @ R)               # eq. 33
    Qq = Pq[v] - Muv.T @ c - R.T @ Pq[u] + R.T @ (Muu @ c)           # eq. 34
    Qy = (Myv - Myu @ R).T                                          # eq. 35
    gEh = Py - Myu @ c
    X = solve(Ms, np.concatenate([Qy, Qq.reshape(-1, 1)], axis=1))
    Mc = Myy - Qy.T @ X[:, :6]                                      # eq. 36
    Pc = gEh - Qy.T @ X[:, 6]                                       # eq. 37
    return Qy.T, Ms, Qq, Mc, Pc, gEh
