"""Index-1 integration with adaptive ODE integrators (Pękal & Frączek 2016 §2.1, §4.1; offline).

The accelerations of Pękal & Frączek 2016 eq. 8 come from one of the formulations of
:mod:`rtmbs.solvers.formulations`; ``scipy.integrate.solve_ivp`` (RK45 by default, the paper's
ode45) integrates them with one of three stabilisations:

``none``          y = (q, q̇); drifts off Φ = 0 and Φ̇ = 0 (reference only).
``baumgarte``     γ̄ = γ − 2α̂(Φq q̇ + Φt) − β̂²Φ (eq. 9), α̂ = β̂ = 10 in the paper.
``partitioning``  y = (v, v̇), u and u̇ from the constraints (:mod:`.partitioning`); Newton
                  tolerance 1000× below the integrator's (NEWTON_TOL_FACTOR × min(rtol, atol)).
"""
from __future__ import annotations

import time

import numpy as np
from scipy.integrate import solve_ivp

from ..errors import SimulationDiverged, SolverError, did_you_mean
from ..protocol import (EVAL_GAMMA, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q, MechanicalSystem,
                        State)
from ..result import Result
from ..tolerances import SOLVER_RANK_RTOL
from .base import Solver, register_solver
from .formulations import get_formulation
from .partitioning import NEWTON_TOL_FACTOR, CoordinatePartitioning
from .threads import with_limited_blas

STABILIZATIONS = ("none", "baumgarte", "partitioning")
_EVAL_DYN = EVAL_M | EVAL_Q | EVAL_PHIQ | EVAL_GAMMA


