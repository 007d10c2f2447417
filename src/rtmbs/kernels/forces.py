"""Force elements with analytic Jacobians (numba, no allocation).

Every element produces, in virtual coordinates of its two bodies i, j (see :mod:`cartesian`):
a force f on body j applied at the point P_j (and −f on body i at the same point) and a pure
couple τ on j (−τ on i), with their derivatives ∂f/∂x, ∂f/∂v, ∂τ/∂x, ∂τ/∂v (3×12, x = (δr_i, δπ_i,
δr_j, δπ_j) at fixed global velocities v = (ṙ_i, ω_i, ṙ_j, ω_j)). :func:`assemble_pair` turns
these into the generalised forces and their Jacobians in q (through L = blockdiag(I, G)).
Single-body loads use the ground (index nb) as body i.
"""
from __future__ import annotations

import math

from numba import njit

from .cartesian import (F_BRAKE, F_BUSHING, F_FORCE, F_JOINT_TORQUE, F_SPRING, F_STOP, F_TORQUE, F_TYRE,
                        _cross, _dot, _matvec, _point, _skew)
from .functions import fun_eval, table_eval
from .rotations import NROT
from .tyre_element import tyre_force


@njit(cache=True, inline="always")
def _zero(a):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = 0.0


@njit(cache=True, inline="always")
def _line_jacobians(sgi, sgj, wi, wj, Dd, Ddd, S):
    """Dd = ∂d/∂x = ∂ḋ/∂v = [−I, s̃g_i, I, −s̃g_j];  Ddd = ∂ḋ/∂x = [0, ω̃_i s̃g_i, 0, −ω̃_j s̃g_j]."""
    _zero(Dd)
    _zero(Ddd)
    _skew(sgi, S[0])
    _skew(sgj, S[1])
    _skew(wi, S[2])
    _skew(wj, S[3])
    for a in range(3):
        Dd[a, a] = -1.0
        Dd[a, 6 + a] = 1.0
        for b in range(3):
            Dd[a, 3 + b] = S[0, a, b]
            Dd[a, 9 + b] = -S[1, a, b]
            si = 0.0
            sj = 0.0
            for c in range(3):
                si += S[2, a, c] * S[0, c, b]
                sj += S[3, a, c] * S[1, c, b]
            Ddd[a, 3 + b] = si
            Ddd[a, 9 + b] = -sj


