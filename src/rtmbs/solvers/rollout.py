"""``rollout``: many fixed steps in one compiled call, inputs as arrays over time, outputs as
arrays (as ``mujoco.rollout``).

    >>> import numpy as np
    >>> from rtmbs.models import load_model
    >>> from rtmbs.solvers.base import get_solver
    >>> from rtmbs.solvers.rollout import rollout
    >>> system = load_model("multilink-ideal")
    >>> solver = get_solver("li-euler")(system)
    >>> state = system.initial_state()
    >>> solver.reset(state)
    >>> r = rollout(solver, state, n_steps=2000, h=1e-3,
    ...             inputs={"drive_torque": np.full(2000, 150.0)})
    >>> r.t.shape, r.q.shape, r.outputs["rim.z"].shape
    ((2000,), (2000, 77), (2000,))

A solver whose step runs in the C engine (``solver.kernel_args``: ``li-euler``,
``explicit-euler`` and ``generalized-alpha`` on the sparse path of a compiled Cartesian model,
transient tyres included; ``li-euler`` also with redundant rows left out, λ saved over the model's
rows) runs the whole loop in the engine too (``rtmbs_li_euler_rollout``,
src/rtmbs/engine/rollout.c, and its twins in ``fixed_rollout.c``, ``generalized_alpha.c``);
``li-euler-indep`` with its compiled step (B = "partition" on packed storage) in
``rollout_indep.c`` (a step that chooses B again returns to Python for that, then the loop goes
on); any other solver runs the same loop in Python (same results, Python's cost per step).
:func:`compiled` tells which. The state is advanced in place; a failed or diverging step ends
the rollout there with ``status = -1`` and
the results up to the last good step.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import SolverError
from ..protocol import State
from .base import Solver, time_after
from ..engine import _engine

#: |q| or |q̇| above this counts as divergence (as ``simulate``)
DIVERGENCE_LIMIT = 1e8


@dataclass
class Rollout:
    """Results of :func:`rollout`, one row per ``every`` steps taken (the state after the step;
    ``qd_prev``: q̇ before that step, for the step's mean acceleration)."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    lam: np.ndarray
    outputs: dict = field(default_factory=dict)
    x: np.ndarray | None = None  # extra states (transient tyre deflections), one row per row
    status: int = 1          # 1 finished, -1 stopped at a failed or diverging step
    message: str = "finished"
    nsteps: int = 0          # good steps taken
    qd_prev: np.ndarray | None = None


def run_rollout_kernel(kernel, options, solver, state, t_origin, i0, h, n_steps, every, chan,
                       inputs, oidx, res, rows=()):
    """A rollout ``kernel`` of the C engine (``rtmbs_li_euler_rollout``'s arguments, rollout.c;
    ``options``: those of its step after h) for a solver with ``kernel_args`` and ``count_steps``; the extra
    states in and out, the counters. ``rows``: the row map's argument (li-euler on a model with
    redundant rows) or nothing. Returns the number of good steps."""
    system = solver.system
    n, nx = system.n, system.nx
    if nx:
        system.extra_state[:] = state.x
    # (the engine's model has every row of the given system; a row map says which it solves with)
    done = kernel(*solver.kernel_args, state.q, state.qd, solver.full_system.m, t_origin, i0, h,
                  *options, n_steps, every, chan, inputs, oidx, *res, np.empty(n), np.empty(n),
                  np.empty(nx), *rows)
    if nx:
        state.x[:] = system.extra_state
    solver.count_steps(done + (done < n_steps))
    return done


def _run_li_euler(solver, state, *args):
    """The C engine's rollout (``rtmbs_li_euler_rollout``, src/rtmbs/engine/rollout.c) for a ``li-euler`` solver with a compiled step (``fused``)."""
    return run_rollout_kernel(_engine.li_euler_rollout,
                              (solver.jac_flag, solver.implicit, *solver.stab_args), solver,
                              state, *args, rows=solver.rows_args)


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
    for c, nm in enumerate(names):
        bad = np.flatnonzero(~np.isfinite(vals[:, c]))
        if bad.size:
            raise SolverError(f"rollout: input '{nm}' is {vals[bad[0], c]} at step {bad[0] + 1}: "
                              "inputs must be finite numbers")
    rows = np.array([system.fun_names[nm] for nm in names], np.int64) if names else np.zeros(0, np.int64)
    return names, rows, vals


def _runner(solver: Solver):
    """The function that runs ``solver``'s compiled rollout, or None (the Python loop): the
    solver's own ``rollout_runner`` (``li-euler-indep``: ``rtmbs.solvers.rollout_indep.run``,
    ``explicit-euler``: ``rtmbs.solvers.explicit.run_rollout``),
    else :func:`_run_li_euler` for a ``li-euler`` with a compiled step (``fused``). A runner
    takes (solver, state, t0, i0, h, n_steps, every, input rows, input values, output index,
    result arrays t, q, q̇, q̇ before, λ, outputs, x), fills the rows, advances ``state`` (not
    its t) and the counters, and returns the number of good steps."""
    run = getattr(solver, "rollout_runner", None)
    if run is not None:
        return run
    return _run_li_euler if getattr(solver, "fused", False) else None


def compiled(solver: Solver) -> bool:
    """True when ``solver`` runs :func:`rollout` as one compiled call (a few for
    ``li-euler-indep`` when B is chosen again on the way)."""
    return _runner(solver) is not None


def rollout(solver: Solver, state: State, n_steps: int, h: float, inputs: dict | None = None,
            outputs: bool = True, every: int = 1, time_origin: tuple[float, int] | None = None) -> Rollout:
    """Advance ``state`` by ``n_steps`` steps of ``solver`` (already ``reset``) of size ``h``;
    ``inputs`` maps input channel names to one value per step (module docstring); results
    every ``every`` steps. ``time_origin`` = (t0, i0): the time before step k is t0 + (i0 + k) h
    (``simulate``'s chunks; default: the state's time, i0 = 0)."""
    if not (isinstance(n_steps, (int, np.integer)) and n_steps >= 0):
        raise SolverError(f"rollout: n_steps = {n_steps!r}, expected a whole number >= 0")
    if not (isinstance(every, (int, np.integer)) and every >= 1):
        raise SolverError(f"rollout: every = {every!r}, expected a whole number >= 1")
    if not (np.isfinite(h) and h > 0):
        raise SolverError(f"rollout: h = {h!r}, expected a finite step size > 0 s")
    system = solver.system
    names, rows, vals = _input_matrix(system, inputs, n_steps)
    n = system.n
    t_origin, i0 = time_origin if time_origin is not None else (float(state.t), 0)
    out_names = list(system.output_names) if outputs else []
    nrow = n_steps // every
    t = np.zeros(nrow)
    q = np.zeros((nrow, n))
    qd = np.zeros((nrow, n))
    qd_prev = np.zeros((nrow, n))
    lam = np.zeros((nrow, solver.full_system.m))  # full_multipliers: the rows of the given system
    y = np.zeros((nrow, len(out_names)))
    nx = system.nx
    x = np.zeros((nrow, nx))
    run = _runner(solver)
    if run is not None:
        oidx = system.output_index if outputs else np.zeros(0, np.int64)
        done = run(solver, state, float(t_origin), int(i0), float(h), n_steps, every, rows, vals,
                   oidx, (t, q, qd, qd_prev, lam, y, x))
        state.t = time_after(t_origin, h, i0 + done)
    else:
        done = 0
        buf = np.zeros(len(out_names))
        for k in range(n_steps):
            for c, nm in enumerate(names):
                system.set_input(nm, vals[k, c])
            q_good, prev, x_good = state.q.copy(), state.qd.copy(), state.x.copy()
            ok = solver.step(state, h)
            state.t = time_after(t_origin, h, i0 + k + 1)
            if not ok or not (np.abs(state.q).max(initial=0.0) < DIVERGENCE_LIMIT
                              and np.abs(state.qd).max(initial=0.0) < DIVERGENCE_LIMIT):
                state.q[:], state.qd[:] = q_good, prev
                if nx:
                    state.x[:] = x_good
                    system.set_extra(x_good)
                break
            done += 1
            if done % every == 0:
                r = done // every - 1
                t[r], q[r], qd[r], qd_prev[r] = state.t, state.q, state.qd, prev
                x[r] = state.x
                solver.full_multipliers(lam[r])
                if out_names:
                    system.outputs(state.t, state.q, state.qd, buf)
                    y[r] = buf
    status, message = 1, "finished"
    nkept = done // every
    if done < n_steps:  # q, q̇ are back at the last good step
        state.t = time_after(t_origin, h, i0 + done)
        solver.status = status = -1
        message = (f"rollout stopped at step {done + 1} of {n_steps} "
                   f"(t = {t_origin + (i0 + done + 1) * h:.6g} s): singular or diverging step")
    return Rollout(t=t[:nkept], q=q[:nkept], qd=qd[:nkept], lam=lam[:nkept],
                   outputs={nm: y[:nkept, j] for j, nm in enumerate(out_names)}, status=status,
                   message=message, nsteps=done, qd_prev=qd_prev[:nkept], x=x[:nkept])
