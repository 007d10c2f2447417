"""``generalized-alpha``'s whole step as one compiled call (issue 11), its named outputs in the
same call and its compiled rollout, over the packed buffers of a compiled Cartesian model
(:class:`rtmbs.system.CartesianSystem`).

:func:`generalized_alpha_step` runs what ``GeneralizedAlpha._step_impl`` runs kernel by kernel
from Python on the sparse path (:mod:`rtmbs.solvers.generalized_alpha`): the predictor, the
``newton_iterations`` simplified Newton corrections (the iteration matrix
[M − sγ' Jq̇ − s Jq, Φqᵀ; Φq, 0] gathered from the packed workspace and factorised at the first),
the stabilisation (``STAB_VELOCITY``: ``VELOCITY_PASSES`` solves with the step's factors;
``STAB_PROJECTION``: [M Φqᵀ; Φq 0] gathered and factorised at q₁, positions then velocities;
``STAB_NONE``), the commit of q, q̇, q̈, λ and a, and the extra states (transient tyres,
:func:`rtmbs.kernels.extra_states.advance_extra_states`, with the inputs of the last force
evaluation, as ``Solver.step`` advances them from Python). The products M q̈₁, Φqᵀλ₁ and Φq q̇₁
are read from the packed blocks through a :class:`rtmbs.solvers.sparse.PackedKKTMap` of M's
pattern and Φq's (``midx``), entry by entry in the order of the dense kernels' ``entries``
(``rtmbs.solvers.products``): the same numbers in the same order, so the compiled step gives the
Python-driven sparse step's results bit for bit.

The solver's own state between steps (a, q̈, λ) lives in ``vec`` with the step's vectors:
q₁ (n) | q̇₁ (n) | q̈₁ (n) | a₁ (n) | a (n) | q̈ (n) | rhs (n + m) | λ₁ (m) | λ (m); the Python
object holds views of it, so a compiled rollout continues exactly as a loop of ``step``. The
packed workspace ``w0`` takes every evaluation of the step, ``w1`` the named outputs.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..engine import _engine
from ..kernels.arena import borrowed
from ..kernels.cartesian import _M, _PACKED, _PHI, _PHIQ, _Q
from ..kernels.evaluate import cartesian_outputs, evaluate_cartesian, packed_views
from ..kernels.extra_states import advance_extra_states
from ..kernels.layout_views import data_buffers, model_ints
from .compiled_step import step_outputs
from .factorisation import f_solve, kkt_correction
from .rollout import before_step, end_step
from .sparse import _packed_parts, _phiq_value, kkt_values_packed

#: Solves of the velocity correction with the step's factors (``stabilize="velocity"``): each
#: pass shrinks Φq q̇ + Φt by about 1e-3 on the spatial chain's whip (their Φq is the predictor's).
VELOCITY_PASSES = 2

#: ``stab`` of :func:`generalized_alpha_step`
STAB_NONE, STAB_VELOCITY, STAB_PROJECTION = 0, 1, 2

#: Values below this are set to 0 when a step is committed: the α_m recursion makes round-off
#: in motion that is exactly zero (out-of-plane components of a planar motion) decay towards
#: subnormal numbers, whose arithmetic is ~100× slower (a step went from 29 to 110 µs after
#: 5000 steps of the double pendulum). Products of three such values stay normal.
FLUSH = 1e-80


# -- the kernels of both paths (the Python-driven step calls them one by one) ---------------------
@njit(cache=True)
def _predict(q, qd, a, qdd, am, af, g, b, h, q1, v1, qdd1, a1):
    """Predictor q̈₁ = q̈: a₁, q̇₁, q₁ from the generalized-α relations."""
    h2 = h * h
    for i in range(q.shape[0]):
        qdd1[i] = qdd[i]
        a1[i] = (qdd[i] - am * a[i]) / (1.0 - am)
        v1[i] = qd[i] + h * ((1.0 - g) * a[i] + g * a1[i])
        q1[i] = q[i] + h * qd[i] + h2 * ((0.5 - b) * a[i] + b * a1[i])


@njit(cache=True)
def _correct(rhs, s, gp, bp, q1, v1, qdd1, lam1):
    """q₁ += Δq, q̇₁ += γ'Δq, q̈₁ += β'Δq, λ₁ += (sΔλ)/s."""
    n = q1.shape[0]
    for i in range(n):
        d = rhs[i]
        q1[i] += d
        v1[i] += gp * d
        qdd1[i] += bp * d
    for i in range(lam1.shape[0]):
        lam1[i] += rhs[n + i] / s


@njit(cache=True, inline="always")
def _flushed(x):
    return 0.0 if abs(x) < FLUSH else x


@njit(cache=True)
def _finish(q, qd, a, qdd, lam, q1, v1, qdd1, lam1, am, af):
    """a ← ((1 − α_f) q̈₁ + α_f q̈ − α_m a)/(1 − α_m), then commit q, q̇, q̈, λ (tiny values flushed
    to zero, ``FLUSH``)."""
    for i in range(q.shape[0]):
        a[i] = _flushed(((1.0 - af) * qdd1[i] + af * qdd[i] - am * a[i]) / (1.0 - am))
        q[i] = _flushed(q1[i])
        qd[i] = _flushed(v1[i])
        qdd[i] = _flushed(qdd1[i])
    for i in range(lam.shape[0]):
        lam[i] = _flushed(lam1[i])


@njit(cache=True)
def newton_end(fa, fb, phi, s, gp, bp, q1, v1, qdd1, lam1, rhs):
    """The end of a Newton correction, rhs[:n] holding Q − M q̈₁ − Φqᵀλ₁: rhs = [s rhs[:n]; −Φ],
    solved with the iteration matrix's factors (fa, fb), then :func:`_correct`."""
    n = q1.shape[0]
    for i in range(n):
        rhs[i] *= s
    for i in range(phi.shape[0]):
        rhs[n + i] = -phi[i]
    f_solve(fa, fb, rhs)
    _correct(rhs, s, gp, bp, q1, v1, qdd1, lam1)


