"""The compiled rollout of Algorithm 2 (``li-euler-indep`` with its one-call step, issue 11):
many steps of :func:`rtmbs.solvers.compiled_indep.li_euler_indep_step` in one compiled call,
inputs per step, results every ``every`` steps (``rtmbs.solvers.rollout``, which calls
:func:`run` through ``LIEulerIndep.rollout_runner``).

A step whose pivot check of Φu fails (``REBASE``) ends the compiled call: B is chosen again in
Python (:meth:`LIEulerIndep._rebase_end`: it allocates, and the basis's factors are new arrays),
that step's row is saved there (its outputs by ``system.outputs``: q̇ changes at the rebase) and
the next call goes on from the next step. The results, the state and the counters are those of
the same number of ``step`` calls, bit for bit.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels.layout_views import data_buffers
from .compiled_indep import CHANGED, OK, REBASE, _views, li_euler_indep_step
from .rollout import DIVERGENCE_LIMIT, before_step, end_step


@njit(cache=True)
def _li_euler_indep_rollout(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, fa, fb, pidx, cols, X, W,
                            tmp, aidx, kib, kfb, kidx, vec, hpiv, q, qd, m, t_origin, i0, h,
                            jac_what, implicit, multipliers, proj, gb, rebase_below, k0, n_steps,
                            every, chan, inputs, oidx, out_t, out_q, out_qd, out_qd_prev, out_lam,
                            out_y, out_x, q_good, qd_good, x_good, diag):
    """Steps k0 .. n_steps − 1 of :func:`li_euler_indep_step` (time t_origin + (i0 + k) h before
    step k), with the inputs, rows and divergence check of
    :func:`rtmbs.solvers.rollout._li_euler_rollout`; ``diag`` takes the last step's (Φu pivot
    ratio, its LU's pivot ratio and growth, the projection KKT's). Returns (k, code, number of
    steps that re-mapped ż for a changed state): k = n_steps when all ran; otherwise step k
    stopped the call: with ``REBASE`` in ``code`` it is to be finished by the caller (q̇ before
    it in ``q_good``, ``qd_good``; its row's q̇ before the step saved), else it failed or
    diverged and q, q̇ and the extra states are back at the last good step."""
    n = q.shape[0]
    fun_par = data_buffers(sbuf, slay).fun_par
    x = data_buffers(sbuf, slay).xstate[1:]
    lam = _views(vec, n, m, np.intp(aidx[0]))[17]
    no = oidx[:0]
    nchanged = 0
    bufs = (ibuf, ilay, fbuf, flay, sbuf, slay, w1, m, oidx)
    rows = (out_t, out_q, out_qd, out_lam, out_x, out_y)
    for k in range(k0, n_steps):
        save, r = before_step(k, every, fun_par, chan, inputs, q, qd, x, q_good, qd_good, x_good,
                              out_qd_prev)
        code, ratio, lratio, growth, pratio, pgrowth = li_euler_indep_step(
            ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, fa, fb, pidx, cols, X, W, tmp, aidx, kib,
            kfb, kidx, vec, hpiv, q, qd, m, t_origin + (i0 + k) * h, h, jac_what, implicit,
            multipliers, proj, gb, rebase_below, no, out_t[:0])
        diag[0] = ratio
        diag[1] = lratio
        diag[2] = growth
        diag[3] = pratio
        diag[4] = pgrowth
        if code & CHANGED:
            nchanged += 1
        if code & REBASE:
            return k, code, nchanged
        if not end_step((code & OK) != 0 and ratio > 0.0, save, r, t_origin + (i0 + k + 1) * h,
                        q, qd, lam, x, q_good, qd_good, x_good, bufs, rows):
            return k, code, nchanged
    return n_steps, OK, nchanged


def run(solver, state, t_origin, i0, h, n_steps, every, chan, inputs, oidx, res):
    """A rollout of ``solver`` (``li-euler-indep`` with ``fused_step``): compiled calls of
    ``solver.kernels[2]`` (the C engine's ``li_euler_indep_rollout``, rollout_indep.c, with the
    arguments of :func:`_li_euler_indep_rollout`; or that numba kernel itself), each rebase finished in Python between two of them
    (``rtmbs.solvers.rollout._runner`` describes the arguments). Returns the good steps."""
    system = solver.system
    n, nx = system.n, system.nx
    t, q, qd, _, lam, y, x = res
    q_good, qd_good, x_good = np.empty(n), np.empty(n), np.empty(nx)
    diag = np.zeros(5)
    gb = solver._gb(h)
    if nx:
        system.extra_state[:] = state.x
    k0, done = 0, n_steps
    while k0 < n_steps:
        k, code, nchanged = solver.kernels[2](
            *solver.kernel_args, state.q, state.qd, system.m, t_origin, i0, h, solver.jac_flag,
            solver.implicit, solver._mult, solver._proj_mode, gb, solver._rebase_below, k0,
            n_steps, every, chan, inputs, oidx, *res, q_good, qd_good, x_good, diag)
        solver.count_steps(k - k0 + (k < n_steps), nchanged)
        solver._take_diagnostics(*diag)
        if k == n_steps:
            break
        ok = False
        if code & REBASE:  # the end of step k: B chosen again, ż re-mapped, q̇ = S b + R ż
            t1 = t_origin + (i0 + k + 1) * h
            ok = (solver._finish_rebase(t1, state.q, state.qd, h)
                  and bool(code & OK) and solver.ratio > 0.0
                  and np.abs(state.q).max(initial=0.0) < DIVERGENCE_LIMIT
                  and np.abs(state.qd).max(initial=0.0) < DIVERGENCE_LIMIT)
            if ok and (k + 1) % every == 0:
                r = (k + 1) // every - 1
                t[r], q[r], qd[r] = t1, state.q, state.qd
                solver.full_multipliers(lam[r])
                if nx:
                    x[r] = system.extra_state
                if oidx.shape[0]:
                    system.outputs(t1, state.q, state.qd, y[r])
            if not ok:  # (the Python step's failure: back to the last good step)
                state.q[:], state.qd[:] = q_good, qd_good
                if nx:
                    system.extra_state[:] = x_good
        if not ok:
            done = k
            break
        k0 = k + 1
    if nx:
        state.x[:] = system.extra_state
    return done
