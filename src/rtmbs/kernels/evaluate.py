"""The single compiled entry point of a Cartesian body model: fills M, Q, Φ, Φq, Φt, γ, Jq, Jq̇."""
from __future__ import annotations

import numpy as np
from numba import njit

from .cartesian import (SEG, _JAC, _JACS, _M, _PACKED, _PHI, _PHIQ, _GAMMA, _Q, body_kinematics,
                        constraint_rows, scatter_constraints)
from .forces import (accumulate_element, element_forces, map_virtual_blocks, torque_only,
                     virtual_blocks_to_clear)
from .arena import borrowed, c_view
from .layout_views import data_buffers, model_floats, model_ints
from .rotations import NROT, ROT_EP
from .codes import OUT_FORCE, OUT_R, OUT_RD, OUT_W  # noqa: F401


@njit(cache=True, inline="always")
def _add_skew(D, r0, c0, v0, v1, v2):
    """D[r0:r0+3, c0:c0+3] += ṽ."""
    D[r0, c0 + 1] -= v2
    D[r0, c0 + 2] += v1
    D[r0 + 1, c0] += v2
    D[r0 + 1, c0 + 2] -= v0
    D[r0 + 2, c0] -= v1
    D[r0 + 2, c0 + 1] += v0


@njit(cache=True, inline="always")
def _rotational_mass(M, mr, mc, G, Jg, JG, nr):
    """M_pp = Gᵀ J_g G (symmetric; JG is 3×nr scratch) into the block at row mr, column mc."""
    for a in range(3):
        for l in range(nr):
            JG[a, l] = Jg[a, 0] * G[0, l] + Jg[a, 1] * G[1, l] + Jg[a, 2] * G[2, l]
    for k in range(nr):
        for l in range(k, nr):
            v = G[0, k] * JG[0, l] + G[1, k] * JG[1, l] + G[2, k] * JG[2, l]
            M[mr + 3 + k, mc + 3 + l] = v
            M[mr + 3 + l, mc + 3 + k] = v