@njit(cache=True, inline="always")
def element_forces(k, t, with_jac, frc_type, frc_body, frc_vec, frc_rot, frc_par, frc_fun, frc_tab,
                   funs, kin_r, kin_rd, kin_A, kin_w, fjac, arm_i, sgj,
                   tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf):
    """Force f at P_j, couple τ and their Jacobians for element k; returns a scalar output
    (the element's main force or torque, for named outputs); a tyre also fills ``outs``.

    ``funs`` = (fun_type, fun_par, fun_tab, tab_adr, tab_len, tab_x, tab_y) and
    ``fjac`` = (f, τ, ∂f/∂x, ∂f/∂v, ∂τ/∂x, ∂τ/∂v) are tuples so that the call has fewer than 30
    arguments (CPython passes longer calls as *args, which numba cannot inline).
    """
    fun_type, fun_par, fun_tab, tab_adr, tab_len, tab_x, tab_y = funs
    f, tau, dfdx, dfdv, dtdx, dtdv = fjac
    ty = frc_type[k]
    bi = frc_body[k, 0]
    bj = frc_body[k, 1]
    par = frc_par[k]
    for c in range(3):
        f[c] = 0.0
        tau[c] = 0.0
    if with_jac:
        _zero(dfdx)
        _zero(dfdv)
        _zero(dtdx)
        _zero(dtdv)
    sgi = tmp[0]; rpi = tmp[1]; vpi = tmp[2]; abi = tmp[3]
    rpj = tmp[5]; vpj = tmp[6]; abj = tmp[7]
    d = tmp[8]; dd = tmp[9]; u = tmp[10]; w = tmp[11]; v1 = tmp[12]; v2 = tmp[13]
    _point(bi, frc_vec[k, 0], kin_r, kin_rd, kin_A, kin_w, sgi, rpi, vpi, abi, w)
    _point(bj, frc_vec[k, 1], kin_r, kin_rd, kin_A, kin_w, sgj, rpj, vpj, abj, w)
    for c in range(3):
        d[c] = rpj[c] - rpi[c]
        dd[c] = vpj[c] - vpi[c]
        arm_i[c] = d[c] + sgi[c]
    fv = 1.0
    if frc_fun[k, 0] >= 0:
        fv, _, _ = fun_eval(frc_fun[k, 0], t, fun_type, fun_par, fun_tab, tab_adr, tab_len, tab_x, tab_y)
    out = 0.0
    if ty == F_SPRING or ty == F_STOP:
        L = math.sqrt(_dot(d, d))
        if L < 1e-12:
            L = 1e-12
        for c in range(3):
            u[c] = d[c] / L
        Ld = _dot(u, dd)
        F, FL, FLd = 0.0, 0.0, 0.0
        if ty == F_SPRING:
            k_s, c_d, L0, F0 = par[0], par[1], par[2], par[3]
            if frc_tab[k, 0] >= 0:
                j = frc_tab[k, 0]
                F, FL = table_eval(L - L0, tab_x, tab_y, tab_adr[j], tab_len[j])
            else:
                F, FL = k_s * (L - L0), k_s
            if frc_tab[k, 1] >= 0:
                j = frc_tab[k, 1]
                Fd, FLd = table_eval(Ld, tab_x, tab_y, tab_adr[j], tab_len[j])
                F += Fd
            else:
                F += c_d * Ld
                FLd = c_d
            F += F0 * fv
        else:
            Lmin, Lmax, k_s, ex, c_d = par[0], par[1], par[2], par[3], par[4]
            if L < Lmin:
                pen = Lmin - L
                F = -k_s * pen ** ex + c_d * Ld
                FL = k_s * ex * pen ** (ex - 1.0)
                FLd = c_d
            elif L > Lmax:
                pen = L - Lmax
                F = k_s * pen ** ex + c_d * Ld
                FL = k_s * ex * pen ** (ex - 1.0)
                FLd = c_d
        out = F
        for c in range(3):
            f[c] = -F * u[c]
        if with_jac:
            _line_jacobians(sgi, sgj, kin_w[bi], kin_w[bj], Dd, Ddd, S)
            # P = (I − u uᵀ)/L ; ∂u/∂x = P Dd ; ∂L/∂x = uᵀ Dd ; ∂L̇/∂x = (P ḋ)ᵀ Dd + uᵀ Ddd
            for c in range(3):
                v1[c] = (dd[c] - u[c] * Ld) / L  # P ḋ
            for col in range(12):
                gL = 0.0
                gLd = 0.0
                for c in range(3):
                    gL += u[c] * Dd[c, col]
                    gLd += v1[c] * Dd[c, col] + u[c] * Ddd[c, col]
                for c in range(3):
                    gu = (Dd[c, col] - u[c] * gL) / L
                    dfdx[c, col] = -(FL * u[c] * gL + FLd * u[c] * gLd + F * gu)
                    dfdv[c, col] = -FLd * u[c] * gL
    elif ty == F_BUSHING:
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
        for a in range(3):
            ul[a] = B[0, a] * d[0] + B[1, a] * d[1] + B[2, a] * d[2]
            udl[a] = B[0, a] * w[0] + B[1, a] * w[1] + B[2, a] * w[2]
            fl[a] = -(par[a] * ul[a] + par[3 + a] * udl[a]) + par[12 + a]
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
            tl[a] = -(par[6 + a] * th[a] + par[9 + a] * thd[a]) + par[15 + a]
        _matvec(B, tl, tau)
        out = math.sqrt(_dot(f, f))
        for c in range(3):  # force and torque on body j in marker_i axes (named outputs)
            outs[c] = fl[c]
            outs[3 + c] = tl[c]
        if with_jac:
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
                for col in range(12):
                    X[6 + a, col] = X[a, col]
            # df/dx = −f̃[0, I, 0, 0] + B diag(−kt) ∂u/∂x + B diag(−ct) ∂u̇/∂x ; df/dv = B diag(−ct) ∂u̇/∂v
            _skew(f, S[13])
            for a in range(3):
                for col in range(12):
                    sx = 0.0
                    sv = 0.0
                    for c in range(3):
                        sx += B[a, c] * (-par[c] * X[c, col] - par[3 + c] * X[3 + c, col])
                        sv += B[a, c] * (-par[3 + c] * X[6 + c, col])
                    if 3 <= col < 6:
                        sx -= S[13, a, col - 3]
                    dfdx[a, col] = sx
                    dfdv[a, col] = sv
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
            for a in range(3):
                for col in range(12):
                    sx = 0.0
                    sv = 0.0
                    if 3 <= col < 6 or col >= 9:
                        for c in range(3):
                            sx += B[a, c] * (-par[6 + c] * X[c, col] - par[9 + c] * X[3 + c, col])
                            sv += B[a, c] * (-par[9 + c] * X[6 + c, col])
                    if 3 <= col < 6:
                        sx -= S[17, a, col - 3]
                    dtdx[a, col] = sx
                    dtdv[a, col] = sv
    elif ty == F_FORCE or ty == F_TORQUE:
        # direction par[0:3], global (par[3] == 0) or body-fixed (par[3] == 1) on body j
        for c in range(3):
            v1[c] = par[c]
        if par[3] != 0.0:
            _matvec(kin_A[bj], v1, v2)
        else:
            for c in range(3):
                v2[c] = v1[c]
        vec = f if ty == F_FORCE else tau
        for c in range(3):
            vec[c] = fv * v2[c]
        out = fv
        if with_jac and par[3] != 0.0:
            _skew(vec, S[0])
            dvx = dfdx if ty == F_FORCE else dtdx
            for a in range(3):
                for b in range(3):
                    dvx[a, 9 + b] = -S[0, a, b]
    elif ty == F_TYRE:
        sax = v1
        for c in range(3):
            sax[c] = (kin_A[bj, c, 0] * frc_rot[k, 1, 0, 2] + kin_A[bj, c, 1] * frc_rot[k, 1, 1, 2]
                      + kin_A[bj, c, 2] * frc_rot[k, 1, 2, 2])
        tyre_force(par, tyre_par, road_buf, tyre_x, with_jac, rpj, vpj, kin_w[bj], sax, sgj, f, tau,
                   dfdx, dfdv, dtdx, dtdv, outs, tmp[14:24], X, mf)
        out = outs[2]
    elif ty == F_JOINT_TORQUE or ty == F_BRAKE:
        z = v1
        for c in range(3):
            z[c] = (kin_A[bi, c, 0] * frc_rot[k, 0, 0, 2] + kin_A[bi, c, 1] * frc_rot[k, 0, 1, 2]
                    + kin_A[bi, c, 2] * frc_rot[k, 0, 2, 2])
        for c in range(3):
            w[c] = kin_w[bj, c] - kin_w[bi, c]
        T, Tp = fv, 0.0
        if ty == F_BRAKE:
            eps = par[0]
            Om_rel = _dot(z, w)
            th_ = math.tanh(Om_rel / eps)
            T = -fv * th_
            Tp = -fv * (1.0 - th_ * th_) / eps
        for c in range(3):
            tau[c] = T * z[c]
        out = T
        if with_jac:
            _skew(z, S[0])
            _cross(z, w, v2)
            for a in range(3):
                for b in range(3):
                    dtdx[a, 3 + b] = -T * S[0, a, b] + Tp * z[a] * v2[b]
                    dtdv[a, 3 + b] = -Tp * z[a] * z[b]
                    dtdv[a, 9 + b] = Tp * z[a] * z[b]
    return out


