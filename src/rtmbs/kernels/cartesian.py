"""Evaluation of a body model in dependent Cartesian coordinates (numba, no allocation).

Every body b has coordinates (r, p): position of its centre of mass and orientation
coordinates p (Euler parameters or zxz angles, see :mod:`rotations`). Constraints and forces are
written first in *virtual* coordinates x_b = (δr, δπ) (δπ a global infinitesimal rotation) with
velocities v_b = (ṙ, ω) (global), and mapped to q with L_b = blockdiag(I, G_b):

    Φq = D L,      γ = −(β + D_π α)      (Φ̈ = D v̇ + β,  ω̇ = G p̈ + α)
    Q_q = Lᵀ Q_x,  Jq̇ = Lᵀ C L,  Jq = Lᵀ K L + Lᵀ C_ω W + (∂Gᵀ/∂p) T

with D = ∂Φ/∂x, K = ∂Q_x/∂x at fixed (ṙ, ω), C = ∂Q_x/∂v, W = ∂ω/∂p (seed 003 §4.2;
seed 000 eqs. 1, 3, 23). The mass matrix is blockdiag(m I, Gᵀ J_g G) and the inertia term
−ω̃ J_g ω − J_g α is part of Q (J_g = A J' Aᵀ).
"""
from __future__ import annotations

import math

from numba import njit

from .functions import fun_eval
from .rotations import NROT, ROT_EP, _ep_E, ep_to_matrix, rotation_data

from .codes import (_GAMMA, _JAC, _JACS, _M, _PACKED, _PHI, _PHIQ, _Q, NFOUT, NFPAR,  # noqa: F401
                    PRIM_CPL, PRIM_DIST, PRIM_DOT1, PRIM_DOT2, PRIM_ROTDRV, PRIM_ROWS, PRIM_SPH, SEG)


@njit(cache=True, inline="always")
def _cross(a, b, out):
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@njit(cache=True, inline="always")
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True, inline="always")
def _matvec(A, x, out):
    for i in range(3):
        out[i] = A[i, 0] * x[0] + A[i, 1] * x[1] + A[i, 2] * x[2]


@njit(cache=True, inline="always")
def _skew(v, out):
    out[0, 0] = 0.0
    out[0, 1] = -v[2]
    out[0, 2] = v[1]
    out[1, 0] = v[2]
    out[1, 1] = 0.0
    out[1, 2] = -v[0]
    out[2, 0] = -v[1]
    out[2, 1] = v[0]
    out[2, 2] = 0.0


@njit(cache=True, fastmath={"contract"}, inline="always")
def body_kinematics(q, qd, body_qadr, body_rtype, kin_r, kin_rd, kin_A, kin_G, kin_dG, kin_W,
                    kin_w, kin_alpha, kin_dadp, kin_dadpd, d2G, velocities=True):
    """Positions, rotation matrices, angular velocities and orientation maps of all bodies.
    Without ``velocities`` (an evaluation of Φ, Φq only) the Euler-parameter bodies get r, A and G
    only: their ṙ, ω, W keep what an earlier evaluation left.

    For Euler-parameter bodies kin_dG (constant), kin_alpha, kin_dadp and kin_dadpd (zero) are
    set once at compile time and not written here.

    The last slot (index nb) is the ground: at rest at the origin.
    """
    nb = body_qadr.shape[0] - 1
    for b in range(nb):
        a = body_qadr[b]
        rt = body_rtype[b]
        nr = NROT[rt]
        for k in range(3):
            kin_r[b, k] = q[a + k]
        if rt == ROT_EP:  # ∂G/∂p is constant (set at compile time), α = 0, W = ∂(2Eṗ)/∂p = −2E(ṗ)
            ep_to_matrix(q[a + 3:a + 7], kin_A[b])
            _ep_E(q[a + 3], q[a + 4], q[a + 5], q[a + 6], kin_G[b], 2.0)
            if not velocities:
                continue
            _ep_E(qd[a + 3], qd[a + 4], qd[a + 5], qd[a + 6], kin_W[b], -2.0)
        else:
            rotation_data(rt, q[a + 3:a + 3 + nr], qd[a + 3:a + 3 + nr], kin_A[b], kin_G[b], kin_dG[b],
                          kin_W[b], kin_alpha[b], kin_dadp[b], kin_dadpd[b], d2G)
        for k in range(3):
            kin_rd[b, k] = qd[a + k]
        for k in range(3):
            s = 0.0
            for l in range(nr):
                s += kin_G[b, k, l] * qd[a + 3 + l]
            kin_w[b, k] = s
    g = nb
    for k in range(3):
        kin_r[g, k] = 0.0
        kin_rd[g, k] = 0.0
        kin_w[g, k] = 0.0
        kin_alpha[g, k] = 0.0
        for l in range(3):
            kin_A[g, k, l] = 1.0 if k == l else 0.0