@njit(cache=True)
def velocity_rhs(phit, rhs, n):
    """rhs = [0; −Φt] (the velocity correction's; −Φq q̇₁ is subtracted from the bottom next)."""
    for i in range(n):
        rhs[i] = 0.0
    for i in range(phit.shape[0]):
        rhs[n + i] = -phit[i]


@njit(cache=True)
def velocity_end(fa, fb, v1, rhs):
    """Solve with the factors (fa, fb) and add the velocity part to q̇₁."""
    f_solve(fa, fb, rhs)
    for i in range(v1.shape[0]):
        v1[i] += rhs[i]


@njit(cache=True)
def finite(x):
    for i in range(x.shape[0]):
        if not np.isfinite(x[i]):
            return False
    return True


# -- the products from the packed blocks (``midx``: a PackedKKTMap of M's pattern and Φq's) -------
@njit(cache=True)
def _sub_m_times(midx, w, x, y):
    """y[i] −= M[i, j] x[j] over M's entries in row order (``products.sub_mv`` on its entries)."""
    dj, ai, aj, am, aq, zr, zc, zptr, zidx, zmd, o = _packed_parts(midx)
    for e in range(ai.shape[0]):
        y[ai[e]] -= w[am[e]] * x[aj[e]]


@njit(cache=True)
def _sub_phiqt_times(midx, w, x, y):
    """y[j] −= Φq[i, j] x[i] over Φq's entries in row order (``products.sub_mtv``)."""
    dj, ai, aj, am, aq, zr, zc, zptr, zidx, zmd, o = _packed_parts(midx)
    for e in range(zr.shape[0]):
        y[zc[e]] -= _phiq_value(w, zptr, zidx, e) * x[zr[e]]


