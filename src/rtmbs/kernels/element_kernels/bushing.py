"""The numba kernel of the bushing element (:mod:`rtmbs.kernels.elements.bushing` packs its
parameters; the engine's ``elements/bushing.c`` is its C twin). Deleted with the numba steps
(issue 29)."""
from __future__ import annotations

import math

from numba import njit

from ..cartesian import _cross, _dot, _matvec, _skew
from ..elements.bushing import CR, CT, F0, KR, KT, NTAB, T0, TAB
from ..functions import table_eval


@njit(cache=True, inline="always")
def _bushing_column(B, X, col, kv, cv, vrow, skew, with_skew, out_x, out_v):
    """Column ``col`` of B diag(−k) X[0:3] + B diag(−c) X[3:6] (− ``skew`` on δπ_i when
    ``with_skew``) into ``out_x`` and of B diag(−c) X[vrow:vrow+3] into ``out_v``, with the
    (local) stiffnesses k = kv and dampings c = cv of one bushing part."""
    y0 = -kv[0] * X[0, col] - cv[0] * X[3, col]
    y1 = -kv[1] * X[1, col] - cv[1] * X[4, col]
    y2 = -kv[2] * X[2, col] - cv[2] * X[5, col]
    z0 = -cv[0] * X[vrow, col]
    z1 = -cv[1] * X[vrow + 1, col]
    z2 = -cv[2] * X[vrow + 2, col]
    for a in range(3):
        sx = B[a, 0] * y0 + B[a, 1] * y1 + B[a, 2] * y2
        if with_skew:
            sx -= skew[a, col - 3]
        out_x[a, col] = sx
        out_v[a, col] = B[a, 0] * z0 + B[a, 1] * z1 + B[a, 2] * z2


@njit(cache=True, inline="always")
def _characteristic(x, par, lin, tab, funs):
    """Value and slope of one characteristic: par[lin]·x, or its table par[tab] when given."""
    j = int(par[tab])
    if j < 0:
        return par[lin] * x, par[lin]
    return table_eval(x, funs[5], funs[6], funs[3][j], funs[4][j])