@njit(cache=True)
def body_accelerations(q, qd, qdd, body_qadr, body_rtype, A, G, dG, W, alpha, dadp, dadpd, d2G, out):
    """Per body: acceleration of the centre of mass r̈ and angular acceleration ω̇ = G p̈ + α
    (global axes), six values per body into ``out``; A..d2G are one body's scratch."""
    nb = body_qadr.shape[0] - 1
    for b in range(nb):
        a = body_qadr[b]
        nr = NROT[body_rtype[b]]
        rotation_data(body_rtype[b], q[a + 3:a + 3 + nr], qd[a + 3:a + 3 + nr], A, G, dG, W, alpha, dadp,
                      dadpd, d2G)
        for k in range(3):
            out[6 * b + k] = qdd[a + k]
            s = alpha[k]
            for l in range(nr):
                s += G[k, l] * qdd[a + 3 + l]
            out[6 * b + 3 + k] = s


@njit(cache=True, inline="always")
def _skew_into(D, r0, c0, v, sg):
    """D[r0:r0+3, c0:c0+3] = sg·ṽ."""
    D[r0, c0] = 0.0
    D[r0, c0 + 1] = -sg * v[2]
    D[r0, c0 + 2] = sg * v[1]
    D[r0 + 1, c0] = sg * v[2]
    D[r0 + 1, c0 + 1] = 0.0
    D[r0 + 1, c0 + 2] = -sg * v[0]
    D[r0 + 2, c0] = -sg * v[1]
    D[r0 + 2, c0 + 1] = sg * v[0]
    D[r0 + 2, c0 + 2] = 0.0


@njit(cache=True, inline="always")
def _point(b, s_loc, kin_r, kin_rd, kin_A, kin_w, sg, rp, vp, ab, tmp, vel):
    """Global arm sg = A s, point rp; with ``vel`` its velocity vp and bias acceleration
    ω×(ω×sg)."""
    _matvec(kin_A[b], s_loc, sg)
    for k in range(3):
        rp[k] = kin_r[b, k] + sg[k]
    if vel:
        _cross(kin_w[b], sg, tmp)
        for k in range(3):
            vp[k] = kin_rd[b, k] + tmp[k]
        _cross(kin_w[b], tmp, ab)


@njit(cache=True, inline="always")
def _vector(b, a_loc, kin_A, kin_w, ag, ad, ab, vel):
    """Global body-fixed vector ag; with ``vel`` its rate ω×ag and bias acceleration ω×(ω×ag)."""
    _matvec(kin_A[b], a_loc, ag)
    if vel:
        _cross(kin_w[b], ag, ad)
        _cross(kin_w[b], ad, ab)


@njit(cache=True, inline="always")
def _add_vec_point_jac(D, row, col, c, v, sg):
    """D[row, col:col+6] += c·vᵀ[I, −s̃g] = c·[vᵀ, (sg × v)ᵀ]."""
    D[row, col + 0] += c * v[0]
    D[row, col + 1] += c * v[1]
    D[row, col + 2] += c * v[2]
    D[row, col + 3] += c * (sg[1] * v[2] - sg[2] * v[1])
    D[row, col + 4] += c * (sg[2] * v[0] - sg[0] * v[2])
    D[row, col + 5] += c * (sg[0] * v[1] - sg[1] * v[0])