@njit(cache=True, inline="always")
def _side_block(G, nr, dfdx, dtdx, dfdv, dtdv, c0, W, out_x, out_v):
    """out_x = D[:, c0:c0+6] L_b + E_ω W_b, out_v = E[:, c0:c0+6] L_b (6 × (3 + nr)), with
    D = [∂f/∂x; ∂τ/∂x], E = [∂f/∂v; ∂τ/∂v] read in place."""
    for r in range(6):
        Dr = dfdx[r] if r < 3 else dtdx[r - 3]
        Er = dfdv[r] if r < 3 else dtdv[r - 3]
        for c in range(3):
            out_x[r, c] = Dr[c0 + c]
            out_v[r, c] = Er[c0 + c]
        d0, d1, d2 = Dr[c0 + 3], Dr[c0 + 4], Dr[c0 + 5]
        e0, e1, e2 = Er[c0 + 3], Er[c0 + 4], Er[c0 + 5]
        for l in range(nr):
            out_x[r, 3 + l] = (d0 * G[0, l] + d1 * G[1, l] + d2 * G[2, l]
                               + e0 * W[0, l] + e1 * W[1, l] + e2 * W[2, l])
            out_v[r, 3 + l] = e0 * G[0, l] + e1 * G[1, l] + e2 * G[2, l]