@njit(cache=True, inline="always")
def _inertia(b, mr, mc, rtype, with_jac, m, Jl, g, kin_A, kin_G, kin_w, kin_alpha, kin_dadp, kin_dadpd,
             M, vQ, vK, vC, vP, what, S, tmp, W6x7):
    """Mass block blockdiag(m I, Gᵀ J_g G); weight m g and inertia torque T = −ω̃ J_g ω − J_g α
    into the virtual forces vQ and, with ``with_jac``, ∂T/∂π, ∂T/∂ω into the body's virtual block
    (plus −J_g ∂α/∂p, −J_g ∂α/∂ṗ for Euler angles, whose α ≠ 0). The mass block goes to row mr,
    column mc of M (dense: the body's coordinates; packed: its SEG × SEG block)."""
    A = kin_A[b]
    G = kin_G[b]
    nr = NROT[rtype]
    Jg = S[0]
    JA = W6x7  # J' Aᵀ (3×3), then J_g G (3×nr)
    for e in range(3):
        for c in range(3):
            JA[e, c] = Jl[e, 0] * A[c, 0] + Jl[e, 1] * A[c, 1] + Jl[e, 2] * A[c, 2]
    for a in range(3):
        for c in range(a, 3):  # symmetric
            Jg[a, c] = A[a, 0] * JA[0, c] + A[a, 1] * JA[1, c] + A[a, 2] * JA[2, c]
            Jg[c, a] = Jg[a, c]
    if what & _M:  # every entry of the block is written (a reused workspace may hold anything)
        for c in range(3):
            for e in range(3 + nr):
                M[mr + c, mc + e] = m if e == c else 0.0
                if e >= 3:
                    M[mr + e, mc + c] = 0.0
        if rtype == ROT_EP:  # constant trip counts (unrolled)
            _rotational_mass(M, mr, mc, G, Jg, JA, 4)
        else:
            _rotational_mass(M, mr, mc, G, Jg, JA, nr)
    if not (what & (_Q | _JAC | _JACS)):
        return
    w = kin_w[b]
    al = kin_alpha[b]
    Jw = tmp[0]
    Ja = tmp[1]
    for a in range(3):
        Jw[a] = Jg[a, 0] * w[0] + Jg[a, 1] * w[1] + Jg[a, 2] * w[2]
        Ja[a] = Jg[a, 0] * al[0] + Jg[a, 1] * al[1] + Jg[a, 2] * al[2]
    for c in range(3):
        vQ[b, c] += m * g[c]
    vQ[b, 3] += -(w[1] * Jw[2] - w[2] * Jw[1]) - Ja[0]
    vQ[b, 4] += -(w[2] * Jw[0] - w[0] * Jw[2]) - Ja[1]
    vQ[b, 5] += -(w[0] * Jw[1] - w[1] * Jw[0]) - Ja[2]
    if not with_jac:
        return
    vQ[b, 6] += -(w[1] * Jw[2] - w[2] * Jw[1]) - Ja[0]
    vQ[b, 7] += -(w[2] * Jw[0] - w[0] * Jw[2]) - Ja[1]
    vQ[b, 8] += -(w[0] * Jw[1] - w[1] * Jw[0]) - Ja[2]
    # ∂T/∂π = ω̃[(J_g ω)~ − J_g ω̃] + (J_g α)~ − J_g α̃ ; ∂T/∂ω = −ω̃ J_g + (J_g ω)~ ; ∂T/∂α = −J_g
    # (straight-line: h = J_g ω, X = h̃ − J_g ω̃ row by row; the α terms vanish for Euler parameters)
    w0, w1, w2 = w[0], w[1], w[2]
    h0, h1, h2 = Jw[0], Jw[1], Jw[2]
    K = vK[b]
    C = vC[b]
    X = S[7]
    for a in range(3):
        j0, j1, j2 = Jg[a, 0], Jg[a, 1], Jg[a, 2]
        X[a, 0] = j2 * w1 - j1 * w2   # −(J_g ω̃)[a, :]
        X[a, 1] = j0 * w2 - j2 * w0
        X[a, 2] = j1 * w0 - j0 * w1
    _add_skew(X, 0, 0, h0, h1, h2)
    for c in range(3):  # column c: K += ω̃ X[:, c], C += −ω̃ J_g[:, c] + h̃[:, c]
        x0, x1, x2 = X[0, c], X[1, c], X[2, c]
        K[3, 3 + c] += w1 * x2 - w2 * x1
        K[4, 3 + c] += w2 * x0 - w0 * x2
        K[5, 3 + c] += w0 * x1 - w1 * x0
        g0, g1, g2 = Jg[0, c], Jg[1, c], Jg[2, c]
        C[3, 3 + c] -= w1 * g2 - w2 * g1
        C[4, 3 + c] -= w2 * g0 - w0 * g2
        C[5, 3 + c] -= w0 * g1 - w1 * g0
    _add_skew(C, 3, 3, h0, h1, h2)
    if rtype != ROT_EP:  # + (J_g α)~ − J_g α̃
        a0, a1, a2 = al[0], al[1], al[2]
        ja0, ja1, ja2 = Ja[0], Ja[1], Ja[2]
        for a in range(3):
            j0, j1, j2 = Jg[a, 0], Jg[a, 1], Jg[a, 2]
            K[3 + a, 3] -= j1 * a2 - j2 * a1
            K[3 + a, 4] -= j2 * a0 - j0 * a2
            K[3 + a, 5] -= j0 * a1 - j1 * a0
        _add_skew(K, 3, 3, ja0, ja1, ja2)
    if rtype != ROT_EP:
        dap = kin_dadp[b]
        dapd = kin_dadpd[b]
        for a in range(3):
            for col in range(nr):
                s = 0.0
                sv = 0.0
                for c in range(3):
                    s -= Jg[a, c] * dap[c, col]
                    sv -= Jg[a, c] * dapd[c, col]
                vP[b, 0, a, col] = s
                vP[b, 1, a, col] = sv


@njit(cache=True, inline="always")
def _mat(buf, o, d0, d1):
    """The d0×d1 row-major matrix at offset o of a flat buffer (see :func:`arena.c_view`)."""
    return c_view(buf[o:o + d0 * d1], (d0, d1))


@njit(cache=True, inline="always")
def workspace_views(wbuf, n, m):
    """M, Q, Φ, Φq, Φt, γ, Jq, Jq̇ in the flat workspace buffer, in the order of
    :data:`rtmbs.protocol.WORKSPACE_FIELDS` (the one declaration of the workspace layout)."""
    if wbuf.shape[0] < 3 * n * n + n + 3 * m + m * n:
        raise ValueError("workspace buffer too short for n and m")
    o = 0
    M = _mat(wbuf, o, n, n); o += n * n
    Q = wbuf[o:o + n]; o += n
    phi = wbuf[o:o + m]; o += m
    phiq = _mat(wbuf, o, m, n); o += m * n
    phit = wbuf[o:o + m]; o += m
    gamma = wbuf[o:o + m]; o += m
    Jq = _mat(wbuf, o, n, n); o += n * n
    Jqd = _mat(wbuf, o, n, n)
    return M, Q, phi, phiq, phit, gamma, Jq, Jqd


