"""Force elements with analytic Jacobians (numba, no allocation).

Every element produces, in virtual coordinates of its two bodies i, j (see :mod:`cartesian`):
a force f on body j applied at the point P_j (and −f on body i at the same point) and a pure
couple τ on j (−τ on i), with their derivatives ∂f/∂x, ∂f/∂v, ∂τ/∂x, ∂τ/∂v (3×12, x = (δr_i, δπ_i,
δr_j, δπ_j) at fixed global velocities v = (ṙ_i, ω_i, ṙ_j, ω_j)). :func:`accumulate_element` adds
them to 6×6 blocks in virtual coordinates per body pair, and :func:`map_virtual_blocks` maps each
block once to the generalised forces and their Jacobians in q (through L = blockdiag(I, G)).
Single-body loads use the ground (index nb) as body i.
"""
from __future__ import annotations

from numba import njit

from .element_kernels.dispatch import element_kernel, torque_only  # noqa: F401  (torque_only: kernels.evaluate)
from .cartesian import SEG
from .functions import fun_eval
from .rotations import NROT, ROT_EP


@njit(cache=True, inline="always")
def _point_pv(b, s_loc, kin_r, kin_rd, kin_A, kin_w, sg, rp, vp):
    """Global arm sg = A s, point rp and its velocity vp (no bias acceleration: forces)."""
    A = kin_A[b]
    w = kin_w[b]
    for c in range(3):
        sg[c] = A[c, 0] * s_loc[0] + A[c, 1] * s_loc[1] + A[c, 2] * s_loc[2]
    vp[0] = kin_rd[b, 0] + w[1] * sg[2] - w[2] * sg[1]
    vp[1] = kin_rd[b, 1] + w[2] * sg[0] - w[0] * sg[2]
    vp[2] = kin_rd[b, 2] + w[0] * sg[1] - w[1] * sg[0]
    for c in range(3):
        rp[c] = kin_r[b, c] + sg[c]


@njit(cache=True, inline="always")
def element_forces(k, t, with_jac, frc_type, frc_body, frc_vec, frc_rot, frc_par, frc_fun, frc_tab,
                   funs, kin_r, kin_rd, kin_A, kin_w, fjac, arm_i, sgj,
                   tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf):
    """Force f at P_j, couple τ and their Jacobians for element k; returns a scalar output
    (the element's main force or torque, for named outputs); elements with named outputs also
    fill ``outs``. The points, their velocities and the function value are computed here, the
    rest by the element's kernel (:mod:`rtmbs.kernels.elements`, called through the dispatcher generated
    from the registry).

    ``funs`` = (fun_type, fun_par, fun_tab, tab_adr, tab_len, tab_x, tab_y) and
    ``fjac`` = (f, τ, ∂f/∂x, ∂f/∂v, ∂τ/∂x, ∂τ/∂v) are tuples so that the call has fewer than 30
    arguments (CPython passes longer calls as *args, which numba cannot inline).
    """
    fun_type, fun_par, fun_tab, tab_adr, tab_len, tab_x, tab_y = funs
    f, tau = fjac[0], fjac[1]
    bi = frc_body[k, 0]
    bj = frc_body[k, 1]
    for c in range(3):
        f[c] = 0.0
        tau[c] = 0.0
    sgi = tmp[0]; rpi = tmp[1]; vpi = tmp[2]
    rpj = tmp[5]; vpj = tmp[6]
    d = tmp[8]; dd = tmp[9]
    _point_pv(bi, frc_vec[k, 0], kin_r, kin_rd, kin_A, kin_w, sgi, rpi, vpi)
    _point_pv(bj, frc_vec[k, 1], kin_r, kin_rd, kin_A, kin_w, sgj, rpj, vpj)
    for c in range(3):
        d[c] = rpj[c] - rpi[c]
        dd[c] = vpj[c] - vpi[c]
        arm_i[c] = d[c] + sgi[c]
    fv = 1.0
    if frc_fun[k, 0] >= 0:
        fv, _, _ = fun_eval(frc_fun[k, 0], t, fun_type, fun_par, fun_tab, tab_adr, tab_len, tab_x, tab_y)
    return element_kernel(frc_type[k], k, bi, bj, with_jac, fv, frc_par[k], frc_rot, frc_tab, funs, kin_A,
                          kin_w, fjac, arm_i, sgj, tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf)