@njit(cache=True)
def _sub_phiq_times(midx, w, x, y):
    """y[i] −= Φq[i, j] x[j] over Φq's entries in row order (``products.sub_mv``)."""
    dj, ai, aj, am, aq, zr, zc, zptr, zidx, zmd, o = _packed_parts(midx)
    for e in range(zr.shape[0]):
        y[zr[e]] -= _phiq_value(w, zptr, zidx, e) * x[zc[e]]


@njit(cache=True)
def _velocity_packed(fa, fb, midx, w, phit, v1, rhs):
    """q̇₁ += the velocity part of K⁻¹[0; −(Φq q̇₁ + Φt)], Φq and Φt from ``w``."""
    n = v1.shape[0]
    velocity_rhs(phit, rhs, n)
    _sub_phiq_times(midx, w, v1, rhs[n:])
    velocity_end(fa, fb, v1, rhs)


@njit(cache=True, inline="always")
def _vectors(vec, n, m):
    N = n + m
    q1 = vec[0:n]
    v1 = vec[n:2 * n]
    qdd1 = vec[2 * n:3 * n]
    a1 = vec[3 * n:4 * n]
    a = vec[4 * n:5 * n]
    qdd = vec[5 * n:6 * n]
    rhs = vec[6 * n:6 * n + N]
    lam1 = vec[6 * n + N:6 * n + N + m]
    lam = vec[6 * n + N + m:6 * n + N + 2 * m]
    return q1, v1, qdd1, a1, a, qdd, rhs, lam1, lam


def vector_size(n: int, m: int) -> int:
    """Length of the ``vec`` buffer of :func:`generalized_alpha_step` (module docstring)."""
    return 7 * n + 3 * m


def vector_views(vec, n: int, m: int) -> tuple:
    """(q₁, q̇₁, q̈₁, a₁, a, q̈, rhs, λ₁, λ): views of ``vec``."""
    return _vectors(vec, n, m)