@njit(cache=True, inline="always")
def packed_views(wbuf, n, m, nb, m1, nblk):
    """The packed workspace (:meth:`rtmbs.system.CartesianSystem.packed_layout`): M as nb blocks
    of SEG × SEG (body b at rows SEG·b), Q, Φ, Φq as m1 rows of two SEG-wide segments (one per
    body of the row; coupler term e at row m + e), Φt, γ, Jq and Jq̇ as one SEG × SEG block per
    virtual block (``blk_pair``), then one entry that stays zero. Same order as
    :func:`workspace_views`; O(non-zeros) instead of 3n² + mn."""
    if wbuf.shape[0] < packed_size(n, m, nb, m1, nblk):
        raise ValueError("packed workspace buffer too short")
    B = SEG * SEG
    o = 0
    M = _mat(wbuf, o, nb * SEG, SEG); o += nb * B
    Q = wbuf[o:o + n]; o += n
    phi = wbuf[o:o + m]; o += m
    phiq = _mat(wbuf, o, m1, 2 * SEG); o += m1 * 2 * SEG
    phit = wbuf[o:o + m]; o += m
    gamma = wbuf[o:o + m]; o += m
    Jq = _mat(wbuf, o, nblk * SEG, SEG); o += nblk * B
    Jqd = _mat(wbuf, o, nblk * SEG, SEG)
    return M, Q, phi, phiq, phit, gamma, Jq, Jqd


@njit(cache=True, inline="always")
def packed_size(n, m, nb, m1, nblk):
    """Length of a packed workspace buffer (the last entry is the zero of entries outside the
    blocks)."""
    return SEG * SEG * (nb + 2 * nblk) + n + 3 * m + 2 * SEG * m1 + 1