@njit(cache=True, inline="always")
def accumulate_element(k, bi, bj, with_jac, torque_only, f, tau, dfdx, dfdv, dtdx, dtdv, arm_i, sgj, frc_blk,
                       vQ, vK, vC):
    """Add element k's force f (at P_j on j, −f on i) and couple τ to the virtual generalised
    forces vQ (per body: force, torque, and again the torque if the Jacobian counts it) and, with ``with_jac``, its Jacobians to the 6×6 virtual
    blocks vK = ∂Q_x/∂x, vC = ∂Q_x/∂v of its body pairs (mapped to q once per block afterwards).

    Q_x,a = T_a [f; τ] with T_i = −[[I, 0], [ãrm_i, I]], T_j = [[I, 0], [s̃g_j, I]], so
    K_ab = T_a D_b + X_ab and C_ab = T_a E_b with D = [∂f/∂x; ∂τ/∂x], E = [∂f/∂v; ∂τ/∂v] and the
    arm terms X_i = f̃ ∂arm_i/∂x = f̃ [−I, 0, I, −s̃g_j], X_jj = f̃ s̃g_j on (π_j, π_j).
    """
    f0, f1, f2 = f[0], f[1], f[2]
    t0, t1, t2 = tau[0], tau[1], tau[2]
    ai0, ai1, ai2 = arm_i[0], arm_i[1], arm_i[2]
    sj0, sj1, sj2 = sgj[0], sgj[1], sgj[2]
    vQ[bi, 0] -= f0
    vQ[bi, 1] -= f1
    vQ[bi, 2] -= f2
    vQ[bi, 3] -= ai1 * f2 - ai2 * f1 + t0
    vQ[bi, 4] -= ai2 * f0 - ai0 * f2 + t1
    vQ[bi, 5] -= ai0 * f1 - ai1 * f0 + t2
    vQ[bj, 0] += f0
    vQ[bj, 1] += f1
    vQ[bj, 2] += f2
    vQ[bj, 3] += sj1 * f2 - sj2 * f1 + t0
    vQ[bj, 4] += sj2 * f0 - sj0 * f2 + t1
    vQ[bj, 5] += sj0 * f1 - sj1 * f0 + t2
    if not with_jac:
        return
    # the torques whose (∂Gᵀ/∂p) τ term the Jacobian counts (stiff-only Jacobians exclude the others)
    vQ[bi, 6] -= ai1 * f2 - ai2 * f1 + t0
    vQ[bi, 7] -= ai2 * f0 - ai0 * f2 + t1
    vQ[bi, 8] -= ai0 * f1 - ai1 * f0 + t2
    vQ[bj, 6] += sj1 * f2 - sj2 * f1 + t0
    vQ[bj, 7] += sj2 * f0 - sj0 * f2 + t1
    vQ[bj, 8] += sj0 * f1 - sj1 * f0 + t2
    if torque_only:  # f = 0 and τ depends on the rotations and angular velocities only
        for sa in range(2):
            sg = -1.0 if sa == 0 else 1.0
            for sb in range(2):
                blk = frc_blk[k, 2 * sa + sb]
                if blk < 0:
                    continue
                K = vK[blk]
                C = vC[blk]
                c0 = 6 * sb
                for r in range(3):
                    for c in range(3, 6):
                        K[3 + r, c] += sg * dtdx[r, c0 + c]
                        C[3 + r, c] += sg * dtdv[r, c0 + c]
        return
    for sa in range(2):
        sg = -1.0 if sa == 0 else 1.0
        a0, a1, a2 = (ai0, ai1, ai2) if sa == 0 else (sj0, sj1, sj2)
        for sb in range(2):
            blk = frc_blk[k, 2 * sa + sb]
            if blk < 0:
                continue
            K = vK[blk]
            C = vC[blk]
            c0 = 6 * sb
            for c in range(6):
                d0, d1, d2 = dfdx[0, c0 + c], dfdx[1, c0 + c], dfdx[2, c0 + c]
                e0, e1, e2 = dfdv[0, c0 + c], dfdv[1, c0 + c], dfdv[2, c0 + c]
                K[0, c] += sg * d0
                K[1, c] += sg * d1
                K[2, c] += sg * d2
                K[3, c] += sg * (a1 * d2 - a2 * d1 + dtdx[0, c0 + c])
                K[4, c] += sg * (a2 * d0 - a0 * d2 + dtdx[1, c0 + c])
                K[5, c] += sg * (a0 * d1 - a1 * d0 + dtdx[2, c0 + c])
                C[0, c] += sg * e0
                C[1, c] += sg * e1
                C[2, c] += sg * e2
                C[3, c] += sg * (a1 * e2 - a2 * e1 + dtdv[0, c0 + c])
                C[4, c] += sg * (a2 * e0 - a0 * e2 + dtdv[1, c0 + c])
                C[5, c] += sg * (a0 * e1 - a1 * e0 + dtdv[2, c0 + c])
    # arm terms: ±f̃ on (π_i, r_i), (π_i, r_j); f̃ s̃g_j = sg_j fᵀ − (f·sg_j) I on (π_i, π_j), (π_j, π_j)
    bii, bij, bjj = frc_blk[k, 0], frc_blk[k, 1], frc_blk[k, 3]
    for blk, sg in ((bii, -1.0), (bij, 1.0)):
        if blk >= 0:
            K = vK[blk]
            K[3, 1] -= sg * f2
            K[3, 2] += sg * f1
            K[4, 0] += sg * f2
            K[4, 2] -= sg * f0
            K[5, 0] -= sg * f1
            K[5, 1] += sg * f0
    fs = f0 * sj0 + f1 * sj1 + f2 * sj2
    for blk, sg in ((bij, -1.0), (bjj, 1.0)):
        if blk >= 0:
            K = vK[blk]
            for r in range(3):
                for c in range(3):
                    K[3 + r, 3 + c] += sg * (sgj[r] * f[c] - (fs if r == c else 0.0))


