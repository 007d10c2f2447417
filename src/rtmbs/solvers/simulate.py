"""``simulate``: the friendly front of the solvers (like scipy's ``solve_ivp``)."""
from __future__ import annotations

import math
import os
import time
import warnings

import numpy as np
import scipy.sparse.linalg as spla

from ..assembly import packed_vector, setup_notice, sparse_evaluation, use_sparse
from . import known_limits
from .threads import with_limited_blas
from ..errors import ConstraintDriftWarning, SimulationDiverged, SimulationInterrupted, SolverError
from ..result import Result
from ..protocol import EVAL_GAMMA, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q, MechanicalSystem, State
from .base import Solver, get_solver, time_after
from .rollout import compiled as compiled_rollout, rollout

#: A state whose norm passes this is taken as diverged.
DIVERGENCE_LIMIT = 1e8
#: An unstabilised run (``stabilize="none"``) whose ‖Φ‖ passes this warns once
#: (:class:`~rtmbs.errors.ConstraintDriftWarning`). Φ mixes lengths [m] and the dimensionless
#: Euler-parameter normalisations: 1e-4 is a joint gap of 0.1 mm, or pᵀp − 1 = 1e-4.
DRIFT_WARNING = 1e-4


def consistent_accelerations(system: MechanicalSystem, t, q, qd) -> np.ndarray:
    """q̈ of the index-1 equations [M Φqᵀ; Φq 0][q̈; λ] = [Q; γ] (Carpinelli 2016 eq. 23), the
    minimum-norm least-squares solution, so redundant constraints are accepted (offline use)."""
    if use_sparse(system) and system.m:
        return _sparse_accelerations(system, t, q, qd)
    ws = system.workspace()
    system.evaluate(t, q, qd, ws, EVAL_M | EVAL_Q | EVAL_PHIQ | EVAL_GAMMA)
    n, m = system.n, system.m
    kkt = np.zeros((n + m, n + m))
    kkt[:n, :n] = ws.M
    kkt[:n, n:] = ws.phiq.T
    kkt[n:, :n] = ws.phiq
    return np.linalg.lstsq(kkt, np.concatenate([ws.Q, ws.gamma]), rcond=None)[0][:n]


def _sparse_accelerations(system, t, q, qd, rtol=1e-12, maxit=200) -> np.ndarray:
    """q̈ of [M Φqᵀ; Φq 0][q̈; λ] = [Q; γ] for large models in O(non-zeros): the augmented-
    Lagrangian iteration (M + αΦqᵀΦq) q̈ = Q − Φqᵀ(λ − αγ), λ += α(Φq q̈ − γ) (Bayo & Ledesma
    1996), one sparse LU; redundant rows need no rank decision (M positive definite on
    null(Φq), the Euler-parameter rows included)."""
    M, J, buf = sparse_evaluation(system, t, q, qd, EVAL_M | EVAL_Q | EVAL_PHIQ | EVAL_GAMMA)
    Q, gamma = packed_vector(system, buf, "Q"), packed_vector(system, buf, "gamma")
    alpha = 1e4 * max(float(np.abs(M.diagonal()).max()), 1e-300)
    lu = spla.splu((M + alpha * (J.T @ J)).tocsc())
    lam = np.zeros(system.m)
    for _ in range(maxit):
        qdd = lu.solve(Q - J.T @ (lam - alpha * gamma))
        res = J @ qdd - gamma
        lam += alpha * res
        if np.abs(res).max() <= rtol * max(1.0, float(np.abs(qdd).max())):
            break
    return qdd


#: Steps per compiled chunk of a run (between two updates of the progress bar), at most.
CHUNK_STEPS = 1000
#: Wall time a compiled chunk aims at: Ctrl-C is seen between chunks, so this bounds the delay of
#: an interrupt (the first chunk is a few steps; the next are sized on its measured speed).
CHUNK_WALL_S = 0.1

#: A fixed-step run refuses to keep results larger than this share of the machine's memory.
RESULT_MEMORY_SHARE = 0.5


def _memory_bytes() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 16 * 2 ** 30