@njit(cache=True, fastmath={"contract"}, inline="always")
def constraint_rows(t, prim_type, prim_row, prim_body, prim_vec, prim_par, prim_fun,
                    fun_type, fun_par, fun_tab, tab_adr, tab_len, tab_x, tab_y,
                    kin_r, kin_rd, kin_A, kin_w, phi, phit, Dx, beta, tmp, tmpm, with_d=True,
                    with_bias=True):
    """Φ, Φt and, with ``with_d``, D = ∂Φ/∂x (m×12: body i then body j), with ``with_bias`` the
    bias β of Φ̈ = D v̇ + β (time terms folded into β), for every primitive row. The bias needs
    the bodies' velocities (``body_kinematics`` with them) and D."""
    npr = prim_type.shape[0]
    sgi = tmp[0]; rpi = tmp[1]; vpi = tmp[2]; abi = tmp[3]
    sgj = tmp[4]; rpj = tmp[5]; vpj = tmp[6]; abj = tmp[7]
    ai = tmp[8]; adi = tmp[9]; abai = tmp[10]
    aj = tmp[11]; adj = tmp[12]; abaj = tmp[13]
    d = tmp[14]; dd = tmp[15]; w = tmp[16]; c1 = tmp[17]
    bi_ = tmp[18]; bdi = tmp[19]; bbi = tmp[20]
    vel = with_bias
    aux = phi.shape[0]  # Dx / beta row of the next coupler term
    for k in range(npr):
        ty = prim_type[k]
        r0 = prim_row[k]
        bi = prim_body[k, 0]
        bj = prim_body[k, 1]
        v = prim_vec[k]
        if ty == PRIM_CPL:
            if k == 0 or prim_type[k - 1] != PRIM_CPL or prim_row[k - 1] != r0:
                phi[r0] = 0.0
                phit[r0] = 0.0
            _coupler_term(prim_par[k, 0] != 0.0, bi, bj, v, kin_r, kin_rd, kin_A, kin_w, phi, Dx, beta,
                          r0, aux, tmp, with_d, with_bias)
            aux += 1
            continue
        f = prim_fun[k]
        fv, fd, fdd = 0.0, 0.0, 0.0
        if f >= 0:
            fv, fd, fdd = fun_eval(f, t, fun_type, fun_par, fun_tab, tab_adr, tab_len, tab_x, tab_y)
        nrow = 3 if ty == PRIM_SPH else 1
        for r in range(r0, r0 + nrow):
            phit[r] = 0.0
            if with_bias:
                beta[r] = 0.0
            if with_d and ty != PRIM_SPH:  # (spherical rows write all 12 entries below)
                for c in range(12):
                    Dx[r, c] = 0.0
        if ty == PRIM_SPH or ty == PRIM_DOT2 or ty == PRIM_DIST:
            _point(bi, v[0], kin_r, kin_rd, kin_A, kin_w, sgi, rpi, vpi, abi, w, vel)
            _point(bj, v[1], kin_r, kin_rd, kin_A, kin_w, sgj, rpj, vpj, abj, w, vel)
            for c in range(3):
                d[c] = rpj[c] - rpi[c]
                if vel:
                    dd[c] = vpj[c] - vpi[c]
        if ty == PRIM_SPH:
            for c in range(3):
                r = r0 + c
                phi[r] = d[c]
                if with_bias:
                    beta[r] = abj[c] - abi[c]
                if with_d:
                    for e in range(3):
                        Dx[r, e] = -1.0 if e == c else 0.0
                        Dx[r, 6 + e] = 1.0 if e == c else 0.0
            if with_d:  # ∂d/∂π_i = s̃g_i, ∂d/∂π_j = −s̃g_j   (δr_P = δr − s̃g δπ)
                _skew_into(Dx, r0, 3, sgi, 1.0)
                _skew_into(Dx, r0, 9, sgj, -1.0)
        elif ty == PRIM_DOT1:
            _vector(bi, v[2], kin_A, kin_w, ai, adi, abai, vel)
            _vector(bj, v[3], kin_A, kin_w, aj, adj, abaj, vel)
            phi[r0] = _dot(ai, aj)
            if with_d:
                _cross(ai, aj, c1)
                for c in range(3):
                    Dx[r0, 3 + c] = c1[c]
                    Dx[r0, 9 + c] = -c1[c]
            if with_bias:
                beta[r0] = _dot(abai, aj) + 2.0 * _dot(adi, adj) + _dot(ai, abaj)
        elif ty == PRIM_DOT2:
            _vector(bi, v[2], kin_A, kin_w, ai, adi, abai, vel)
            phi[r0] = _dot(ai, d) - fv
            phit[r0] = -fd
            if with_d:
                # D_ri = −a_iᵀ, D_πi = (a_i × (d + sg_i))ᵀ, D_rj = a_iᵀ, D_πj = −(a_i × sg_j)ᵀ
                for c in range(3):
                    w[c] = d[c] + sgi[c]
                _cross(ai, w, c1)
                for c in range(3):
                    Dx[r0, c] = -ai[c]
                    Dx[r0, 3 + c] = c1[c]
                    Dx[r0, 6 + c] = ai[c]
                _cross(ai, sgj, c1)
                for c in range(3):
                    Dx[r0, 9 + c] = -c1[c]
            if with_bias:
                s = 0.0
                for c in range(3):
                    s += ai[c] * (abj[c] - abi[c])
                beta[r0] = _dot(abai, d) + 2.0 * _dot(adi, dd) + s - fdd
        elif ty == PRIM_DIST:
            L = prim_par[k, 0]
            Ld, Ldd = 0.0, 0.0
            if f >= 0:
                L, Ld, Ldd = fv, fd, fdd
            phi[r0] = _dot(d, d) - L * L
            phit[r0] = -2.0 * L * Ld
            if with_d:
                _add_vec_point_jac(Dx, r0, 6, 2.0, d, sgj)
                _add_vec_point_jac(Dx, r0, 0, -2.0, d, sgi)
            if with_bias:
                s = 0.0
                for c in range(3):
                    s += d[c] * (abj[c] - abi[c])
                beta[r0] = 2.0 * _dot(dd, dd) + 2.0 * s - 2.0 * (Ld * Ld + L * Ldd)
        else:  # PRIM_ROTDRV: cos θ (b_i·a_j) − sin θ (a_i·a_j)
            _vector(bi, v[2], kin_A, kin_w, ai, adi, abai, vel)
            _vector(bi, v[4], kin_A, kin_w, bi_, bdi, bbi, vel)
            _vector(bj, v[3], kin_A, kin_w, aj, adj, abaj, vel)
            co, si = math.cos(fv), math.sin(fv)
            p1 = _dot(bi_, aj)
            p2 = _dot(ai, aj)
            phi[r0] = co * p1 - si * p2
            phit[r0] = -fd * (si * p1 + co * p2)
            if with_d:
                _cross(bi_, aj, c1)
                for c in range(3):
                    Dx[r0, 3 + c] += co * c1[c]
                    Dx[r0, 9 + c] -= co * c1[c]
                _cross(ai, aj, c1)
                for c in range(3):
                    Dx[r0, 3 + c] -= si * c1[c]
                    Dx[r0, 9 + c] += si * c1[c]
            if with_bias:
                p1d = _dot(bdi, aj) + _dot(bi_, adj)
                p2d = _dot(adi, aj) + _dot(ai, adj)
                b1 = _dot(bbi, aj) + 2.0 * _dot(bdi, adj) + _dot(bi_, abaj)
                b2 = _dot(abai, aj) + 2.0 * _dot(adi, adj) + _dot(ai, abaj)
                beta[r0] = (co * b1 - si * b2 - 2.0 * fd * (si * p1d + co * p2d)
                            - fdd * (si * p1 + co * p2) - fd * fd * (co * p1 - si * p2))