@njit(cache=True, inline="always")
def _rdot(K, r, c0, g0, g1, g2):
    return K[r, c0] * g0 + K[r, c0 + 1] * g1 + K[r, c0 + 2] * g2


@njit(cache=True, inline="always")
def _map_block(K, C, Ga, Gb, Wb, qa, qb, nra, nrb, Jq, Jqd):
    """Jq_ab = L_aᵀ (K L_b + C_ω W_b), Jq̇_ab = L_aᵀ C L_b for one 6×6 virtual block, one
    column of L_b at a time (the column of K L_b and C L_b stays in registers)."""
    for col in range(3 + nrb):
        if col < 3:
            k0, k1, k2, k3, k4, k5 = K[0, col], K[1, col], K[2, col], K[3, col], K[4, col], K[5, col]
            c0, c1, c2, c3, c4, c5 = C[0, col], C[1, col], C[2, col], C[3, col], C[4, col], C[5, col]
        else:
            l = col - 3
            g0, g1, g2 = Gb[0, l], Gb[1, l], Gb[2, l]
            w0, w1, w2 = Wb[0, l], Wb[1, l], Wb[2, l]
            c0 = _rdot(C, 0, 3, g0, g1, g2)
            c1 = _rdot(C, 1, 3, g0, g1, g2)
            c2 = _rdot(C, 2, 3, g0, g1, g2)
            c3 = _rdot(C, 3, 3, g0, g1, g2)
            c4 = _rdot(C, 4, 3, g0, g1, g2)
            c5 = _rdot(C, 5, 3, g0, g1, g2)
            k0 = _rdot(K, 0, 3, g0, g1, g2) + _rdot(C, 0, 3, w0, w1, w2)
            k1 = _rdot(K, 1, 3, g0, g1, g2) + _rdot(C, 1, 3, w0, w1, w2)
            k2 = _rdot(K, 2, 3, g0, g1, g2) + _rdot(C, 2, 3, w0, w1, w2)
            k3 = _rdot(K, 3, 3, g0, g1, g2) + _rdot(C, 3, 3, w0, w1, w2)
            k4 = _rdot(K, 4, 3, g0, g1, g2) + _rdot(C, 4, 3, w0, w1, w2)
            k5 = _rdot(K, 5, 3, g0, g1, g2) + _rdot(C, 5, 3, w0, w1, w2)
        j = qb + col
        Jq[qa, j] = k0
        Jq[qa + 1, j] = k1
        Jq[qa + 2, j] = k2
        Jqd[qa, j] = c0
        Jqd[qa + 1, j] = c1
        Jqd[qa + 2, j] = c2
        for kk in range(nra):
            Jq[qa + 3 + kk, j] = Ga[0, kk] * k3 + Ga[1, kk] * k4 + Ga[2, kk] * k5
            Jqd[qa + 3 + kk, j] = Ga[0, kk] * c3 + Ga[1, kk] * c4 + Ga[2, kk] * c5


