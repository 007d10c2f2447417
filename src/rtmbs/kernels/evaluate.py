"""The single compiled entry point of a Cartesian body model: fills M, Q, Φ, Φq, Φt, γ, Jq, Jq̇."""
from __future__ import annotations

from numba import njit

from .cartesian import (_JAC, _JACS, _M, _PHI, _PHIQ, _GAMMA, _Q, body_kinematics, constraint_rows,
                        scatter_constraints)
from .forces import assemble_pair, element_forces
from .arena import c_view, view1, view2, view3, view4
from .rotations import NROT


@njit(cache=True, inline="always")
def _inertia(b, qa, nr, with_jac, m, Jl, g, kin_A, kin_G, kin_dG, kin_W, kin_w, kin_alpha, kin_dadp,
             kin_dadpd, M, Q, Jq, Jqd, what, S, tmp):
    """Mass block blockdiag(m I, Gᵀ J_g G); weight m g; inertia torque T = −ω̃ J_g ω − J_g α
    and, with ``with_jac``, its Jacobians."""
    A = kin_A[b]
    G = kin_G[b]
    Jg = S[0]
    for a in range(3):
        for c in range(3):
            s = 0.0
            for e in range(3):
                for f in range(3):
                    s += A[a, e] * Jl[e, f] * A[c, f]
            Jg[a, c] = s
    if what & _M:
        for c in range(3):
            M[qa + c, qa + c] = m
        for k in range(nr):
            for l in range(nr):
                s = 0.0
                for a in range(3):
                    for c in range(3):
                        s += G[a, k] * Jg[a, c] * G[c, l]
                M[qa + 3 + k, qa + 3 + l] = s
    if not (what & (_Q | _JAC | _JACS)):
        return
    w = kin_w[b]
    al = kin_alpha[b]
    Jw = tmp[0]
    Ja = tmp[1]
    T = tmp[2]
    for a in range(3):
        Jw[a] = Jg[a, 0] * w[0] + Jg[a, 1] * w[1] + Jg[a, 2] * w[2]
        Ja[a] = Jg[a, 0] * al[0] + Jg[a, 1] * al[1] + Jg[a, 2] * al[2]
    T[0] = -(w[1] * Jw[2] - w[2] * Jw[1]) - Ja[0]
    T[1] = -(w[2] * Jw[0] - w[0] * Jw[2]) - Ja[1]
    T[2] = -(w[0] * Jw[1] - w[1] * Jw[0]) - Ja[2]
    for c in range(3):
        Q[qa + c] += m * g[c]
    for l in range(nr):
        Q[qa + 3 + l] += G[0, l] * T[0] + G[1, l] * T[1] + G[2, l] * T[2]
    if not with_jac:
        return
    # ∂T/∂π = ω̃[(J_g ω)~ − J_g ω̃] + (J_g α)~ − J_g α̃ ; ∂T/∂ω = −ω̃ J_g + (J_g ω)~ ; ∂T/∂α = −J_g
    Wx = S[1]; JW = S[2]; JA = S[3]; Al = S[4]; Tpi = S[5]; Tw = S[6]
    _sk(w, Wx); _sk(Jw, JW); _sk(Ja, JA); _sk(al, Al)
    for a in range(3):
        for c in range(3):
            s1 = 0.0
            s2 = 0.0
            s3 = 0.0
            for e in range(3):
                s1 += Jg[a, e] * Wx[e, c]
                s2 += Wx[a, e] * Jg[e, c]
                s3 += Jg[a, e] * Al[e, c]
            S[7, a, c] = JW[a, c] - s1  # (J_g ω)~ − J_g ω̃
            Tw[a, c] = -s2 + JW[a, c]
            Tpi[a, c] = JA[a, c] - s3
    for a in range(3):
        for c in range(3):
            s = 0.0
            for e in range(3):
                s += Wx[a, e] * S[7, e, c]
            Tpi[a, c] += s
    # H = Tπ G + Tω W − J_g ∂α/∂p and Hv = Tω G − J_g ∂α/∂ṗ (3 × nr, shared by all rows k;
    # stored transposed, nr × 3)
    H = tmp[24:28]
    Hv = tmp[28:32]
    Wb = kin_W[b]
    dap = kin_dadp[b]
    dapd = kin_dadpd[b]
    for a in range(3):
        for col in range(nr):
            inner = 0.0
            innerv = 0.0
            for c in range(3):
                inner += Tpi[a, c] * G[c, col] + Tw[a, c] * Wb[c, col] - Jg[a, c] * dap[c, col]
                innerv += Tw[a, c] * G[c, col] - Jg[a, c] * dapd[c, col]
            H[col, a] = inner
            Hv[col, a] = innerv
    dGb = kin_dG[b]
    for k in range(nr):
        for col in range(nr):
            # rows: Gᵀ(...) ; columns: p
            s = G[0, k] * H[col, 0] + G[1, k] * H[col, 1] + G[2, k] * H[col, 2]
            sv = G[0, k] * Hv[col, 0] + G[1, k] * Hv[col, 1] + G[2, k] * Hv[col, 2]
            dg = dGb[col, 0, k] * T[0] + dGb[col, 1, k] * T[1] + dGb[col, 2, k] * T[2]
            Jq[qa + 3 + k, qa + 3 + col] += s + dg
            Jqd[qa + 3 + k, qa + 3 + col] += sv


