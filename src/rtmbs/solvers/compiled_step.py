"""Whole real-time steps as one compiled call (issue 11): evaluation, factorisation, solves,
projection and update of ``li-euler`` on the sparse path, over the packed buffers of a compiled
Cartesian model (:class:`rtmbs.system.CartesianSystem`).

Python calls :func:`li_euler_step` once per step (about 1 µs of call overhead for its ~15 array
arguments, PERFORMANCE.md) instead of 5-7 kernels with Python glue between them;
:func:`li_euler_step_outputs` (the real-time loop's step) adds the named outputs at the new state
in the same call; ``_li_euler_rollout`` runs many steps in one call (inputs as arrays over time, outputs into a
preallocated array; ``rtmbs.solvers.rollout``).

The arithmetic is that of :mod:`rtmbs.solvers.li_euler` (seed 000 eq. 22 with the implicit or the
explicit position update) with the projection of the positions done with the factors of eq. 22
(``projection="step"``): [A hΦq(q)ᵀ; Φq(q_p) 0][Δ; μ] = [0; −Φ(q⁺, t + h)], one factorisation
per step. :func:`li_euler_stab_step` runs the other stabilisations the same way: index-2
Baumgarte (eq. 22 with −γ_B Φ(q_p) in the bottom row), eq. 30 as written (``projection="mass"``:
a second KKT factorised at the new positions, :func:`rtmbs.solvers.storage.project_kkt`) and GGL
(its KKT factorised once, simplified Newton corrections of the positions, then eq. 22 at them).
M, Φq, Jq, Jq̇ live in their fixed blocks (the packed workspaces ``w0``, ``w1`` of
:func:`rtmbs.kernels.evaluate.packed_views`, read through a
:class:`rtmbs.solvers.sparse.PackedKKTMap`): memory O(non-zeros), not O(n²). ``vec`` packs the
step's vectors: rhs (n + m) | projection rhs (n + m) | tmp (n + m) | Δq (n) | q_p (n) |
GGL positions (n) | GGL η (m) | λ (m).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels.arena import borrowed
from ..kernels.evaluate import cartesian_outputs, evaluate_cartesian, packed_views
from ..kernels.extra_states import advance_extra_states
from ..kernels.cartesian import _M, _PACKED, _PHI, _PHIQ, _Q
from ..kernels.layout_views import data_buffers, model_ints
from .sparse import (_packed_parts, _phiq_value, a_times, kkt_values, kkt_values_packed,
                     kkt_values_products_packed, lu_solve_sp, phiq_times)
from .storage import project_kkt


@njit(cache=True)
def _update(q, qd, dq, rhs, h, implicit):
    n = q.shape[0]
    for i in range(n):
        if implicit:
            dq[i] = h * (qd[i] + rhs[i])
        q[i] += dq[i]
        qd[i] += rhs[i]


@njit(cache=True)
def _sp_factor_solve(ib, fb, idx, M, Q, Jq, Jqd, qd, phiq, phiq_1, phit_1, phi_1, gb, cv, h, rhs,
                     tmp, q, dq, lam, update, implicit):
    """Sparse eq. 22: gather and factor K on its fixed pattern; if the factors are healthy
    (pivot ratio > 0, largest multiplier <= ``glimit``) form the rhs as in :func:`_solve`, solve,
    and with ``update`` also do :func:`_update` and λ = rhs[n:] (the whole step after the
    evaluations in one compiled call). Returns (pivot ratio, largest multiplier)."""
    n = Q.shape[0]
    m = phiq_1.shape[0]
    ratio, growth = kkt_values(ib, fb, idx, M, Jq, Jqd, h * h, h, phiq, h, phiq_1)
    if ratio == 0.0:
        return ratio, growth
    a_times(idx, Jq, qd, tmp)
    for i in range(n):
        rhs[i] = h * Q[i] + h * h * tmp[i]
    phiq_times(idx, phiq_1, qd, tmp[:m])
    for i in range(m):
        rhs[n + i] = -(cv * (tmp[i] + phit_1[i]) + gb * phi_1[i])
    lu_solve_sp(ib, fb, rhs)
    if update:
        _update(q, qd, dq, rhs, h, implicit)
        for i in range(m):
            lam[i] = rhs[n + i]
    return ratio, growth


@njit(cache=True)
def _sp_factor_solve_packed(ib, fb, idx, w0, Q, qd, w1, phit_1, phi_1, gb, cv, h, rhs, tmp):
    """:func:`_sp_factor_solve` (without the update) from the packed workspaces: M, Jq, Jq̇, Φq(q)
    in ``w0``, Φq(q_p) in ``w1``; the same arithmetic in the same order, Jq q̇ and Φq q̇ taken
    in the gather's passes (Φq q̇ only when ``cv`` ≠ 0: the implicit position update has cv = 0).
    ``tmp``: n + m."""
    n = Q.shape[0]
    m = phit_1.shape[0]
    jx = tmp[:n]
    phix = tmp[n:n + m] if cv != 0.0 else tmp[:0]  # (cv = 0: Φq q̇ is not used)
    ratio, growth = kkt_values_products_packed(ib, fb, idx, w0, h * h, h, h, w1, qd, jx, phix)
    if ratio == 0.0:
        return ratio, growth
    for i in range(n):
        rhs[i] = h * Q[i] + h * h * jx[i]
    if cv != 0.0:
        for i in range(m):
            rhs[n + i] = -(cv * (phix[i] + phit_1[i]) + gb * phi_1[i])
    else:
        for i in range(m):
            rhs[n + i] = -(gb * phi_1[i])
    lu_solve_sp(ib, fb, rhs)
    return ratio, growth


@njit(cache=True, inline="always")
def _vectors(vec, n, m):
    N = n + m
    rhs = vec[0:N]
    prhs = vec[N:2 * N]
    tmp = vec[2 * N:3 * N]
    dq = vec[3 * N:3 * N + n]
    qp = vec[3 * N + n:3 * N + 2 * n]
    qk = vec[3 * N + 2 * n:3 * N + 3 * n]
    eta = vec[3 * N + 3 * n:3 * N + 3 * n + m]
    lam = vec[3 * N + 3 * n + m:3 * N + 3 * n + 2 * m]
    return rhs, prhs, tmp, dq, qp, qk, eta, lam


def vector_size(n: int, m: int) -> int:
    """Length of the ``vec`` buffer of :func:`li_euler_step` (module docstring)."""
    return 3 * (n + m) + 3 * n + 2 * m


#: ``stab`` of :func:`li_euler_stab_step`: no stabilisation, eq. 30 with the factors of eq. 22
#: (``projection="step"``), index-2 Baumgarte, eq. 30 with its own KKT (``projection="mass"``),
#: GGL positions
STAB_NONE, STAB_PROJECT, STAB_BAUMGARTE, STAB_MASS, STAB_GGL = 0, 1, 2, 3, 4


# -- GGL positions on the packed storage (seed 001 eq. 11; li_euler._step_ggl) ---------------------
@njit(cache=True)
def ggl_correct(ib, fb, h, phi, rhs, tmp, qk, eta):
    """The end of a simplified Newton correction of the GGL positions: with rhs[:n] = M(qk − qp)
    and tmp[:n] = Φq(q)ᵀη, solve [M hΦq(q)ᵀ; Φq(qp) 0][δq; δη] = −[rhs + h tmp; Φ(qk)] with the
    factors (ib, fb) and add (δq, δη) to (qk, η) (``li_euler._sp_ggl_newton``, dense storage)."""
    n = qk.shape[0]
    m = eta.shape[0]
    for i in range(n):
        rhs[i] = -(rhs[i] + h * tmp[i])
    for i in range(m):
        rhs[n + i] = -phi[i]
    lu_solve_sp(ib, fb, rhs)
    for i in range(n):
        qk[i] += rhs[i]
    for i in range(m):
        eta[i] += rhs[n + i]


@njit(cache=True)
def _ggl_newton_packed(ib, fb, pidx, w0, h, qp, qk, eta, phi, rhs, tmp):
    """:func:`ggl_correct` with M and Φq(q) read from the packed workspace ``w0`` through the GGL
    KKT's :class:`rtmbs.solvers.sparse.PackedKKTMap` ``pidx``: the products M(qk − qp) and
    Φq(q)ᵀη summed in the order of the entries, as ``sparse.a_times`` and
    ``li_euler._phiqt_times`` on the dense arrays (the same numbers)."""
    n = qk.shape[0]
    dj, ai, aj, am, aq, zr, zc, zptr, zidx, zmd, o = _packed_parts(pidx)
    for i in range(n):
        tmp[i] = qk[i] - qp[i]
    for i in range(n):
        rhs[i] = 0.0
    for e in range(ai.shape[0]):
        rhs[ai[e]] += w0[am[e]] * tmp[aj[e]]
    for i in range(n):
        tmp[i] = 0.0
    for e in range(zr.shape[0]):
        tmp[zc[e]] += _phiq_value(w0, zptr, zidx, e) * eta[zr[e]]
    ggl_correct(ib, fb, h, phi, rhs, tmp, qk, eta)


@njit(cache=True)
def li_euler_step(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q, qd, m, t,
                  h, jac_what, implicit, project, nproj, oidx0, out0):
    """One step of Algorithm 1 (seed 000 eq. 22, Table 1) on the sparse path: q, q̇ updated in
    place, λ into ``vec``; ``w0``, ``w1`` packed workspaces, ``kidx`` a
    :class:`rtmbs.solvers.sparse.PackedKKTMap`'s ``idx``. Returns (pivot ratio of eq. 22's factors, largest multiplier); a ratio
    of 0 means a singular or non-finite step (q, q̇ are then not to be trusted). ``nproj``
    projection solves, each after an evaluation of Φ at the corrected positions. Extra states
    (transient tyres, ``xstate``) are read at the step's end during the step (``xstate[0] = h``)
    and advanced after it with the inputs of the evaluation at t
    (:func:`rtmbs.kernels.extra_states.advance_extra_states`), as ``Solver.step`` does from
    Python. ``out0[k] = data[oidx0[k]]`` right after the evaluation at t: the named outputs at
    the step's start (``oidx0`` empty: none). :func:`li_euler_stab_step` with ``stab``
    STAB_PROJECT (``project``) or STAB_NONE and no second KKT."""
    ratio, growth, _, _ = li_euler_stab_step(
        ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q, qd, m, t, h,
        jac_what, implicit, STAB_PROJECT if project else STAB_NONE, nproj, 0.0, kib, kfb, kidx,
        oidx0, out0)
    return ratio, growth


@njit(cache=True)
def li_euler_stab_step(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q, qd, m,
                       t, h, jac_what, implicit, stab, niter, gamma, pib, pfb, pidx, oidx0, out0):
    """:func:`li_euler_step` for every stabilisation ``stab`` (STAB_*): ``niter`` the projection
    solves (STAB_PROJECT) or the GGL corrections (STAB_GGL); ``gamma`` Baumgarte's γ_B
    (negative: 1/h); (pib, pfb, pidx) the factors and :class:`rtmbs.solvers.sparse.PackedKKTMap`
    index of the second KKT matrix of the step: the projector's [M hΦqᵀ; Φq 0] at the new
    positions (STAB_MASS, :func:`rtmbs.solvers.storage.project_kkt`) or the GGL matrix
    [M hΦq(q)ᵀ; Φq(q_p) 0] (top Φq from ``w0``, bottom from ``w1``). The arithmetic of
    ``LIEuler._step_impl`` / ``_step_ggl`` on the sparse path, kernel for kernel. Returns (pivot
    ratio and largest multiplier of eq. 22's factors, the same of the second KKT's; 1, 0
    without one); the step failed if either ratio is 0."""
    # borrowed (untracked) arrays: none of the ~150 views of a step takes an atomic reference
    # count (the caller owns every buffer for the whole call)
    ibuf = borrowed(ibuf); ilay = borrowed(ilay); fbuf = borrowed(fbuf); flay = borrowed(flay)
    sbuf = borrowed(sbuf); slay = borrowed(slay); w0 = borrowed(w0); w1 = borrowed(w1)
    kib = borrowed(kib); kfb = borrowed(kfb); kidx = borrowed(kidx); vec = borrowed(vec)
    pib = borrowed(pib); pfb = borrowed(pfb); pidx = borrowed(pidx)
    q = borrowed(q); qd = borrowed(qd)
    n = q.shape[0]
    rhs, prhs, tmp, dq, qp, qk, eta, lam = _vectors(vec, n, m)
    nb = model_ints(ibuf, ilay).body_qadr.shape[0] - 1
    nblk = model_ints(ibuf, ilay).blk_pair.shape[0]
    m1 = data_buffers(sbuf, slay).Dx.shape[0]
    xstate = data_buffers(sbuf, slay).xstate
    extra = xstate.shape[0] > 1
    if extra:
        xstate[0] = h
    _, Q, _, _, _, _, _, _ = packed_views(w0, n, m, nb, m1, nblk)
    _, _, phi1, _, phit1, _, _, _ = packed_views(w1, n, m, nb, m1, nblk)
    what0 = _PACKED | _M | _Q | jac_what | (_PHIQ if m else 0)
    evaluate_cartesian(what0, t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, w0, n, m)
    for k in range(oidx0.shape[0]):
        out0[k] = sbuf[oidx0[k]] if oidx0[k] >= 0 else np.nan  # (sensors: C engine only)
    for i in range(n):
        dq[i] = h * qd[i]
        qp[i] = q[i] + dq[i]
    project = (stab == STAB_PROJECT or stab == STAB_MASS) and m > 0
    ggl = stab == STAB_GGL and m > 0
    gb, cv = 0.0, 1.0
    ratio2, growth2 = 1.0, 0.0
    if ggl:  # GGL positions from the predictor q_p (seed 001 eq. 11), then Φq at them
        for i in range(n):
            qk[i] = qp[i]
        for i in range(m):
            eta[i] = 0.0
        evaluate_cartesian(_PACKED | _PHI | _PHIQ, t + h, qp, qd, ibuf, ilay, fbuf, flay, sbuf,
                           slay, w1, n, m)
        ratio2, growth2 = kkt_values_packed(pib, pfb, pidx, w0, 0.0, 0.0, h, w1)
        for k in range(niter):
            if k > 0:
                evaluate_cartesian(np.int64(_PACKED | _PHI), t + h, qk, qd, ibuf, ilay, fbuf,
                                   flay, sbuf, slay, w1, n, m)
            _ggl_newton_packed(pib, pfb, pidx, w0, h, qp, qk, eta, phi1, prhs, tmp)
        evaluate_cartesian(np.int64(_PACKED | _PHIQ), t + h, qk, qd, ibuf, ilay, fbuf, flay, sbuf,
                           slay, w1, n, m)
    elif m:
        baumgarte = stab == STAB_BAUMGARTE
        evaluate_cartesian(_PACKED | _PHIQ | (_PHI if project or implicit or baumgarte else 0),
                           t + h, qp, qd, ibuf, ilay, fbuf, flay, sbuf, slay, w1, n, m)
        if implicit:
            gb, cv = 1.0 / h, 0.0
        elif baumgarte:
            gb = 1.0 / h if gamma < 0.0 else gamma
    ratio, growth = _sp_factor_solve_packed(kib, kfb, kidx, w0, Q, qd, w1, phit1, phi1, gb, cv, h,
                                            rhs, tmp)
    if ratio == 0.0:
        return ratio, growth, ratio2, growth2
    if project:
        if implicit:  # the new positions q + h(q̇ + Δq̇)
            for i in range(n):
                dq[i] = h * (qd[i] + rhs[i])
        if stab == STAB_MASS:  # eq. 30 as written: its own KKT at the new positions
            if implicit:
                for i in range(n):
                    qp[i] = q[i] + dq[i]
                evaluate_cartesian(np.int64(_PACKED | _PHI | _PHIQ), t + h, qp, qd, ibuf, ilay,
                                   fbuf, flay, sbuf, slay, w1, n, m)
            ratio2, growth2 = project_kkt(pib, pfb, pidx, w0, w1, phi1, h, prhs, dq)
        for k in range(niter if stab == STAB_PROJECT else 0):
            if implicit or k > 0:  # Φ at the (corrected) new positions
                for i in range(n):
                    qp[i] = q[i] + dq[i]
                evaluate_cartesian(np.int64(_PACKED | _PHI), t + h, qp, qd, ibuf, ilay, fbuf, flay, sbuf,
                                   slay, w1, n, m)
            for i in range(n):
                prhs[i] = 0.0
            for i in range(m):
                prhs[n + i] = -phi1[i]
            lu_solve_sp(kib, kfb, prhs)
            for i in range(n):
                dq[i] += prhs[i]
        _update(q, qd, dq, rhs, h, False)
    elif ggl:  # q⁺ = the corrected positions
        for i in range(n):
            dq[i] = qk[i] - q[i]
        _update(q, qd, dq, rhs, h, False)
    else:
        _update(q, qd, dq, rhs, h, implicit)
    for i in range(m):
        lam[i] = rhs[n + i]
    if extra:  # (the Φ evaluations at q_p write no element outputs: those at t are used)
        advance_extra_states(ibuf, ilay, fbuf, flay, sbuf, slay, h)
    return ratio, growth, ratio2, growth2


@njit(cache=True)
def li_euler_step_outputs(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q, qd, m,
                          t, h, jac_what, implicit, project, nproj, oidx, out, at_start):
    """:func:`li_euler_step`, then the named outputs at (t + h, q⁺, q̇⁺) into ``out``
    (``oidx``: ``CartesianSystem.output_index``; :func:`rtmbs.kernels.evaluate.cartesian_outputs`,
    evaluated in ``w1``, whose Φq and Φ the step has used): what the real-time loop publishes, in
    the same compiled call. ``out`` is left as it was when the step fails (ratio 0). With
    ``at_start`` the outputs are those at (t, q, q̇) instead, gathered from the step's own
    evaluation there (no evaluation more: MuJoCo's ``sensordata`` after ``mj_step``).
    :func:`li_euler_stab_step_outputs` with STAB_PROJECT or STAB_NONE."""
    ratio, growth, _, _ = li_euler_stab_step_outputs(
        ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q, qd, m, t, h,
        jac_what, implicit, STAB_PROJECT if project else STAB_NONE, nproj, 0.0, kib, kfb, kidx,
        oidx, out, at_start)
    return ratio, growth


@njit(cache=True)
def li_euler_stab_step_outputs(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q,
                               qd, m, t, h, jac_what, implicit, stab, niter, gamma, pib, pfb, pidx,
                               oidx, out, at_start):
    """:func:`li_euler_stab_step`, then the named outputs as :func:`li_euler_step_outputs` (none
    when either factorisation failed)."""
    no = oidx[:0]
    ratio, growth, ratio2, growth2 = li_euler_stab_step(
        ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q, qd, m, t, h, jac_what,
        implicit, stab, niter, gamma, pib, pfb, pidx, oidx if at_start else no,
        out if at_start else out[:0])
    if ratio > 0.0 and ratio2 > 0.0 and oidx.shape[0] and not at_start:
        step_outputs(t + h, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, w1, m, oidx, out)
    return ratio, growth, ratio2, growth2


@njit(cache=True, inline="always")
def step_outputs(t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, w, m, oidx, out):
    """The named outputs after a step at the deflections it advanced (``xstate[0] = 0`` while
    they are evaluated, as in ``CartesianSystem.outputs``; the step's h is put back)."""
    xstate = data_buffers(sbuf, slay).xstate
    h = xstate[0]
    xstate[0] = 0.0
    cartesian_outputs(t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, w, q.shape[0], m, oidx, out)
    xstate[0] = h
