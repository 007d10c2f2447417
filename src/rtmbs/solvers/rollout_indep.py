"""The rollout of Algorithm 2 in the C engine (``li-euler-indep`` with its one-call step):
many steps of the engine's step (li_euler_indep.c) in one call (rollout_indep.c),
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

from ..engine import _engine
from .base import time_after
from .rollout import DIVERGENCE_LIMIT

#: bits of the code the engine's step and rollout return (src/rtmbs/engine/li_euler_indep.h)
OK, CHANGED, REBASE = 1, 2, 4


def run(solver, state, t_origin, i0, h, n_steps, every, chan, inputs, oidx, res):
    """A rollout of ``solver`` (``li-euler-indep`` with ``fused_step``): calls of the engine's
    ``li_euler_indep_rollout`` (rollout_indep.c), each rebase finished in Python between two of
    them
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
        k, code, nchanged = _engine.li_euler_indep_rollout(
            *solver.kernel_args, state.q, state.qd, system.m, t_origin, i0, h, solver.jac_flag,
            solver.implicit, solver._mult, solver._proj_mode, gb, solver._rebase_below, k0,
            n_steps, every, chan, inputs, oidx, *res, q_good, qd_good, x_good, diag)
        solver.count_steps(k - k0 + (k < n_steps), nchanged)
        solver._take_diagnostics(*diag)
        if k == n_steps:
            break
        ok = False
        if code & REBASE:  # the end of step k: B chosen again, ż re-mapped, q̇ = S b + R ż
            t1 = time_after(t_origin, h, i0 + k + 1)
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