@njit(cache=True, fastmath={"contract"}, inline="always")
def _coupler_term(rotation, bi, bj, v, kin_r, kin_rd, kin_A, kin_w, phi, Dx, beta, r0, dr, tmp,
                  with_d, with_bias):
    """Add c (s − s0) of one coupler term to Φ[r0] (wrapped into [−P/2, P/2) when P > 0); with
    ``with_d`` its D row (times c) into Dx[dr], with ``with_bias`` its bias (times c) into
    beta[dr]. Rotation: α = x_iᵀx_j, β = y_iᵀx_j,
    θ = atan2(β, α), ∂θ/∂π_i = g = [α (y_i × x_j) − β (x_i × x_j)]/(α² + β²) = −∂θ/∂π_j and
    θ̈ = D v̇ + (α b_β − β b_α)/ρ² − 2 θ̇ (α α̇ + β β̇)/ρ² (b_α, b_β: the dot-1 biases, ρ² = α² + β²).
    Translation: the offset row (dot-2) with a_i = z_i and s(t) = 0."""
    c, s0, per = v[5, 0], v[5, 1], v[5, 2]
    vel = with_bias
    if with_d:
        for e in range(12):
            Dx[dr, e] = 0.0
    xi = tmp[21]; xid = tmp[22]; xib = tmp[23]
    xj = tmp[24]; xjd = tmp[25]; xjb = tmp[26]
    yi = tmp[27]; yid = tmp[28]; yib = tmp[29]
    g = tmp[30]; u = tmp[31]
    bias = 0.0
    if rotation:
        _vector(bi, v[2], kin_A, kin_w, xi, xid, xib, vel)
        _vector(bi, v[4], kin_A, kin_w, yi, yid, yib, vel)
        _vector(bj, v[3], kin_A, kin_w, xj, xjd, xjb, vel)
        al = _dot(xi, xj)
        be = _dot(yi, xj)
        rho2 = al * al + be * be
        if rho2 < 1e-30:
            rho2 = 1e-30
        val = math.atan2(be, al)
        if with_bias:
            ald = _dot(xid, xj) + _dot(xi, xjd)
            bed = _dot(yid, xj) + _dot(yi, xjd)
            ba = _dot(xib, xj) + 2.0 * _dot(xid, xjd) + _dot(xi, xjb)
            bb = _dot(yib, xj) + 2.0 * _dot(yid, xjd) + _dot(yi, xjb)
            thd = (al * bed - be * ald) / rho2
            bias = (al * bb - be * ba) / rho2 - 2.0 * thd * (al * ald + be * bed) / rho2
        if with_d:
            _cross(yi, xj, g)
            _cross(xi, xj, u)
            for e in range(3):
                ge = c * (al * g[e] - be * u[e]) / rho2
                Dx[dr, 3 + e] = ge
                Dx[dr, 9 + e] = -ge
    else:
        sgi = tmp[0]; rpi = tmp[1]; vpi = tmp[2]; abi = tmp[3]
        sgj = tmp[4]; rpj = tmp[5]; vpj = tmp[6]; abj = tmp[7]
        d = tmp[14]; dd = tmp[15]; w = tmp[16]
        _point(bi, v[0], kin_r, kin_rd, kin_A, kin_w, sgi, rpi, vpi, abi, w, vel)
        _point(bj, v[1], kin_r, kin_rd, kin_A, kin_w, sgj, rpj, vpj, abj, w, vel)
        for e in range(3):
            d[e] = rpj[e] - rpi[e]
            if vel:
                dd[e] = vpj[e] - vpi[e]
        _vector(bi, v[2], kin_A, kin_w, xi, xid, xib, vel)  # z_i
        val = _dot(xi, d)
        if with_bias:
            bias = _dot(xib, d) + 2.0 * _dot(xid, dd)
            for e in range(3):
                bias += xi[e] * (abj[e] - abi[e])
        if with_d:
            for e in range(3):
                w[e] = d[e] + sgi[e]
            _cross(xi, w, g)
            _cross(xi, sgj, u)
            for e in range(3):
                Dx[dr, e] = -c * xi[e]
                Dx[dr, 3 + e] = c * g[e]
                Dx[dr, 6 + e] = c * xi[e]
                Dx[dr, 9 + e] = -c * u[e]
    if with_bias:
        beta[dr] = c * bias
    x = phi[r0] + c * (val - s0)
    if per > 0.0:
        x -= per * math.floor(x / per + 0.5)
    phi[r0] = x


