"""Accelerations from the index-1 equations [M Φqᵀ; Φq 0][q̈; λ] = [Q; γ] solved densely, and an
accurate offline reference: that ODE integrated by scipy's DOP853 at rtol = atol = 1e-11 (numpy
linear algebra, not real-time)."""
from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

from rtmbs.protocol import EVAL_GAMMA, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q


def accelerations(system, t, q, qd, ws=None):
    """(q̈, λ) of ``system`` at (t, q, q̇)."""
    ws = ws or system.workspace()
    n, m = system.n, system.m
    system.evaluate(t, q, qd, ws, EVAL_M | EVAL_Q | (EVAL_PHIQ | EVAL_GAMMA if m else 0))
    K = np.zeros((n + m, n + m))
    K[:n, :n] = ws.M
    K[:n, n:] = ws.phiq.T
    K[n:, :n] = ws.phiq
    x = np.linalg.solve(K, np.concatenate([ws.Q, ws.gamma]))
    return x[:n], x[n:]


def reference(system, state, t_eval, rtol=1e-11, atol=1e-11):
    """(q, q̇) at the times ``t_eval`` (arrays (N, n)); also checks that the reference itself
    stays on the constraint manifold (‖Φ‖ < 1e-8)."""
    n = system.n
    ws = system.workspace()

    def rhs(t, y):
        qdd, _ = accelerations(system, t, y[:n], y[n:], ws)
        return np.concatenate([y[n:], qdd])

    y0 = np.concatenate([state.q, state.qd])
    sol = solve_ivp(rhs, (state.t, float(np.max(t_eval))), y0, method="DOP853", rtol=rtol,
                    atol=atol, t_eval=np.atleast_1d(t_eval))
    assert sol.success, sol.message
    q, qd = sol.y[:n].T, sol.y[n:].T
    if system.m:
        for qi in q:
            system.evaluate(0.0, qi, qi, ws, EVAL_PHI)
            assert np.linalg.norm(ws.phi) < 1e-8, "reference left the constraint manifold"
    return q, qd