@njit(cache=True)
def generalized_alpha_step(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, pib, pfb,
                           pidx, midx, vec, q, qd, m, t, h, am, af, g, b, jac_what, niter, stab):
    """One generalized-α step (module docstring): q, q̇ updated in place, a, q̈, λ in ``vec``;
    (kib, kfb, kidx) the iteration matrix's SparseLU and :class:`PackedKKTMap` index, (pib, pfb,
    pidx) the projection matrix's (``STAB_PROJECTION``; else any), ``midx`` the products' map;
    α_m, α_f, γ, β the coefficients; ``jac_what`` the Jacobians evaluated with the first
    iterate (``_JAC`` or ``_JACS``); ``niter`` Newton corrections. Returns (pivot ratio and largest
    multiplier of the iteration matrix, the same of the projection matrix (1, 0 without it), q
    and q̇ finite): the step failed if a ratio is 0 or the state is not finite."""
    ibuf = borrowed(ibuf); ilay = borrowed(ilay); fbuf = borrowed(fbuf); flay = borrowed(flay)
    sbuf = borrowed(sbuf); slay = borrowed(slay); w0 = borrowed(w0)
    kib = borrowed(kib); kfb = borrowed(kfb); kidx = borrowed(kidx)
    pib = borrowed(pib); pfb = borrowed(pfb); pidx = borrowed(pidx); midx = borrowed(midx)
    vec = borrowed(vec); q = borrowed(q); qd = borrowed(qd)
    n = q.shape[0]
    q1, v1, qdd1, a1, a, qdd, rhs, lam1, lam = _vectors(vec, n, m)
    nb = model_ints(ibuf, ilay).body_qadr.shape[0] - 1
    nblk = model_ints(ibuf, ilay).blk_pair.shape[0]
    m1 = data_buffers(sbuf, slay).Dx.shape[0]
    xstate = data_buffers(sbuf, slay).xstate
    extra = xstate.shape[0] > 1
    if extra:
        xstate[0] = h
    _, Q, phi, _, phit, _, _, _ = packed_views(w0, n, m, nb, m1, nblk)
    # (c, c_d, s, γ', β') as GeneralizedAlpha._scales
    bp = (1.0 - am) / (b * h * h * (1.0 - af))
    gp = g / (b * h)
    s = 1.0 / bp
    t1 = t + h
    _predict(q, qd, a, qdd, am, af, g, b, h, q1, v1, qdd1, a1)
    for i in range(m):
        lam1[i] = lam[i]
    what = _PACKED | _M | _Q | _PHI | (_PHIQ if m else 0)
    ratio, growth = 1.0, 0.0
    for k in range(niter):
        evaluate_cartesian(what | jac_what if k == 0 else what, t1, q1, v1, ibuf, ilay, fbuf, flay,
                           sbuf, slay, w0, n, m)
        if k == 0:
            ratio, growth = kkt_values_packed(kib, kfb, kidx, w0, s, s * gp, 1.0, w0)
        for i in range(n):
            rhs[i] = Q[i]
        _sub_m_times(midx, w0, qdd1, rhs)
        _sub_phiqt_times(midx, w0, lam1, rhs)
        newton_end(kib, kfb, phi, s, gp, bp, q1, v1, qdd1, lam1, rhs)
    ratio2, growth2 = 1.0, 0.0
    if stab == STAB_VELOCITY:  # Φq, Φt at q₁; the step's factors
        evaluate_cartesian(np.int64(_PACKED | _PHIQ), t1, q1, v1, ibuf, ilay, fbuf, flay, sbuf,
                           slay, w0, n, m)
        for _ in range(VELOCITY_PASSES):
            _velocity_packed(kib, kfb, midx, w0, phit, v1, rhs)
    elif stab == STAB_PROJECTION:  # [M Φqᵀ; Φq 0] at q₁: positions, then velocities
        evaluate_cartesian(np.int64(_PACKED | _M | _PHI | _PHIQ), t1, q1, v1, ibuf, ilay, fbuf,
                           flay, sbuf, slay, w0, n, m)
        ratio2, growth2 = kkt_values_packed(pib, pfb, pidx, w0, 0.0, 0.0, 1.0, w0)
        kkt_correction(pib, pfb, phi, rhs, q1)
        _velocity_packed(pib, pfb, midx, w0, phit, v1, rhs)
    _finish(q, qd, a, qdd, lam, q1, v1, qdd1, lam1, am, af)
    if extra:  # (the Φq and M evaluations write no element outputs: the last Newton iterate's)
        advance_extra_states(ibuf, ilay, fbuf, flay, sbuf, slay, h)
    return ratio, growth, ratio2, growth2, finite(q) and finite(qd)


@njit(cache=True)
def generalized_alpha_step_outputs(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx,
                                   pib, pfb, pidx, midx, vec, q, qd, m, t, h, am, af, g, b,
                                   jac_what, niter, stab, oidx, out, at_start):
    """:func:`generalized_alpha_step`, then the named outputs at (t + h, q⁺, q̇⁺) into ``out``
    (``oidx``: ``CartesianSystem.output_index``; evaluated in ``w1``), left as they were when
    the step fails. With ``at_start`` the outputs at (t, q, q̇) instead, evaluated before the step
    with the deflections of the step's end (``Solver.step_outputs``: the step's first
    evaluation is at the predictor, not at the start)."""
    xstate = data_buffers(sbuf, slay).xstate
    if at_start and oidx.shape[0]:
        h0 = xstate[0]
        xstate[0] = h
        cartesian_outputs(t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, w1, q.shape[0], m, oidx,
                          out)
        xstate[0] = h0
    r = generalized_alpha_step(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, pib,
                               pfb, pidx, midx, vec, q, qd, m, t, h, am, af, g, b, jac_what,
                               niter, stab)
    if r[0] > 0.0 and r[2] > 0.0 and r[4] and oidx.shape[0] and not at_start:
        step_outputs(t + h, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, w1, m, oidx, out)
    return r