@njit(cache=True, inline="always")
def assemble_pair(bi, bj, with_jac, f, tau, dfdx, dfdv, dtdx, dtdv, arm_i, sgj, body_qadr, body_rtype,
                  kin_G, kin_dG, kin_W, Q, Jq, Jqd, D, E, DL, EL, S):
    """Add an element's force f (at P_j on j, −f on i) and couple τ to Q, Jq, Jq̇ directly.

    With Q_x = T_a [f; τ] + (arm terms), T_i = −[[I, 0], [ãrm_i, I]], T_j = [[I, 0], [s̃g_j, I]]:
    Jq_ab = L_aᵀ T_a (D L_b + E_ω W_b) + L_aᵀ X_a L_b + δ_ab (∂Gᵀ/∂p) T_a and Jq̇_ab = L_aᵀ T_a E L_b,
    with D = [∂f/∂x; ∂τ/∂x], E = [∂f/∂v; ∂τ/∂v], X_i = f̃ ∂arm_i/∂x, X_j = f̃ s̃g_j on δπ_j
    (without forming the element's 12×12 K = ∂Q_x/∂x and C = ∂Q_x/∂v).
    """
    Ti = S[0]   # torque on i
    Tj = S[1]   # torque on j (rows 0..2 of S[1])
    ai = S[2]   # ãrm_i
    aj = S[3]   # s̃g_j
    ff = S[4]   # f̃
    tmpv = S[5]
    _cross(arm_i, f, tmpv[0])
    _cross(sgj, f, tmpv[1])
    for c in range(3):
        Ti[0, c] = -tmpv[0, c] - tau[c]
        Tj[0, c] = tmpv[1, c] + tau[c]
    # Q
    for side in range(2):
        b = bi if side == 0 else bj
        a = body_qadr[b]
        if a < 0:
            continue
        sg = -1.0 if side == 0 else 1.0
        T = Ti[0] if side == 0 else Tj[0]
        nr = NROT[body_rtype[b]]
        for c in range(3):
            Q[a + c] += sg * f[c]
        for l in range(nr):
            Q[a + 3 + l] += kin_G[b, 0, l] * T[0] + kin_G[b, 1, l] * T[1] + kin_G[b, 2, l] * T[2]
    if not with_jac:
        return
    _skew(arm_i, ai)
    _skew(sgj, aj)
    _skew(f, ff)
    for sb in range(2):
        b = bi if sb == 0 else bj
        qb = body_qadr[b]
        if qb < 0:
            continue
        nrb = NROT[body_rtype[b]]
        wb = 3 + nrb
        _side_block(kin_G[b], nrb, dfdx, dtdx, dfdv, dtdv, 6 * sb, kin_W[b], DL, EL)
        for sa in range(2):
            a = bi if sa == 0 else bj
            qa = body_qadr[a]
            if qa < 0:
                continue
            nra = NROT[body_rtype[a]]
            sgn = -1.0 if sa == 0 else 1.0
            Am = ai if sa == 0 else aj
            Ga = kin_G[a]
            for col in range(wb):
                # Y = Ã (DL)[0:3] + (DL)[3:6] ; Yv likewise with EL
                y0 = Am[0, 0] * DL[0, col] + Am[0, 1] * DL[1, col] + Am[0, 2] * DL[2, col] + DL[3, col]
                y1 = Am[1, 0] * DL[0, col] + Am[1, 1] * DL[1, col] + Am[1, 2] * DL[2, col] + DL[4, col]
                y2 = Am[2, 0] * DL[0, col] + Am[2, 1] * DL[1, col] + Am[2, 2] * DL[2, col] + DL[5, col]
                v0 = Am[0, 0] * EL[0, col] + Am[0, 1] * EL[1, col] + Am[0, 2] * EL[2, col] + EL[3, col]
                v1 = Am[1, 0] * EL[0, col] + Am[1, 1] * EL[1, col] + Am[1, 2] * EL[2, col] + EL[4, col]
                v2 = Am[2, 0] * EL[0, col] + Am[2, 1] * EL[1, col] + Am[2, 2] * EL[2, col] + EL[5, col]
                for c in range(3):
                    Jq[qa + c, qb + col] += sgn * DL[c, col]
                    Jqd[qa + c, qb + col] += sgn * EL[c, col]
                for l in range(nra):
                    Jq[qa + 3 + l, qb + col] += sgn * (Ga[0, l] * y0 + Ga[1, l] * y1 + Ga[2, l] * y2)
                    Jqd[qa + 3 + l, qb + col] += sgn * (Ga[0, l] * v0 + Ga[1, l] * v1 + Ga[2, l] * v2)
    # arm terms: X_i = f̃ [−I, 0, I, −s̃g_j] on body i's torque rows; X_j = f̃ s̃g_j on (π_j, π_j)
    qi, qj = body_qadr[bi], body_qadr[bj]
    fs = S[6]
    for r in range(3):
        for c in range(3):
            fs[r, c] = ff[r, 0] * aj[0, c] + ff[r, 1] * aj[1, c] + ff[r, 2] * aj[2, c]
    fsG = D  # (f̃ s̃g_j G_j)ᵀ, nr_j × 3 (D, E: 6 × 12 scratch)
    nrj = NROT[body_rtype[bj]]
    if qj >= 0:
        Gj = kin_G[bj]
        for k in range(nrj):
            for r in range(3):
                fsG[k, r] = fs[r, 0] * Gj[0, k] + fs[r, 1] * Gj[1, k] + fs[r, 2] * Gj[2, k]
    if qi >= 0:
        Gi = kin_G[bi]
        nri = NROT[body_rtype[bi]]
        for l in range(nri):
            for c in range(3):
                g = Gi[0, l] * ff[0, c] + Gi[1, l] * ff[1, c] + Gi[2, l] * ff[2, c]
                Jq[qi + 3 + l, qi + c] -= g
                if qj >= 0:
                    Jq[qi + 3 + l, qj + c] += g
            if qj >= 0:
                for k in range(nrj):
                    Jq[qi + 3 + l, qj + 3 + k] -= (Gi[0, l] * fsG[k, 0] + Gi[1, l] * fsG[k, 1]
                                                   + Gi[2, l] * fsG[k, 2])
    if qj >= 0:
        Gj = kin_G[bj]
        for l in range(nrj):
            for k in range(nrj):
                Jq[qj + 3 + l, qj + 3 + k] += Gj[0, l] * fsG[k, 0] + Gj[1, l] * fsG[k, 1] + Gj[2, l] * fsG[k, 2]
    # (∂Gᵀ/∂p_k) T on each body's own rotation block
    for side in range(2):
        b = bi if side == 0 else bj
        a = body_qadr[b]
        if a < 0:
            continue
        T = Ti[0] if side == 0 else Tj[0]
        nr = NROT[body_rtype[b]]
        for kk in range(nr):
            for l in range(nr):
                Jq[a + 3 + l, a + 3 + kk] += (kin_dG[b, kk, 0, l] * T[0] + kin_dG[b, kk, 1, l] * T[1]
                                              + kin_dG[b, kk, 2, l] * T[2])