@njit(cache=True, inline="always")
def _phiq_row(phiq, r, a, Dx, dr, c0, d0, d1, d2, G, nr, add):
    """Row r of Φq on one body from column a: [D_r, D_π G] (D from Dx row dr); with ``add``
    added to what the row holds (coupler terms share a row of the dense Φq)."""
    if add:
        phiq[r, a] += Dx[dr, c0]
        phiq[r, a + 1] += Dx[dr, c0 + 1]
        phiq[r, a + 2] += Dx[dr, c0 + 2]
        for l in range(nr):
            phiq[r, a + 3 + l] += d0 * G[0, l] + d1 * G[1, l] + d2 * G[2, l]
    else:
        phiq[r, a] = Dx[dr, c0]
        phiq[r, a + 1] = Dx[dr, c0 + 1]
        phiq[r, a + 2] = Dx[dr, c0 + 2]
        for l in range(nr):
            phiq[r, a + 3 + l] = d0 * G[0, l] + d1 * G[1, l] + d2 * G[2, l]


@njit(cache=True, fastmath={"contract"}, inline="always")
def _row_sides(k, pr, dr, add, packed, with_phiq, prim_body, body_qadr, body_rtype, q, kin_G, kin_alpha,
               Dx, beta, phiq):
    """Φq row ``pr`` = D L of primitive k from Dx row ``dr``, side by side (dense: at the body's
    columns; packed: side s at column SEG·s); returns its γ = −(β + D_π α)."""
    g = -beta[dr]
    for side in range(2):
        b = prim_body[k, side]
        a = body_qadr[b]
        if a < 0:
            continue
        pa = SEG * side if packed else a
        c0 = 6 * side
        d0, d1, d2 = Dx[dr, c0 + 3], Dx[dr, c0 + 4], Dx[dr, c0 + 5]
        G = kin_G[b]
        if body_rtype[b] == ROT_EP:  # α = 0; four columns (unrolled)
            if with_phiq:  # Φ sees R(p/|p|): ∂π/∂p = 2E(p)/|p|², exact in every direction
                s = 1.0 / (q[a + 3] * q[a + 3] + q[a + 4] * q[a + 4] + q[a + 5] * q[a + 5]
                           + q[a + 6] * q[a + 6])
                _phiq_row(phiq, pr, pa, Dx, dr, c0, s * d0, s * d1, s * d2, G, 4, add)
        else:
            if with_phiq:
                _phiq_row(phiq, pr, pa, Dx, dr, c0, d0, d1, d2, G, NROT[body_rtype[b]], add)
            g -= d0 * kin_alpha[b, 0] + d1 * kin_alpha[b, 1] + d2 * kin_alpha[b, 2]
    return g