@njit(cache=True, inline="always")
def _map_rotation_block(K, C, Ga, Gb, Wb, qa, qb, nra, nrb, Jq, Jqd):
    """:func:`_map_block` for a block with rotation terms only (inertia, torques): the
    translational rows and columns are written as zeros."""
    for r in range(3):
        for col in range(3 + nrb):
            Jq[qa + r, qb + col] = 0.0
            Jqd[qa + r, qb + col] = 0.0
    for kk in range(nra):
        for col in range(3):
            Jq[qa + 3 + kk, qb + col] = 0.0
            Jqd[qa + 3 + kk, qb + col] = 0.0
    for l in range(nrb):
        g0, g1, g2 = Gb[0, l], Gb[1, l], Gb[2, l]
        w0, w1, w2 = Wb[0, l], Wb[1, l], Wb[2, l]
        c3 = _rdot(C, 3, 3, g0, g1, g2)
        c4 = _rdot(C, 4, 3, g0, g1, g2)
        c5 = _rdot(C, 5, 3, g0, g1, g2)
        k3 = _rdot(K, 3, 3, g0, g1, g2) + _rdot(C, 3, 3, w0, w1, w2)
        k4 = _rdot(K, 4, 3, g0, g1, g2) + _rdot(C, 4, 3, w0, w1, w2)
        k5 = _rdot(K, 5, 3, g0, g1, g2) + _rdot(C, 5, 3, w0, w1, w2)
        j = qb + 3 + l
        for kk in range(nra):
            Jq[qa + 3 + kk, j] = Ga[0, kk] * k3 + Ga[1, kk] * k4 + Ga[2, kk] * k5
            Jqd[qa + 3 + kk, j] = Ga[0, kk] * c3 + Ga[1, kk] * c4 + Ga[2, kk] * c5


@njit(cache=True, inline="always")
def virtual_blocks_to_clear(blk_pair, stiff_only, vK, vC):
    """Zero the virtual Jacobian blocks the elements (and, without ``stiff_only``, the inertia
    terms) accumulate into; with ``stiff_only`` only those a stiff element writes."""
    for blk in range(blk_pair.shape[0]):
        if stiff_only and blk_pair[blk, 3] == 0:
            continue
        vK[blk, :, :] = 0.0
        vC[blk, :, :] = 0.0