def _check_run(system, t0, t_end, h, save_every, accelerations):
    """(steps, saved points) of a fixed-step run from ``t0`` to ``t_end``; a run with no step or
    whose results would not fit in memory is refused with what to change."""
    if not isinstance(save_every, (int, np.integer)) or save_every < 1:
        raise SolverError(f"simulate: save_every = {save_every!r}, expected a whole number >= 1")
    span = t_end - t0
    nsteps = int(round(span / h))
    if nsteps < 1:
        raise SolverError(
            f"simulate: t_end = {t_end:g} s is less than one step (h = {h:g} s) after the start "
            f"t0 = {t0:g} s: nothing to integrate")
    nsave = nsteps // save_every + 1
    width = (2 * system.n + system.m + system.nx + len(system.output_names) + 3
             + (6 * getattr(system, "nbody", 0) if accelerations else 0))
    need = 8.0 * nsave * width
    limit = RESULT_MEMORY_SHARE * _memory_bytes()
    if need > limit:
        raise SolverError(
            f"simulate: {nsteps} steps keeping every {save_every} need {need / 2 ** 30:.3g} GiB "
            f"for the results (more than {limit / 2 ** 30:.3g} GiB, half of this machine's "
            f"memory); raise save_every (rtmbs run --save-every), a longer h or a shorter t_end")
    return nsteps, nsave


@with_limited_blas
def simulate(
    system: MechanicalSystem,
    solver="li-euler",
    t_end: float = 1.0,
    h: float = 1e-3,
    state: State | None = None,
    save_every: int = 1,
    progress: bool = False,
    raise_on_divergence: bool = True,
    accelerations: bool = True,
    inputs: dict | None = None,
    on_rows=None,
    **options,
) -> Result:
    """Integrate ``system`` from ``state`` (default: its initial state) to ``t_end``.

    ``solver`` is a name (``rtmbs.solvers.SOLVERS``) or a ``Solver`` subclass/instance. A fixed-step
    solver takes ``round(t_end / h)`` steps; an offline one (``reference``) returns its own
    ``Result``. Divergence (non-finite or exploding state) raises :class:`SimulationDiverged`
    with the time, the last good state and the results up to there (or, with
    ``raise_on_divergence=False``, returns them with ``meta['status'] = -1``).

    An unstabilised run (the solver's ``stabilize`` is ``"none"``) whose ‖Φ‖ at a saved step
    exceeds ``DRIFT_WARNING`` warns once (``ConstraintDriftWarning``, also in ``meta['warnings']``).

    Ctrl-C (``KeyboardInterrupt``) during the steps raises :class:`SimulationInterrupted` with
    the results recorded up to there (``meta['status'] = 2``).

    With ``accelerations`` the outputs include the system's ``acceleration_names`` (body
    accelerations): for a fixed-step solver from the step's mean acceleration (q̇_{n+1} − q̇_n)/h
    (the acceleration the linearly implicit Euler step used), at t0 from the index-1 equations.

    ``inputs`` drives input channels by Python callables, ``{"name": f}`` with ``f(t)`` returning
    the value or ``(value, rate, acceleration)`` (e.g. a ``motion`` joint's function):
    an offline solver sees them exactly at every evaluation, a fixed-step one through their
    Taylor expansion about each step's start (``CartesianSystem.set_input_functions``); the
    steps then run one Python call each, not in compiled chunks. Without ``state`` the initial
    state is assembled with them at t = 0.

    ``on_rows(rows)``, if given, is called during the run with each batch of newly saved rows (a
    :class:`Result` of views, valid during the call): a writer streams them to files
    (``rtmbs.io.stream``). The rows saved after its last call are in the returned result (or the
    ``result`` of the exception).
    """
    if inputs:
        if not hasattr(system, "set_input_functions"):
            raise SolverError(f"simulate: inputs= needs a model with input channels; "
                              f"{type(system).__name__} has none")
        try:
            system.set_input_functions(inputs)
        except (KeyError, TypeError) as exc:
            raise SolverError(f"simulate: inputs: {exc.args[0]}") from None
        try:
            return _simulate(system, solver, t_end, h, state, save_every, progress,
                             raise_on_divergence, accelerations, True, options, on_rows)
        finally:
            system.set_input_functions(None)
    return _simulate(system, solver, t_end, h, state, save_every, progress, raise_on_divergence,
                     accelerations, False, options, on_rows)