# fastmath "contract" (fused multiply-add only) in the evaluation kernels. numba passes a caller's
# fastmath flags on to callees that do not set their own, so the shared non-inlined callees
# (fun_eval, table_eval, the zxz rotation functions, tyre_force and through it the Magic Formula
# and road) say fastmath=False explicitly: otherwise their cached code, and so their results in
# the last bit, would depend on which caller compiled them first.
@njit(cache=True, fastmath={"contract"})
def evaluate_cartesian(what, t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, wbuf, n, m):
    """Fill the requested quantities (``what`` flags of :mod:`rtmbs.protocol`) into the workspace
    buffer ``wbuf`` (M, Q, phi, phiq, phit, gamma, Jq, Jqd): dense (:func:`workspace_views`) or,
    with ``_PACKED`` in ``what``, packed in the fixed blocks (:func:`packed_views`). The model's integer and float
    arrays and the run's data live in three packed buffers declared by name in
    :mod:`.layouts` (ibuf: MODEL_INTS, fbuf: MODEL_FLOATS, sbuf: DATA)."""
    # borrowed (untracked) buffers: no atomic reference counting of the ~100 views below
    q = borrowed(q); qd = borrowed(qd); ibuf = borrowed(ibuf); ilay = borrowed(ilay)
    fbuf = borrowed(fbuf); flay = borrowed(flay); sbuf = borrowed(sbuf); slay = borrowed(slay)
    wbuf = borrowed(wbuf)
    mi = model_ints(ibuf, ilay)
    mp = model_floats(fbuf, flay)
    d = data_buffers(sbuf, slay)
    body_qadr = mi.body_qadr; body_rtype = mi.body_rtype; body_eprow = mi.body_eprow
    prim_type = mi.prim_type; prim_row = mi.prim_row; prim_body = mi.prim_body; prim_fun = mi.prim_fun
    frc_type = mi.frc_type; frc_body = mi.frc_body; frc_fun = mi.frc_fun; frc_tab = mi.frc_tab
    frc_stiff = mi.frc_stiff; fun_type = mi.fun_type; fun_tab = mi.fun_tab; tab_adr = mi.tab_adr
    tab_len = mi.tab_len; blk_pair = mi.blk_pair; frc_blk = mi.frc_blk
    body_mass = mp.body_mass; body_inertia = mp.body_inertia; gravity = mp.gravity
    prim_vec = mp.prim_vec; prim_par = mp.prim_par; frc_vec = mp.frc_vec; frc_rot = mp.frc_rot
    frc_par = mp.frc_par; tab_x = mp.tab_x; tab_y = mp.tab_y; tyre_par = mp.tyre_par; road_buf = mp.road
    fun_par = d.fun_par; tyre_x = d.xstate
    kin_r = d.kin_r; kin_rd = d.kin_rd; kin_A = d.kin_A; kin_G = d.kin_G; kin_dG = d.kin_dG
    kin_W = d.kin_W; kin_w = d.kin_w; kin_alpha = d.kin_alpha; kin_dadp = d.kin_dadp
    kin_dadpd = d.kin_dadpd; d2G = d.d2G
    tmp = d.tmp; S = d.S; Dx = d.Dx; beta = d.beta; f = d.f; tau = d.tau
    dfdx = d.dfdx; dfdv = d.dfdv; dtdx = d.dtdx; dtdv = d.dtdv; arm_i = d.arm_i; sgj = d.sgj
    Dd = d.Dd; Ddd = d.Ddd; X = d.X; frc_out = d.frc_out; mf = d.mf
    vQ = d.vQ; vK = d.vK; vC = d.vC; vP = d.vP; KL = d.KL
    nb = body_qadr.shape[0] - 1
    packed = (what & _PACKED) != 0
    if packed:
        M, Q, phi, phiq, phit, gamma, Jq, Jqd = packed_views(wbuf, n, m, nb, Dx.shape[0], blk_pair.shape[0])
    else:
        M, Q, phi, phiq, phit, gamma, Jq, Jqd = workspace_views(wbuf, n, m)
    # Φ and Φq alone (the projection's and the predictor's evaluations) need no velocities; an
    # evaluation of nothing fills the kinematics (callers read them from the data)
    position_only = ((what & (_PHI | _PHIQ)) != 0
                     and (what & (_M | _Q | _JAC | _JACS | _GAMMA)) == 0)
    body_kinematics(q, qd, body_qadr, body_rtype, kin_r, kin_rd, kin_A, kin_G, kin_dG, kin_W,
                    kin_w, kin_alpha, kin_dadp, kin_dadpd, d2G, not position_only)
    jac_all = (what & _JAC) != 0
    jac_any = jac_all or (what & _JACS) != 0
    do_q = (what & (_Q | _JAC | _JACS)) != 0  # Jacobians are computed with Q (and write it)
    if do_q:
        vQ[:, :] = 0.0
    stiff_only = jac_any and not jac_all
    if jac_any:
        virtual_blocks_to_clear(blk_pair, stiff_only, vK, vC)
    if what & _M or do_q:
        for b in range(nb):
            qa = body_qadr[b]
            _inertia(b, SEG * b if packed else qa, 0 if packed else qa, body_rtype[b], jac_all,
                     body_mass[b], body_inertia[b], gravity,
                     kin_A, kin_G, kin_w, kin_alpha, kin_dadp, kin_dadpd, M, vQ, vK, vC, vP, what, S, tmp,
                     KL[0])
    if do_q:
        funs = (fun_type, fun_par, fun_tab, tab_adr, tab_len, tab_x, tab_y)
        fjac = (f, tau, dfdx, dfdv, dtdx, dtdv)
        for k in range(frc_type.shape[0]):
            wj = jac_all or (jac_any and frc_stiff[k] != 0)
            frc_out[k, 0] = element_forces(
                k, t, wj, frc_type, frc_body, frc_vec, frc_rot, frc_par, frc_fun, frc_tab,
                funs, kin_r, kin_rd, kin_A, kin_w, fjac, arm_i, sgj, tmp, S, Dd, Ddd, X, tyre_par, road_buf,
                tyre_x, frc_out[k, 1:], mf)
            accumulate_element(k, frc_body[k, 0], frc_body[k, 1], wj, torque_only(frc_type[k]), f, tau,
                               dfdx, dfdv, dtdx, dtdv, arm_i, sgj, frc_blk, vQ, vK, vC)
        map_virtual_blocks(jac_any, stiff_only, packed, blk_pair, body_qadr, body_rtype, kin_G,
                           kin_dG, kin_W, vQ, vK, vC, vP, Q, Jq, Jqd, KL)
    if what & (_PHI | _PHIQ | _GAMMA):
        constraint_rows(t, prim_type, prim_row, prim_body, prim_vec, prim_par, prim_fun,
                        fun_type, fun_par, fun_tab, tab_adr, tab_len, tab_x, tab_y,
                        kin_r, kin_rd, kin_A, kin_w, phi, phit, Dx, beta, tmp, S,
                        (what & (_PHIQ | _GAMMA)) != 0, (what & _GAMMA) != 0)
        scatter_constraints(what, prim_type, prim_row, prim_body, body_qadr, body_rtype, body_eprow,
                            q, qd, kin_G, kin_alpha, Dx, beta, phi, phiq, gamma)




@njit(cache=True)
def cartesian_outputs(t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, wbuf, n, m, oidx, out):
    """The named outputs at (t, q, q̇): one evaluation of the forces into the packed workspace
    ``wbuf`` (:func:`packed_views`; it fills the kinematics and the element outputs of the data),
    then ``out[k] = sbuf[oidx[k]]`` (``CartesianSystem.output_index``: where each output's
    source ``output_map[k] = (OUT_*, row, col)`` lives in the data buffer)."""
    evaluate_cartesian(np.int64(_PACKED | _Q), t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, wbuf, n,
                       m)
    for k in range(oidx.shape[0]):  # (sensors, oidx < 0, are computed by the C engine only)
        out[k] = sbuf[oidx[k]] if oidx[k] >= 0 else np.nan
