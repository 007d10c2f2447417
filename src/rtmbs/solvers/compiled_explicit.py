"""``explicit-euler`` as one compiled call per step (issue 11), and its compiled rollout.

:func:`explicit_euler_step` runs the whole step of :mod:`rtmbs.solvers.explicit` (seed 000
eqs. 11-12, 14) on the sparse path of a compiled Cartesian model: the evaluation at (t, q, q̇)
into the packed workspace ``w0`` (M, Q, Φq, Φt, γ [, Φ for Baumgarte]), the KKT matrix
[M Φqᵀ; Φq 0] gathered from it through a :class:`rtmbs.solvers.sparse.PackedKKTMap` and
factorised, [Q; γ] (Baumgarte at index 1: γ − 2α(Φq q̇ + Φt) − β²Φ, eq. 4) solved, and with
``stab`` = STAB_PROJECT Φ at (t + h, q + h q̇) in ``w1`` and the correction of eq. 30 with the same
factors; then q ← q + Δq, q̇ ← q̇ + h q̈ and the extra states (transient tyres) advanced, as
``Solver.step`` does from Python. The kernels and the order of every sum are those of the
Python-driven sparse step (``ExplicitEuler._step_impl``), so the numbers are the same bit for
bit. :func:`explicit_euler_step_outputs` adds the named outputs at the new state (or at the
step's start) in the same call; :func:`_explicit_euler_rollout` runs many steps in one call
(:func:`run`, ``ExplicitEuler.rollout_runner``, ``rtmbs.solvers.rollout``).

M and Φq live in their fixed blocks (memory O(non-zeros)); ``vec`` packs the step's vectors:
rhs = [q̈; λ] (n + m) | projection rhs (n + m) | Δq (n) | q + Δq (n).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..engine import _engine
from ..kernels.arena import borrowed
from ..kernels.cartesian import _GAMMA, _M, _PACKED, _PHI, _PHIQ, _Q
from ..kernels.evaluate import evaluate_cartesian, packed_views
from ..kernels.extra_states import advance_extra_states
from ..kernels.layout_views import data_buffers, model_ints
from .compiled_step import STAB_BAUMGARTE, STAB_NONE, STAB_PROJECT, step_outputs
from .factorisation import kkt_correction
from .rollout import before_step, end_step, run_rollout_kernel
from .sparse import _packed_parts, _phiq_value, kkt_values_packed, lu_solve_sp

#: ``stab`` of :func:`explicit_euler_step` for each ``stabilize`` option
STAB = {"none": STAB_NONE, "baumgarte": STAB_BAUMGARTE, "projection": STAB_PROJECT}


def vector_size(n: int, m: int) -> int:
    """Length of the ``vec`` buffer of :func:`explicit_euler_step` (module docstring)."""
    return 2 * (n + m) + 2 * n


@njit(cache=True)
def update(q, qd, dq, rhs, h):
    """q ← q + Δq, q̇ ← q̇ + h q̈ (eq. 11; q̈ = rhs[:n])."""
    n = q.shape[0]
    for i in range(n):
        q[i] += dq[i]
        qd[i] += h * rhs[i]


@njit(cache=True)
def _baumgarte_packed(idx, w, qd, gamma, phit, phi, alpha, beta, out):
    """out = γ − 2α(Φq q̇ + Φt) − β²Φ (eq. 4) with Φq read from the packed workspace ``w``
    through ``idx``: each row's sum from Φt in the order of its columns, as
    ``stabilization.baumgarte_index1`` sums it over the dense row (the same numbers)."""
    dj, ai, aj, am, aq, zr, zc, zptr, zidx, zmd, o = _packed_parts(idx)
    m = out.shape[0]
    for i in range(m):
        out[i] = phit[i]
    for e in range(zr.shape[0]):  # (row by row, columns ascending: np.nonzero's order)
        out[zr[e]] += _phiq_value(w, zptr, zidx, e) * qd[zc[e]]
    b2 = beta * beta
    for i in range(m):
        out[i] = gamma[i] - 2.0 * alpha * out[i] - b2 * phi[i]


@njit(cache=True)
def explicit_euler_step(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q, qd,
                        m, t, h, stab, alpha, beta, semi, oidx0, out0):
    """One step of explicit Euler on the index-1 form (seed 000 eqs. 11-12, 14): q, q̇ updated in
    place, λ into ``vec`` (rhs[n:]); ``w0``, ``w1`` packed workspaces, (kib, kfb) the factors of
    [M Φqᵀ; Φq 0] and ``kidx`` its :class:`rtmbs.solvers.sparse.PackedKKTMap` index; ``stab``
    STAB_NONE, STAB_BAUMGARTE (``alpha``, ``beta``: eq. 4) or STAB_PROJECT (eq. 30 with the same
    factors); ``semi``: the semi-implicit (symplectic) update q⁺ = q + h q̇⁺ instead of eq. 11's
    q + h q̇. Returns (pivot ratio, largest multiplier) of the factorisation; a ratio of 0 means
    a singular step (q, q̇ are then not to be trusted: the step is finished as the Python-driven
    one finishes it). Extra states are read at the step's end (``xstate[0] = h``) and advanced
    after it; ``out0[k] = data[oidx0[k]]`` right after the evaluation at t (the named outputs at
    the step's start; ``oidx0`` empty: none), as :func:`rtmbs.solvers.compiled_step.li_euler_step`."""
    ibuf = borrowed(ibuf); ilay = borrowed(ilay); fbuf = borrowed(fbuf); flay = borrowed(flay)
    sbuf = borrowed(sbuf); slay = borrowed(slay); w0 = borrowed(w0); w1 = borrowed(w1)
    kib = borrowed(kib); kfb = borrowed(kfb); kidx = borrowed(kidx); vec = borrowed(vec)
    q = borrowed(q); qd = borrowed(qd)
    n = q.shape[0]
    N = n + m
    rhs, prhs, dq, qp = vec[:N], vec[N:2 * N], vec[2 * N:2 * N + n], vec[2 * N + n:2 * N + 2 * n]
    ints, data = model_ints(ibuf, ilay), data_buffers(sbuf, slay)
    nb, nblk, m1 = ints.body_qadr.shape[0] - 1, ints.blk_pair.shape[0], data.Dx.shape[0]
    _, Q, phi, _, phit, gamma, _, _ = packed_views(w0, n, m, nb, m1, nblk)
    phi1 = packed_views(w1, n, m, nb, m1, nblk)[2]
    xstate = data.xstate
    if xstate.shape[0] > 1:  # (transient tyres: their deflections at the step's end)
        xstate[0] = h
    baumgarte = stab == STAB_BAUMGARTE and m > 0
    what = _PACKED | _M | _Q | (_PHIQ | _GAMMA if m else 0) | (_PHI if baumgarte else 0)
    evaluate_cartesian(what, t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, w0, n, m)
    for k in range(oidx0.shape[0]):
        out0[k] = sbuf[oidx0[k]] if oidx0[k] >= 0 else np.nan  # (sensors: C engine only)
    # [M Φqᵀ; Φq 0][q̈; λ] = [Q; γ] (eq. 12)
    ratio, growth = kkt_values_packed(kib, kfb, kidx, w0, 0.0, 0.0, 1.0, w0)
    for i in range(n):
        rhs[i] = Q[i]
    if baumgarte:
        _baumgarte_packed(kidx, w0, qd, gamma, phit, phi, alpha, beta, rhs[n:])
    else:
        for i in range(m):
            rhs[n + i] = gamma[i]
    lu_solve_sp(kib, kfb, rhs)
    for i in range(n):
        dq[i] = (qd[i] + h * rhs[i]) * h if semi else qd[i] * h
    if stab == STAB_PROJECT and m > 0:  # eq. 30 at q + Δq with the same factors
        for i in range(n):
            qp[i] = q[i] + dq[i]
        evaluate_cartesian(np.int64(_PACKED | _PHI), t + h, qp, qd, ibuf, ilay, fbuf, flay, sbuf,
                           slay, w1, n, m)
        kkt_correction(kib, kfb, phi1, prhs, dq)
    update(q, qd, dq, rhs, h)
    if xstate.shape[0] > 1:  # (the evaluation of Φ at q + Δq writes no element outputs)
        advance_extra_states(ibuf, ilay, fbuf, flay, sbuf, slay, h)
    return ratio, growth


@njit(cache=True)
def explicit_euler_step_outputs(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec,
                                q, qd, m, t, h, stab, alpha, beta, semi, oidx, out, at_start):
    """:func:`explicit_euler_step`, then the named outputs at (t + h, q⁺, q̇⁺) into ``out``
    (``oidx``: ``CartesianSystem.output_index``), evaluated in ``w1`` as
    :func:`rtmbs.solvers.compiled_step.li_euler_step_outputs` does; ``out`` is left as it was
    when the step fails. With ``at_start`` they are those at (t, q, q̇), gathered from the step's
    own evaluation there."""
    k0 = oidx.shape[0] if at_start else 0  # (the outputs at the start: all, or none)
    ratio, growth = explicit_euler_step(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx,
                                        vec, q, qd, m, t, h, stab, alpha, beta, semi, oidx[:k0],
                                        out[:k0])
    if ratio > 0.0 and oidx.shape[0] > k0:
        step_outputs(t + h, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, w1, m, oidx, out)
    return ratio, growth


@njit(cache=True)
def _explicit_euler_rollout(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q,
                            qd, m, t_origin, i0, h, stab, alpha, beta, semi, n_steps, every, chan,
                            inputs, oidx, out_t, out_q, out_qd, out_qd_prev, out_lam, out_y, out_x, q_good,
                            qd_good, x_good):
    """``n_steps`` steps of :func:`explicit_euler_step` from step ``i0`` (time t_origin + i h
    before step i), with the inputs, rows, outputs and stop at a failed (pivot ratio 0) or
    diverging step of :func:`rtmbs.solvers.rollout._li_euler_rollout`. Returns the number of
    good steps."""
    n = q.shape[0]
    fun_par = data_buffers(sbuf, slay).fun_par
    x = data_buffers(sbuf, slay).xstate[1:]
    lam = vec[n:n + m]
    bufs = (ibuf, ilay, fbuf, flay, sbuf, slay, w1, m, oidx)
    rows = (out_t, out_q, out_qd, out_lam, out_x, out_y)
    for k in range(n_steps):
        save, r = before_step(k, every, fun_par, chan, inputs, q, qd, x, q_good, qd_good, x_good,
                              out_qd_prev)
        ratio, _ = explicit_euler_step(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx,
                                       vec, q, qd, m, t_origin + (i0 + k) * h, h, stab, alpha,
                                       beta, semi, oidx[:0], out_t[:0])
        if not end_step(ratio > 0.0, save, r, t_origin + (i0 + k + 1) * h, q, qd, lam, x, q_good,
                        qd_good, x_good, bufs, rows):
            return k
    return n_steps


def run(solver, state, t_origin, i0, h, n_steps, every, chan, inputs, oidx, res):
    """A rollout of an ``explicit-euler`` solver with its compiled step (``fused``): the C
    engine's ``explicit_euler_rollout`` (src/rtmbs/engine/explicit_euler.c, the arguments of
    :func:`_explicit_euler_rollout`) through :func:`rtmbs.solvers.rollout.run_rollout_kernel`
    (``rtmbs.solvers.rollout._runner`` describes the arguments). Returns the good steps."""
    return run_rollout_kernel(_engine.explicit_euler_rollout, solver.step_options, solver, state,
                              t_origin, i0, h, n_steps, every, chan, inputs, oidx, res)