@njit(cache=True)
def _zero_jacobian_blocks(body_qadr, body_rtype, frc_body, Jq, Jqd):
    """Zero only the blocks that the force elements and inertia terms accumulate into: the
    patterns are fixed, so entries outside them stay zero (dense zeroing of two n×n matrices
    costs more than the whole evaluation at n = 77)."""
    nb = body_qadr.shape[0] - 1
    for b in range(nb):
        a = body_qadr[b]
        w = 3 + NROT[body_rtype[b]]
        for i in range(a, a + w):
            for j in range(a, a + w):
                Jq[i, j] = 0.0
                Jqd[i, j] = 0.0
    for k in range(frc_body.shape[0]):
        for s1 in range(2):
            b1 = frc_body[k, s1]
            a1 = body_qadr[b1]
            if a1 < 0:
                continue
            w1 = 3 + NROT[body_rtype[b1]]
            for s2 in range(2):
                b2 = frc_body[k, s2]
                a2 = body_qadr[b2]
                if a2 < 0 or s1 == s2:
                    continue
                w2 = 3 + NROT[body_rtype[b2]]
                for i in range(a1, a1 + w1):
                    for j in range(a2, a2 + w2):
                        Jq[i, j] = 0.0
                        Jqd[i, j] = 0.0


@njit(cache=True, inline="always")
def _sk(v, out):
    out[0, 0] = 0.0; out[0, 1] = -v[2]; out[0, 2] = v[1]
    out[1, 0] = v[2]; out[1, 1] = 0.0; out[1, 2] = -v[0]
    out[2, 0] = -v[1]; out[2, 1] = v[0]; out[2, 2] = 0.0


@njit(cache=True, inline="always")
def _mat(buf, o, d0, d1):
    """The d0×d1 row-major matrix at offset o of a flat buffer (see :func:`arena.c_view`)."""
    return c_view(buf[o:o + d0 * d1], (d0, d1))