@njit(cache=True, fastmath={"contract"}, inline="always")
def scatter_constraints(what, prim_type, prim_row, prim_body, body_qadr, body_rtype, body_eprow,
                        q, qd, kin_G, kin_alpha, Dx, beta, phi, phiq, gamma):
    """Φq = D L and γ = −(β + D_π α) for primitive rows (each only when ``what`` asks for it);
    Euler-parameter normalisation rows. Packed (``what & _PACKED``): Φq is m1 × 2·SEG, row r (coupler term e: row m + e, like Dx)
    holds its two bodies' segments, a normalisation row its body's p at columns 3..6."""
    npr = prim_type.shape[0]
    with_phiq = (what & _PHIQ) != 0
    with_gamma = (what & _GAMMA) != 0
    packed = (what & _PACKED) != 0
    if not (with_phiq or with_gamma):  # Φ only: its primitive rows are written
        npr = 0
    aux = phi.shape[0]  # Dx / beta row of the next coupler term
    for k in range(npr):
        r0 = prim_row[k]
        if prim_type[k] == PRIM_CPL:  # accumulate the terms of a coupler row
            if k == 0 or prim_type[k - 1] != PRIM_CPL or prim_row[k - 1] != r0:
                gamma[r0] = 0.0
                if with_phiq and not packed:
                    for c in range(phiq.shape[1]):
                        phiq[r0, c] = 0.0
            g = _row_sides(k, aux if packed else r0, aux, not packed, packed, with_phiq, prim_body,
                           body_qadr, body_rtype, q, kin_G, kin_alpha, Dx, beta, phiq)
            if with_gamma:
                gamma[r0] += g
            aux += 1
            continue
        nrow = 3 if prim_type[k] == PRIM_SPH else 1
        for r in range(r0, r0 + nrow):
            g = _row_sides(k, r, r, False, packed, with_phiq, prim_body, body_qadr, body_rtype, q,
                           kin_G, kin_alpha, Dx, beta, phiq)
            if with_gamma:
                gamma[r] = g
    nb = body_qadr.shape[0] - 1
    for b in range(nb):
        r = body_eprow[b]
        if r < 0:
            continue
        a = body_qadr[b] + 3
        pa = 3 if packed else a
        s = 0.0
        sd = 0.0
        for l in range(4):
            s += q[a + l] * q[a + l]
            sd += qd[a + l] * qd[a + l]
            if with_phiq:
                phiq[r, pa + l] = 2.0 * q[a + l]
        phi[r] = s - 1.0
        gamma[r] = -2.0 * sd