def _simulate(system, solver, t_end, h, state, save_every, progress, raise_on_divergence,
              accelerations, driven, options, on_rows=None) -> Result:
    """:func:`simulate`; ``driven``: channels are driven by callables (set at each step)."""
    if not (isinstance(h, (int, float, np.floating)) and math.isfinite(h) and h > 0):
        raise SolverError(f"simulate: h = {h!r}, expected a finite step size > 0 s")
    if not (isinstance(t_end, (int, float, np.floating)) and math.isfinite(t_end)):
        raise SolverError(f"simulate: t_end = {t_end!r}, expected a finite time in s")
    if isinstance(solver, Solver):
        slv = solver
    else:
        slv = get_solver(solver)(system, **options)
    state = (state or system.initial_state()).copy()
    if slv.offline:
        res = slv.solve(state, t_end, h=h, progress=progress)
        if res.meta.get("status", 0) < 0 and raise_on_divergence:
            raise SimulationDiverged(res.meta.get("message", "offline solver failed"), t=float(res.t[-1]),
                                     q=res.q[-1].copy(), qd=res.qd[-1].copy(), result=res)
        return res
    nsteps, nsave = _check_run(system, state.t, t_end, h, save_every, accelerations)
    limits = known_limits.before_run(system, slv.name, h)
    n, m = system.n, system.m
    t_arr = np.empty(nsave)
    q_arr = np.empty((nsave, n))
    qd_arr = np.empty((nsave, n))
    lam_arr = np.zeros((nsave, m))
    x_arr = np.zeros((nsave, system.nx))
    out_names = list(system.output_names)
    out_arr = np.empty((nsave, len(out_names)))
    out_buf = np.zeros(len(out_names))
    acc_names = list(getattr(system, "acceleration_names", ())) if accelerations else []
    acc_arr = np.empty((nsave, len(acc_names)))
    acc_buf = np.zeros(len(acc_names))
    prev_qd = state.qd.copy()
    ws = system.workspace()
    phi_n = np.zeros(nsave)
    phid_n = np.zeros(nsave)

    def record(k, qdd, lam=None, out=None):
        if driven:
            system.apply_input_functions(state.t)
        t_arr[k] = state.t
        q_arr[k] = state.q
        qd_arr[k] = state.qd
        if lam is None or slv.system is not system:
            slv.full_multipliers(lam_arr[k])
        else:
            lam_arr[k] = lam
        if system.nx:
            x_arr[k] = state.x
        if m:
            system.evaluate(state.t, state.q, state.qd, ws, EVAL_PHI | EVAL_PHIQ)
            phi_n[k] = np.linalg.norm(ws.phi)
            phid_n[k] = np.linalg.norm(ws.phiq @ state.qd + ws.phit)
        if out is not None:
            out_arr[k] = [out[nm] for nm in out_names]
        elif out_names:
            system.outputs(state.t, state.q, state.qd, out_buf)
            out_arr[k] = out_buf
        if acc_names:
            system.acceleration_outputs(state.t, state.q, state.qd, qdd, acc_buf)
            acc_arr[k] = acc_buf

    coords = list(getattr(system, "coordinate_names", []))

    def rows(a, b) -> Result:  # rows a..b-1 as views (on_rows; the final result copies)
        return Result(
            t=t_arr[a:b], q=q_arr[a:b], qd=qd_arr[a:b], lam=lam_arr[a:b], phi_norm=phi_n[a:b],
            phid_norm=phid_n[a:b], x=x_arr[a:b], coordinate_names=coords,
            outputs={**{nm: out_arr[a:b, j] for j, nm in enumerate(out_names)},
                     **{nm: acc_arr[a:b, j] for j, nm in enumerate(acc_names)}})

    k_given = 0  # rows handed to on_rows

    if driven:
        system.apply_input_functions(state.t)
    setup_notice(system, f"solver '{slv.name}': analysing and factoring its matrices")
    slv.reset(state)
    record(0, consistent_accelerations(system, state.t, state.q, state.qd) if acc_names else None)
    k_saved = 1
    status, message = 1, "finished"
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=nsteps, unit="step", mininterval=0.5, leave=False)
    t0 = time.perf_counter()
    last_q, last_qd, last_t = state.q.copy(), state.qd.copy(), state.t
    t_start = state.t
    interrupted = False
    try:
        if compiled_rollout(slv) and not driven:
            # the steps in compiled chunks (rtmbs.solvers.rollout) of about CHUNK_WALL_S each
            chunk = save_every * max(1, 10 // save_every)
            i = 0
            while i < nsteps:
                k = min(chunk, nsteps - i)
                tc = time.perf_counter()
                r = rollout(slv, state, k, h, outputs=bool(out_names), every=save_every,
                            time_origin=(t_start, i))
                per_step = (time.perf_counter() - tc) / max(r.nsteps, 1)
                chunk = save_every * max(1, min(int(CHUNK_WALL_S / max(per_step, 1e-9)),
                                                CHUNK_STEPS) // save_every)
                for j in range(len(r.t)):
                    state.t, state.q[:], state.qd[:] = r.t[j], r.q[j], r.qd[j]
                    state.x[:] = r.x[j]
                    record(k_saved, (r.qd[j] - r.qd_prev[j]) / h if acc_names else None,
                           lam=r.lam[j], out={nm: v[j] for nm, v in r.outputs.items()})
                    k_saved += 1
                i += r.nsteps
                if r.status < 0:
                    status = -1
                    message = (f"simulation diverged at t = {t_start + (i + 1) * h:.6g} s (step {i + 1} "
                               f"of {nsteps}, solver '{slv.name}', h = {h:g} s); results kept up to "
                               f"t = {t_start + i * h:.6g} s"
                               + known_limits.divergence_hint(slv.name))
                    break
                if bar is not None:
                    bar.update(k)
                if on_rows is not None:
                    on_rows(rows(k_given, k_saved))
                    k_given = k_saved
            last_q[:], last_qd[:], last_t = state.q, state.qd, state.t
        else:
            for i in range(1, nsteps + 1):
                prev_qd[:] = state.qd
                if driven:
                    system.apply_input_functions(state.t)
                ok = slv.step(state, h)
                state.t = time_after(t_start, h, i)
                bad = (not ok) or not (
                    math.isfinite(state.q.sum() + state.qd.sum())
                    and np.abs(state.q).max(initial=0.0) < DIVERGENCE_LIMIT
                    and np.abs(state.qd).max(initial=0.0) < DIVERGENCE_LIMIT
                )
                if bad:
                    status = -1
                    message = (
                        f"simulation diverged at t = {state.t:.6g} s (step {i} of {nsteps}, solver "
                        f"'{slv.name}', h = {h:g} s); results kept up to t = {last_t:.6g} s"
                        + known_limits.divergence_hint(slv.name))
                    break
                last_q[:] = state.q
                last_qd[:] = state.qd
                last_t = state.t
                if i % save_every == 0:
                    record(k_saved, (state.qd - prev_qd) / h if acc_names else None)
                    k_saved += 1
                if i % 1000 == 0:
                    if bar is not None:
                        bar.update(1000)
                    if on_rows is not None and k_saved > k_given:
                        on_rows(rows(k_given, k_saved))
                        k_given = k_saved
    except KeyboardInterrupt:  # Ctrl-C / SIGTERM: keep the rows recorded so far
        interrupted = True
        status = 2
        message = (f"interrupted after t = {t_arr[k_saved - 1]:.6g} s of {t_end:g} s; results "
                   f"kept up to there")
    wall = time.perf_counter() - t0
    if bar is not None:
        bar.close()
    res = Result(
        t=t_arr[:k_saved].copy(), q=q_arr[:k_saved].copy(), qd=qd_arr[:k_saved].copy(),
        lam=lam_arr[:k_saved].copy(), phi_norm=phi_n[:k_saved].copy(),
        phid_norm=phid_n[:k_saved].copy(),
        outputs={**{nm: out_arr[:k_saved, j].copy() for j, nm in enumerate(out_names)},
                 **{nm: acc_arr[:k_saved, j].copy() for j, nm in enumerate(acc_names)}},
        coordinate_names=coords, x=x_arr[:k_saved].copy(),
        meta=dict(model=system.name, solver=slv.name, h=h, steps=slv.nstep, wall_s=wall,
                  status=status, message=message, phase_us=slv.phase_times_us()),
    )
    limits += known_limits.after_run(slv, slv.nstep)
    if limits:
        res.meta["warnings"] = list(limits)
    drift = drift_message(slv, res.t, res.phi_norm)
    if drift:
        res.meta["warnings"] = res.meta.get("warnings", []) + [drift]
        warnings.warn(drift, ConstraintDriftWarning, stacklevel=4)  # past _simulate and with_limited_blas
    if status < 0 and raise_on_divergence:
        raise SimulationDiverged(message, t=last_t, q=last_q, qd=last_qd, result=res)
    if interrupted:
        raise SimulationInterrupted(message, t=float(res.t[-1]), result=res)
    return res


def drift_message(slv: Solver, t, phi_norm) -> str:
    """The warning for an unstabilised run whose ‖Φ‖ passed ``DRIFT_WARNING``, else ``""``."""
    if getattr(slv, "stabilize", None) != "none" or not len(phi_norm):
        return ""
    over = np.flatnonzero(phi_norm > DRIFT_WARNING)
    if not over.size:
        return ""
    k = int(np.argmax(phi_norm))
    return (f"‖Φ‖ reached {phi_norm[k]:.2e} at t = {t[k]:.2f} s without stabilisation (above "
            f"{DRIFT_WARNING:g} from t = {t[over[0]]:.2f} s); use stabilize='projection' "
            "(rtmbs: --stabilize projection)")