# -- the compiled rollout (rtmbs.solvers.rollout) -----------------------------------------------
@njit(cache=True)
def _generalized_alpha_rollout(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, pib,
                               pfb, pidx, midx, vec, q, qd, m, t_origin, i0, h, am, af, g, b,
                               jac_what, niter, stab, n_steps, every, chan, inputs, oidx, out_t,
                               out_q, out_qd, out_qd_prev, out_lam, out_y, out_x, q_good,
                               qd_good, x_good, diag):
    """``n_steps`` steps of :func:`generalized_alpha_step` from step ``i0`` (time
    t_origin + (i0 + k) h before step k), with the inputs, rows, outputs and divergence check of
    :func:`rtmbs.solvers.rollout._li_euler_rollout`; ``diag`` takes the last step's factor
    statistics (the step's return values but the last). A failed or diverging step puts q, q̇
    and the extra states back to the last good step (a, q̈, λ are left as that step made them,
    as after a failed ``step``). Returns the number of good steps."""
    n = q.shape[0]
    fun_par = data_buffers(sbuf, slay).fun_par
    x = data_buffers(sbuf, slay).xstate[1:]
    lam = _vectors(vec, n, m)[8]
    bufs = (ibuf, ilay, fbuf, flay, sbuf, slay, w1, m, oidx)
    rows = (out_t, out_q, out_qd, out_lam, out_x, out_y)
    for k in range(n_steps):
        save, r = before_step(k, every, fun_par, chan, inputs, q, qd, x, q_good, qd_good, x_good,
                              out_qd_prev)
        ratio, growth, ratio2, growth2, ok = generalized_alpha_step(
            ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, pib, pfb, pidx, midx, vec,
            q, qd, m, t_origin + (i0 + k) * h, h, am, af, g, b, jac_what, niter, stab)
        diag[0] = ratio
        diag[1] = growth
        diag[2] = ratio2
        diag[3] = growth2
        if not end_step(ratio > 0.0 and ratio2 > 0.0 and ok, save, r,
                        t_origin + (i0 + k + 1) * h, q, qd, lam, x, q_good, qd_good, x_good, bufs,
                        rows):
            return k
    return n_steps


def run(solver, state, t_origin, i0, h, n_steps, every, chan, inputs, oidx, res):
    """The C engine's rollout (``_engine.generalized_alpha_rollout``,
    src/rtmbs/engine/generalized_alpha.c, the arguments of :func:`_generalized_alpha_rollout`)
    for a ``generalized-alpha`` solver with a compiled step
    (``fused``; ``rtmbs.solvers.rollout._runner`` describes the arguments): the extra states in
    and out, the counters and factor statistics. Returns the number of good steps."""
    return run_kernel(_engine.generalized_alpha_rollout, solver, state, t_origin, i0, h, n_steps,
                      every, chan, inputs, oidx, res)


def run_kernel(kernel, solver, state, t_origin, i0, h, n_steps, every, chan, inputs, oidx, res):
    """:func:`run` with the rollout ``kernel``: the C engine's, or
    :func:`_generalized_alpha_rollout` (the same arguments)."""
    system = solver.system
    n, nx = system.n, system.nx
    if nx:
        system.extra_state[:] = state.x
    diag = np.array([solver.ratio, 0.0, 1.0, 0.0])
    done = kernel(*solver.kernel_args, state.q, state.qd, system.m, t_origin, i0, h,
                  *solver.options_args, n_steps, every, chan, inputs, oidx, *res, np.empty(n),
                  np.empty(n), np.empty(nx), diag)
    if nx:
        state.x[:] = system.extra_state
    k = done + (done < n_steps)
    solver.count_steps(k)
    if k:
        solver.take_statistics(*diag)
    return done