@with_limited_blas
def integrate_index1(
    system: MechanicalSystem,
    formulation="udwadia-kalaba",
    stabilization: str = "none",
    method="RK45",
    rtol: float = 1e-6,
    atol: float = 1e-6,
    t_end: float = 1.0,
    state: State | None = None,
    alpha: float = 10.0,
    beta: float = 10.0,
    t_eval=None,
    rank_rtol: float = SOLVER_RANK_RTOL,
    independent=None,
    newton_tol: float | None = None,
    **ivp_options,
) -> Result:
    """Integrate ``system`` from ``state`` (default its initial state) to ``t_end``.

    ``formulation``: a name of :data:`~rtmbs.solvers.formulations.FORMULATIONS` (or instance);
    ``stabilization``: ``"none"``, ``"baumgarte"`` (``alpha``, ``beta``: α̂, β̂ of eq. 9) or
    ``"partitioning"`` (``independent``: optional indices of v; ``newton_tol``: default
    ``NEWTON_TOL_FACTOR * min(rtol, atol)``); ``method``: any ``solve_ivp`` method;
    ``t_eval``: output times (default: the integrator's steps).

    Returns a :class:`~rtmbs.result.Result`; ``meta`` holds ``nfev`` (right-hand-side
    evaluations), ``njev``, ``nlu``, ``wall_s`` (time inside ``solve_ivp``), ``status``,
    ``message`` and, for partitioning, ``newton_tol``, ``newton_iterations``,
    ``newton_max_iterations``, ``cond_dep_max``, ``dependent``/``independent`` indices.
    """
    if stabilization not in STABILIZATIONS:
        raise SolverError(f"unknown stabilization '{stabilization}'"
                          + did_you_mean(stabilization, STABILIZATIONS))
    form = get_formulation(formulation, rank_rtol)
    state = (state or system.initial_state()).copy()
    n, m = system.n, system.m
    t0 = float(state.t)
    ws = system.workspace()
    count = {"rhs": 0}
    meta = dict(model=system.name, solver=f"index1:{form.name}+{stabilization}",
                formulation=form.name, stabilization=stabilization, method=str(method),
                rtol=rtol, atol=atol)

    def accel(t, q, qd):
        if not (np.isfinite(q).all() and np.isfinite(qd).all()):
            raise SimulationDiverged(
                f"index-1 integration ({form.name}, stabilization '{stabilization}') diverged: "
                f"non-finite state at t = {t:.6g} s", t=t)
        what = _EVAL_DYN | (EVAL_PHI if stabilization == "baumgarte" else 0)
        system.evaluate(t, q, qd, ws, what)
        g = ws.gamma
        if stabilization == "baumgarte" and m:
            # eq. 9: γ̄ = γ − 2α̂ Φ̇ − β̂² Φ
            g = g - 2.0 * alpha * (ws.phiq @ qd + ws.phit) - beta**2 * ws.phi
        return form(ws.M, ws.phiq, ws.Q, g)

    part = None
    if stabilization == "partitioning":
        if newton_tol is None:
            newton_tol = NEWTON_TOL_FACTOR * min(rtol, atol)
        part = CoordinatePartitioning(system, t0, state.q, newton_tol, rank_rtol, independent)
        iv, nv = part.indep, part.indep.size
        q_last = state.q.copy()

        def rhs(t, y):
            nonlocal q_last
            count["rhs"] += 1
            q = part.positions(t, y[:nv], q_last)
            q_last = q
            qd = part.velocities(t, q, y[nv:])
            qdd, _ = accel(t, q, qd)
            return np.concatenate((y[nv:], qdd[iv]))

        y0 = np.concatenate((state.q[iv], state.qd[iv]))
        meta.update(newton_tol=newton_tol, dependent=part.dep.tolist(),
                    independent=part.indep.tolist(), rank=part.rank)
    else:
        def rhs(t, y):
            count["rhs"] += 1
            qdd, _ = accel(t, y[:n], y[n:])
            return np.concatenate((y[n:], qdd))

        y0 = np.concatenate((state.q, state.qd))

    tic = time.perf_counter()
    sol = solve_ivp(rhs, (t0, t_end), y0, method=method, rtol=rtol, atol=atol, t_eval=t_eval,
                    **ivp_options)
    wall = time.perf_counter() - tic
    meta.update(nfev=int(sol.nfev), njev=int(sol.njev), nlu=int(sol.nlu), rhs_calls=count["rhs"],
                wall_s=wall, status=0 if sol.success else -1, message=sol.message,
                steps=max(len(sol.t) - 1, 0) if t_eval is None else None)

    # -- outputs: full q, q̇, λ and the constraint norms at the saved times ---------------
    N = sol.t.size
    q_arr = np.empty((N, n))
    qd_arr = np.empty((N, n))
    lam = np.zeros((N, m))
    phi_n = np.zeros(N)
    phid_n = np.zeros(N)
    cond_hist = np.zeros(N)
    q_guess = state.q.copy()
    for k, t in enumerate(sol.t):
        y = sol.y[:, k]
        if part is not None:
            nv = part.indep.size
            q = part.positions(t, y[:nv], q_guess)
            q_guess = q
            qd = part.velocities(t, q, y[nv:])
            cond_hist[k] = part.cond
        else:
            q, qd = y[:n], y[n:]
        q_arr[k], qd_arr[k] = q, qd
        _, lam[k] = accel(t, q, qd)
        if m:
            system.evaluate(t, q, qd, ws, EVAL_PHI | EVAL_PHIQ)
            phi_n[k] = np.linalg.norm(ws.phi)
            phid_n[k] = np.linalg.norm(ws.phiq @ qd + ws.phit)
    outputs = {}
    if part is not None:
        outputs["cond_dep"] = cond_hist
        meta.update(newton_iterations=part.newton_iterations, newton_calls=part.newton_calls,
                    newton_max_iterations=part.newton_max_iterations,
                    cond_dep_max=float(part.cond_max))
    if system.output_names:
        buf = np.zeros(len(system.output_names))
        cols = np.empty((N, buf.size))
        for k in range(N):
            system.outputs(sol.t[k], q_arr[k], qd_arr[k], buf)
            cols[k] = buf
        outputs.update({nm: cols[:, j].copy() for j, nm in enumerate(system.output_names)})
    return Result(t=sol.t.copy(), q=q_arr, qd=qd_arr, lam=lam, phi_norm=phi_n, phid_norm=phid_n,
                  outputs=outputs, coordinate_names=list(getattr(system, "coordinate_names", [])),
                  meta=meta)


@register_solver("index1")
class Index1Solver(Solver):
    """Offline adaptive index-1 integration (``simulate(sys, "index1", formulation=...,
    stabilization=..., method=..., rtol=..., atol=...)``); output every ``h``."""

    offline = True

    def solve(self, state: State, t_end: float, h: float = 1e-3, progress: bool = False) -> Result:
        t_eval = np.arange(state.t, t_end + 0.5 * h, h)
        t_eval = t_eval[t_eval <= t_end]
        return integrate_index1(self.system, state=state, t_end=t_end, t_eval=t_eval,
                                **self.options)