@njit(cache=True, inline="always")
def kernel(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj,
           tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf):
    f, tau, dfdx, dfdv, dtdx, dtdv = fjac
    d = tmp[8]; dd = tmp[9]; w = tmp[11]; v1 = tmp[12]; v2 = tmp[13]
    # marker frames B = A_i C_i, Bj = A_j C_j
    B = S[4]
    Bj = S[5]
    R = S[6]
    for a in range(3):
        for b in range(3):
            s1 = 0.0
            s2 = 0.0
            for c in range(3):
                s1 += kin_A[bi, a, c] * frc_rot[k, 0, c, b]
                s2 += kin_A[bj, a, c] * frc_rot[k, 1, c, b]
            B[a, b] = s1
            Bj[a, b] = s2
    for a in range(3):
        for b in range(3):
            s1 = 0.0
            for c in range(3):
                s1 += B[c, a] * Bj[c, b]
            R[a, b] = s1
    wi = kin_w[bi]
    wj = kin_w[bj]
    # translation: u = Bᵀd, u̇ = Bᵀ(ḋ − ω_i × d)
    _cross(wi, d, v1)
    for c in range(3):
        w[c] = dd[c] - v1[c]
    ul = tmp[14]; udl = tmp[15]; fl = tmp[16]
    th = tmp[17]; thd = tmp[18]; tl = tmp[19]; Om = tmp[20]; oml = tmp[21]
    skt = tmp[27]; sct = tmp[28]; skr = tmp[29]; scr = tmp[30]  # local slopes (Jacobians)
    tables = par[NTAB] != 0.0
    for a in range(3):
        ul[a] = B[0, a] * d[0] + B[1, a] * d[1] + B[2, a] * d[2]
        udl[a] = B[0, a] * w[0] + B[1, a] * w[1] + B[2, a] * w[2]
        skt[a] = par[KT + a]
        sct[a] = par[CT + a]
        if tables:
            Fk, slope = _characteristic(ul[a], par, KT + a, TAB + a, funs)
            skt[a] = slope
            Fc, slope = _characteristic(udl[a], par, CT + a, TAB + 3 + a, funs)
            sct[a] = slope
            fl[a] = -(Fk + Fc) + par[F0 + a]
        else:
            fl[a] = -(par[KT + a] * ul[a] + par[CT + a] * udl[a]) + par[F0 + a]
    _matvec(B, fl, f)
    # rotation: θ = vee(skew(R)), θ̇ = Θ Bᵀ Ω with Θ = ½(tr R·I − R)
    th[0] = 0.5 * (R[2, 1] - R[1, 2])
    th[1] = 0.5 * (R[0, 2] - R[2, 0])
    th[2] = 0.5 * (R[1, 0] - R[0, 1])
    Th = S[7]
    trR = R[0, 0] + R[1, 1] + R[2, 2]
    for a in range(3):
        for b in range(3):
            Th[a, b] = 0.5 * ((trR if a == b else 0.0) - R[a, b])
    for c in range(3):
        Om[c] = wj[c] - wi[c]
    for a in range(3):
        oml[a] = B[0, a] * Om[0] + B[1, a] * Om[1] + B[2, a] * Om[2]
    _matvec(Th, oml, thd)
    for a in range(3):
        skr[a] = par[KR + a]
        scr[a] = par[CR + a]
        if tables:
            Tk, slope = _characteristic(th[a], par, KR + a, TAB + 6 + a, funs)
            skr[a] = slope
            Tc, slope = _characteristic(thd[a], par, CR + a, TAB + 9 + a, funs)
            scr[a] = slope
            tl[a] = -(Tk + Tc) + par[T0 + a]
        else:
            tl[a] = -(par[KR + a] * th[a] + par[CR + a] * thd[a]) + par[T0 + a]
    _matvec(B, tl, tau)
    out = math.sqrt(_dot(f, f))
    for c in range(3):  # force and torque on body j in marker_i axes (named outputs)
        outs[c] = fl[c]
        outs[3 + c] = tl[c]
    if not with_jac:
        return out
    # X rows 0-2: ∂u_l/∂x = Bᵀ[−I, ãrm_i, I, −s̃g_j], rows 3-5: ∂u̇_l/∂x (without the δB
    # term on δπ_i, below) = Bᵀ[ω̃_i, w̃, −ω̃_i, (ω̃_i − ω̃_j) s̃g_j], rows 6-8: ∂u̇_l/∂v
    # = rows 0-2; row a of Bᵀṽ is (b_a × v)ᵀ with b_a = B[:, a]
    for c in range(3):
        v2[c] = wi[c] - wj[c]
    for a in range(3):
        b0, b1, b2 = B[0, a], B[1, a], B[2, a]
        for c in range(3):
            X[a, c] = -B[c, a]
            X[a, 6 + c] = B[c, a]
            X[3 + a, 6 + c] = 0.0
        ba = tmp[24]
        ba[0] = b0; ba[1] = b1; ba[2] = b2
        cr = tmp[25]
        _cross(ba, arm_i, cr)
        for c in range(3):
            X[a, 3 + c] = cr[c]
        _cross(ba, sgj, cr)
        for c in range(3):
            X[a, 9 + c] = -cr[c]
        _cross(ba, wi, cr)
        for c in range(3):
            X[3 + a, c] = cr[c]
            X[3 + a, 6 + c] = -cr[c]
        _cross(ba, w, cr)
        for c in range(3):
            X[3 + a, 3 + c] = cr[c]
        cr2 = tmp[26]
        _cross(ba, v2, cr2)
        _cross(cr2, sgj, cr)
        for c in range(3):
            X[3 + a, 9 + c] = cr[c]
    # df/dx = −f̃[0, I, 0, 0] + B diag(−kt) ∂u/∂x + B diag(−ct) ∂u̇/∂x ; df/dv = B diag(−ct) ∂u̇/∂v
    # with ∂u̇/∂v = ∂u/∂x (rows 0-2 of X); the columns of δr_j are minus those of δr_i
    _skew(f, S[13])
    for col in range(12):
        if not 6 <= col < 9:
            _bushing_column(B, X, col, skt, sct, 0, S[13], 3 <= col < 6, dfdx, dfdv)
    for a in range(3):
        for c in range(3):
            dfdx[a, 6 + c] = -dfdx[a, c]
            dfdv[a, 6 + c] = -dfdv[a, c]
    # rotation: ∂θ/∂x = Θ Bᵀ[0, −I, 0, I]; ∂θ̇/∂x = Z Bᵀ[0, −I, 0, I] + Θ Bᵀ Ω̃ [0, I, 0, 0]
    # with Z e_k = Θ(ẽ_k R) ω_l ; ∂θ̇/∂v = Θ Bᵀ [0, −I, 0, I]
    Z = S[14]
    TB = S[15]
    Rw = tmp[22]
    _matvec(R, oml, Rw)
    # tr(ẽ_k R) = −2 θ_k and e_k × Rω = −(R̃ω)[:, k]
    _skew(Rw, S[16])
    for kk in range(3):
        for a in range(3):
            Z[a, kk] = -th[kk] * oml[a] + 0.5 * S[16, a, kk]
    for a in range(3):
        for b in range(3):
            s1 = 0.0
            for c in range(3):
                s1 += Th[a, c] * B[b, c]
            TB[a, b] = s1  # Θ Bᵀ
    _skew(Om, S[16])
    _skew(tau, S[17])
    for a in range(3):
        for b in range(3):
            dth = TB[a, b]  # ∂θ/∂π_j ; −∂θ/∂π_i
            zb = 0.0
            tw = 0.0
            for c in range(3):
                zb += Z[a, c] * B[b, c]
                tw += TB[a, c] * S[16, c, b]
            X[a, 3 + b] = -dth
            X[a, 9 + b] = dth
            X[3 + a, 3 + b] = -zb + tw
            X[3 + a, 9 + b] = zb
            X[6 + a, 3 + b] = -dth
            X[6 + a, 9 + b] = dth
    for col in range(12):
        if col < 3 or 6 <= col < 9:  # no dependence on the positions
            for a in range(3):
                dtdx[a, col] = 0.0
                dtdv[a, col] = 0.0
        else:
            _bushing_column(B, X, col, skr, scr, 6, S[17], col < 6, dtdx, dtdv)
    return out