@njit(cache=True, fastmath={"contract"}, inline="always")
def map_virtual_blocks(what_jac, stiff_only, packed, blk_pair, body_qadr, body_rtype, kin_G, kin_dG,
                       kin_W, vQ, vK, vC, vP, Q, Jq, Jqd, KL):
    """Q_q = Lᵀ Q_x per body and, with ``what_jac``, Jq_ab = L_aᵀ (K_ab L_b + C_ab,ω W_b)
    + δ_ab [(∂Gᵀ/∂p) τ_b + direct p-terms], Jq̇_ab = L_aᵀ C_ab L_b for every block, with
    L = blockdiag(I, G) (seed 003 §4.2; seed 000 eqs. 1, 3). Every block is written (not added),
    so Jq and Jq̇ need no clearing; with ``stiff_only`` (the stiff terms' Jacobians) a block no
    stiff element writes (``blk_pair[k, 3]`` = 0) is written as zeros without the mapping (its
    virtual blocks hold nothing: :func:`virtual_blocks_to_clear`). ``packed``: block k at rows
    SEG·k, columns 0 of Jq, Jq̇ (:func:`rtmbs.kernels.evaluate.packed_views`), else at the
    bodies' coordinates."""
    nb = body_qadr.shape[0] - 1
    for b in range(nb):
        a = body_qadr[b]
        G = kin_G[b]
        for c in range(3):
            Q[a + c] = vQ[b, c]
        for l in range(NROT[body_rtype[b]]):
            Q[a + 3 + l] = G[0, l] * vQ[b, 3] + G[1, l] * vQ[b, 4] + G[2, l] * vQ[b, 5]
    if not what_jac:
        return
    for blk in range(blk_pair.shape[0]):
        ba = blk_pair[blk, 0]
        bb = blk_pair[blk, 1]
        qa = SEG * blk if packed else body_qadr[ba]
        qb = 0 if packed else body_qadr[bb]
        nra = NROT[body_rtype[ba]]
        nrb = NROT[body_rtype[bb]]
        if stiff_only and blk_pair[blk, 3] == 0:  # no stiff term: zero
            if packed:  # (the whole SEG × SEG block, contiguous)
                Jq[qa:qa + SEG, :] = 0.0
                Jqd[qa:qa + SEG, :] = 0.0
                continue
            for r in range(3 + nra):
                for col in range(3 + nrb):
                    Jq[qa + r, qb + col] = 0.0
                    Jqd[qa + r, qb + col] = 0.0
            continue
        Ga = kin_G[ba]
        if blk_pair[blk, 2] == 0:  # rotation terms only
            if nra == 4 and nrb == 4:  # Euler parameters on both sides: constant trip counts
                _map_rotation_block(vK[blk], vC[blk], Ga, kin_G[bb], kin_W[bb], qa, qb, 4, 4, Jq, Jqd)
            else:
                _map_rotation_block(vK[blk], vC[blk], Ga, kin_G[bb], kin_W[bb], qa, qb, nra, nrb, Jq, Jqd)
        elif nra == 4 and nrb == 4:
            _map_block(vK[blk], vC[blk], Ga, kin_G[bb], kin_W[bb], qa, qb, 4, 4, Jq, Jqd)
        else:
            _map_block(vK[blk], vC[blk], Ga, kin_G[bb], kin_W[bb], qa, qb, nra, nrb, Jq, Jqd)
        if ba != bb:
            continue
        # (∂Gᵀ/∂p_k) τ with the body's virtual torque of the counted terms, and the direct p-terms
        T0, T1, T2 = vQ[ba, 6], vQ[ba, 7], vQ[ba, 8]
        dG = kin_dG[ba]
        for l in range(nra):
            for kk in range(nra):
                Jq[qa + 3 + l, qb + 3 + kk] += dG[kk, 0, l] * T0 + dG[kk, 1, l] * T1 + dG[kk, 2, l] * T2
        if body_rtype[ba] != ROT_EP:
            for l in range(nra):
                for kk in range(nra):
                    s = 0.0
                    sv = 0.0
                    for c in range(3):
                        s += Ga[c, l] * vP[ba, 0, c, kk]
                        sv += Ga[c, l] * vP[ba, 1, c, kk]
                    Jq[qa + 3 + l, qb + 3 + kk] += s
                    Jqd[qa + 3 + l, qb + 3 + kk] += sv