@njit(cache=True)
def evaluate_cartesian(what, t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, wbuf, n, m):
    """Fill the requested quantities (``what`` flags of :mod:`rtmbs.protocol`) into the workspace
    buffer ``wbuf`` (M, Q, phi, phiq, phit, gamma, Jq, Jqd). The system's integer and float
    arrays and the scratch live in three packed buffers (see :mod:`arena` and
    :class:`rtmbs.system.CartesianSystem`)."""
    body_qadr = view1(ibuf, ilay, 0); body_rtype = view1(ibuf, ilay, 1); body_eprow = view1(ibuf, ilay, 2)
    prim_type = view1(ibuf, ilay, 3); prim_row = view1(ibuf, ilay, 4); prim_body = view2(ibuf, ilay, 5)
    prim_fun = view1(ibuf, ilay, 6); frc_type = view1(ibuf, ilay, 7); frc_body = view2(ibuf, ilay, 8)
    frc_fun = view2(ibuf, ilay, 9); frc_tab = view2(ibuf, ilay, 10); frc_stiff = view1(ibuf, ilay, 11)
    fun_type = view1(ibuf, ilay, 12); fun_tab = view1(ibuf, ilay, 13); tab_adr = view1(ibuf, ilay, 14)
    tab_len = view1(ibuf, ilay, 15)
    body_mass = view1(fbuf, flay, 0); body_inertia = view3(fbuf, flay, 1); gravity = view1(fbuf, flay, 2)
    prim_vec = view3(fbuf, flay, 3); prim_par = view2(fbuf, flay, 4); frc_vec = view3(fbuf, flay, 5)
    frc_rot = view4(fbuf, flay, 6); frc_par = view2(fbuf, flay, 7); fun_par = view2(fbuf, flay, 8)
    tab_x = view1(fbuf, flay, 9); tab_y = view1(fbuf, flay, 10)
    tyre_par = view2(fbuf, flay, 11); road_buf = view1(fbuf, flay, 12); tyre_x = view1(fbuf, flay, 13)
    kin_r = view2(sbuf, slay, 0); kin_rd = view2(sbuf, slay, 1); kin_A = view3(sbuf, slay, 2)
    kin_G = view3(sbuf, slay, 3); kin_dG = view4(sbuf, slay, 4); kin_W = view3(sbuf, slay, 5)
    kin_w = view2(sbuf, slay, 6); kin_alpha = view2(sbuf, slay, 7); kin_dadp = view3(sbuf, slay, 8)
    kin_dadpd = view3(sbuf, slay, 9); d2G = view4(sbuf, slay, 10)
    tmp = view2(sbuf, slay, 11); S = view3(sbuf, slay, 12); Dx = view2(sbuf, slay, 13)
    beta = view1(sbuf, slay, 14); f = view1(sbuf, slay, 15); tau = view1(sbuf, slay, 16)
    dfdx = view2(sbuf, slay, 17); dfdv = view2(sbuf, slay, 18); dtdx = view2(sbuf, slay, 19)
    dtdv = view2(sbuf, slay, 20); arm_i = view1(sbuf, slay, 21); sgj = view1(sbuf, slay, 22)
    Dd = view2(sbuf, slay, 23); Ddd = view2(sbuf, slay, 24); X = view2(sbuf, slay, 25)
    K = view2(sbuf, slay, 26); C = view2(sbuf, slay, 27)
    frc_out = view2(sbuf, slay, 28); mf = view1(sbuf, slay, 29)
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
    body_kinematics(q, qd, body_qadr, body_rtype, kin_r, kin_rd, kin_A, kin_G, kin_dG, kin_W,
                    kin_w, kin_alpha, kin_dadp, kin_dadpd, d2G)
    jac_all = (what & _JAC) != 0
    jac_any = jac_all or (what & _JACS) != 0
    do_q = (what & (_Q | _JAC | _JACS)) != 0  # Jacobians are computed with Q (and write it)
    if do_q:
        Q[:] = 0.0
    if jac_any:
        _zero_jacobian_blocks(body_qadr, body_rtype, frc_body, Jq, Jqd)
    nb = body_qadr.shape[0] - 1
    if what & _M or do_q:
        for b in range(nb):
            _inertia(b, body_qadr[b], NROT[body_rtype[b]], jac_all, body_mass[b], body_inertia[b],
                     gravity, kin_A, kin_G, kin_dG, kin_W, kin_w, kin_alpha, kin_dadp, kin_dadpd,
                     M, Q, Jq, Jqd, what, S, tmp)
    if do_q:
        funs = (fun_type, fun_par, fun_tab, tab_adr, tab_len, tab_x, tab_y)
        fjac = (f, tau, dfdx, dfdv, dtdx, dtdv)
        for k in range(frc_type.shape[0]):
            wj = jac_all or (jac_any and frc_stiff[k] != 0)
            frc_out[k, 0] = element_forces(
                k, t, wj, frc_type, frc_body, frc_vec, frc_rot, frc_par, frc_fun, frc_tab,
                funs, kin_r, kin_rd, kin_A, kin_w, fjac, arm_i, sgj, tmp, S, Dd, Ddd, X, tyre_par, road_buf,
                tyre_x, frc_out[k, 1:], mf)
            assemble_pair(frc_body[k, 0], frc_body[k, 1], wj, f, tau, dfdx, dfdv, dtdx, dtdv, arm_i, sgj,
                          body_qadr, body_rtype, kin_G, kin_dG, kin_W, Q, Jq, Jqd, K[0:6], K[6:12], C[0:6, 0:7],
                          C[6:12, 0:7], S[10:17])
    if what & (_PHI | _PHIQ | _GAMMA):
        constraint_rows(t, prim_type, prim_row, prim_body, prim_vec, prim_par, prim_fun,
                        fun_type, fun_par, fun_tab, tab_adr, tab_len, tab_x, tab_y,
                        kin_r, kin_rd, kin_A, kin_w, phi, phit, Dx, beta, tmp, S)
        scatter_constraints(what, prim_type, prim_row, prim_body, body_qadr, body_rtype, body_eprow,
                            q, qd, kin_G, kin_alpha, Dx, beta, phi, phiq, gamma)
