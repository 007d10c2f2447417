"""``rollout``: many fixed steps in one compiled call, inputs as arrays over time, outputs as
arrays (as ``mujoco.rollout``; issue 11).

    from rtmbs.models import load_model
    from rtmbs.solvers import get_solver
    from rtmbs.solvers.rollout import rollout

    system = load_model("multilink-ideal")
    solver = get_solver("li-euler")(system)
    state = system.initial_state()
    solver.reset(state)
    r = rollout(solver, state, n_steps=2000, h=1e-3,
                inputs={"drive_torque": np.full(2000, 150.0)})
    r.t, r.q, r.outputs["wheel.z"]

A solver with a compiled step (``solver.kernel_args``: ``li-euler`` with ``stabilize`` "none" or
"projection" on the sparse path of a compiled Cartesian model without extra states) runs the
whole loop in :func:`_li_euler_rollout`; any other solver runs the same loop in Python (same
results, Python's cost per step). The state is advanced in place; a failed or diverging step
ends the rollout there with ``status = -1`` and the results up to the last good step.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

from ..errors import SolverError
from ..kernels.evaluate import cartesian_outputs
from ..kernels.layout_views import data_buffers
from ..protocol import State
from .base import Solver
from .compiled_step import li_euler_step

#: |q| or |q̇| above this counts as divergence (as ``simulate``)
DIVERGENCE_LIMIT = 1e8


@dataclass
class Rollout:
    """Results of :func:`rollout`, one row per step taken (the state after the step)."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    lam: np.ndarray
    outputs: dict = field(default_factory=dict)
    status: int = 1          # 1 finished, -1 stopped at a failed or diverging step
    message: str = "finished"

    @property
    def nsteps(self) -> int:
        return len(self.t)


@njit(cache=True)
def _li_euler_rollout(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q, qd, m, t0,
                      h, jac_what, implicit, project, nproj, chan, inputs, omap, wout, out_t, out_q,
                      out_qd, out_lam, out_y):
    """Steps of :func:`rtmbs.solvers.compiled_step.li_euler_step`; before step k the input
    channels ``chan`` (input-function rows) take ``inputs[k]``; after it t, q, q̇, λ and the
    outputs ``omap`` go to row k. Returns the number of good steps."""
    n = q.shape[0]
    fun_par = data_buffers(sbuf, slay).fun_par
    lam = vec[vec.shape[0] - m:]
    t = t0
    for k in range(out_t.shape[0]):
        for c in range(chan.shape[0]):
            fun_par[chan[c], 0] = inputs[k, c]
        ratio, _ = li_euler_step(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q,
                                 qd, m, t, h, jac_what, implicit, project, nproj)
        t = t + h
        big = 0.0
        for i in range(n):
            big = max(big, abs(q[i]), abs(qd[i]))
        if ratio == 0.0 or not big < DIVERGENCE_LIMIT:
            return k
        out_t[k] = t
        out_q[k, :] = q
        out_qd[k, :] = qd
        out_lam[k, :] = lam
        if omap.shape[0]:
            cartesian_outputs(t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, wout, n, m, omap, out_y[k])
    return out_t.shape[0]


def _input_matrix(system, inputs, n_steps):
    """(rows of the input functions, n_steps × channels values) of ``inputs`` (name -> array of
    n_steps values, or a scalar held over the rollout)."""
    inputs = inputs or {}
    names = list(inputs)
    known = getattr(system, "input_names", ())
    for nm in names:
        if nm not in known:
            raise SolverError(f"rollout: unknown input channel '{nm}' (channels of "
                              f"'{system.name}': {', '.join(known) or 'none'})")
    vals = np.zeros((n_steps, len(names)))
    for c, nm in enumerate(names):
        v = np.asarray(inputs[nm], float)
        if v.ndim == 0:
            vals[:, c] = v
        elif v.shape == (n_steps,):
            vals[:, c] = v
        else:
            raise SolverError(f"rollout: input '{nm}' has shape {v.shape}, expected a number or "
                              f"({n_steps},) values, one per step")
    if not np.all(np.isfinite(vals)):
        raise SolverError("rollout: inputs must be finite numbers")
    rows = np.array([system.fun_names[nm] for nm in names], np.int64) if names else np.zeros(0, np.int64)
    return names, rows, vals


def rollout(solver: Solver, state: State, n_steps: int, h: float, inputs: dict | None = None,
            outputs: bool = True) -> Rollout:
    """Advance ``state`` by ``n_steps`` steps of ``solver`` (already ``reset``) of size ``h``;
    ``inputs`` maps input channel names to one value per step (module docstring)."""
    if not (isinstance(n_steps, (int, np.integer)) and n_steps >= 0):
        raise SolverError(f"rollout: n_steps = {n_steps!r}, expected a whole number >= 0")
    if not (np.isfinite(h) and h > 0):
        raise SolverError(f"rollout: h = {h!r}, expected a finite step size > 0 s")
    system = solver.system
    names, rows, vals = _input_matrix(system, inputs, n_steps)
    n, m = system.n, system.m
    out_names = list(system.output_names) if outputs else []
    t = np.zeros(n_steps)
    q = np.zeros((n_steps, n))
    qd = np.zeros((n_steps, n))
    lam = np.zeros((n_steps, solver.full_system.m))  # full_multipliers: the rows of the given system
    y = np.zeros((n_steps, len(out_names)))
    q0, qd0, t0 = state.q.copy(), state.qd.copy(), float(state.t)
    compiled = getattr(solver, "kernel_args", None) is not None and getattr(solver, "fused", False) \
        and not system.nx
    if compiled:
        omap = system.output_map if outputs else np.zeros((0, 3), np.int64)
        wout = system.workspace().buf
        done = _li_euler_rollout(*solver.kernel_args, state.q, state.qd, m, float(state.t), float(h),
                                 solver.jac_flag, solver.implicit, solver.stabilize == "projection",
                                 solver.projection_solves, rows, vals, omap, wout, t, q, qd, lam, y)
        solver.count_steps(done + (done < n_steps))
        state.t = float(t[done - 1]) if done else t0
    else:
        done = 0
        buf = np.zeros(len(out_names))
        for k in range(n_steps):
            for c, nm in enumerate(names):
                system.set_input(nm, vals[k, c])
            ok = solver.step(state, h)
            if not ok or not (np.abs(state.q).max(initial=0.0) < DIVERGENCE_LIMIT
                              and np.abs(state.qd).max(initial=0.0) < DIVERGENCE_LIMIT):
                break
            t[k], q[k], qd[k] = state.t, state.q, state.qd
            solver.full_multipliers(lam[k])
            if out_names:
                system.outputs(state.t, state.q, state.qd, buf)
                y[k] = buf
            done += 1
    status, message = 1, "finished"
    if done < n_steps:  # the state goes back to the last good step
        state.q[:] = q[done - 1] if done else q0
        state.qd[:] = qd[done - 1] if done else qd0
        state.t = float(t[done - 1]) if done else t0
        solver.status = status = -1
        message = (f"rollout stopped at step {done + 1} of {n_steps} (t = {state.t + h:.6g} s): "
                   f"singular or diverging step; results kept up to the last good step")
    return Rollout(t=t[:done], q=q[:done], qd=qd[:done], lam=lam[:done],
                   outputs={nm: y[:done, j] for j, nm in enumerate(out_names)}, status=status,
                   message=message)
