"""``reference``: the adaptive, high-accuracy offline solver for reference solutions.

Truck benchmark (§4.1) compares the real-time integrators with a reference solution from a
variable-step RADAU5; this is rtmbs's. It integrates the index-1 form of the equations of
motion (Carpinelli 2016 eqs. 1 and 23; the KKT matrix of Algorithm 1, eq. 22, without the step terms)

    [ M   Φqᵀ ] [ q̈ ]   [ Q ]
    [ Φq  0   ] [ λ ] = [ γ ]

as a first-order ODE in y = (q, q̇, x) with scipy's ``Radau`` (RADAU5, Hairer & Wanner IV.8)
and removes the drift of the index-1 form by **coordinate projection** (Hairer & Wanner VII.2;
Carpinelli 2015 §3.3): after every accepted step, q is moved onto Φ(q, t) = 0 by Newton iterations
with the minimal M-weighted correction, q̇ onto Φq q̇ + Φt = 0, and the integrator continues
from the projected point. Output points on the grid t0 + k·h are taken from the step's
continuous output (or, with ``grid="step"``, by stepping onto each grid point) and projected
the same way, so every output satisfies the constraints to round-off. The choice against
the stabilised index-2 (GGL) form is explained in ``docs/reference-solver.md``.

Not a real-time solver: it iterates to tolerances and its cost per output is not fixed.
"""
from __future__ import annotations

import math
import time

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sps
import scipy.sparse.linalg as spla
from scipy.integrate import BDF, DOP853, LSODA, RK23, RK45, Radau

from ..errors import SolverError, did_you_mean
from ..protocol import (EVAL_JAC, 
    EVAL_GAMMA, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q, MechanicalSystem, State,
)
from ..result import Result
from ..tolerances import FD_FLOOR, FD_REL, MODEL_RANK_RTOL
from .base import RunFailure as _Failure, Solver, output_steps, register_solver
from . import augmented_lagrangian
from .threads import with_limited_blas

#: solve_ivp methods whose state may be replaced between steps (y and f are all they carry).
PROJECTABLE_METHODS = {"Radau": Radau, "DOP853": DOP853, "RK45": RK45, "RK23": RK23}
#: Multistep methods keep a history that a projection would invalidate: ODE models only.
ODE_ONLY_METHODS = {"BDF": BDF, "LSODA": LSODA}
#: Newton iterations of one position projection (each re-evaluates Φ and Φq).
PROJ_MAXITER = 10
#: A state component beyond this is taken as diverged (same limit as ``simulate``).
DIVERGENCE_LIMIT = 1e8
#: The options and their defaults.
DEFAULTS = dict(
    method="Radau", rtol=1e-10, atol=1e-12, max_step=math.inf, first_step=None,
    projection="mass", proj_tol=1e-13, grid="dense", jacobian=None,
)
#: ``jacobian`` when not given: ``ida``'s coloured differences in q were 9× faster than the
#: model's iteration matrix on the sedan's step steer and within 15 % on the multilink.
DEFAULT_JACOBIAN = {"ida": "fd"}
#: ``formulation``: "index1" (the method above) or "augmented-lagrangian" (index-3 AL with
#: projections, through singular positions: :mod:`.augmented_lagrangian`, its own options).
FORMULATIONS = ("index1", "augmented-lagrangian")
#: Methods that use a Jacobian (Newton iterations): ``jacobian`` applies to them.
IMPLICIT_METHODS = ("Radau", "BDF", "LSODA", "ida")


@register_solver("reference")
class ReferenceSolver(Solver):
    """Adaptive reference integrator over the mechanical-system protocol.

    Parameters
    ----------
    system : MechanicalSystem
    method : ``"Radau"`` (default, RADAU5), ``"DOP853"``, ``"RK45"``, ``"RK23"``; for systems
        without constraints (m = 0) also ``"BDF"`` and ``"LSODA"``; ``"ida"``: SUNDIALS IDA on
        the stabilised index-2 (GGL) form with a sparse Jacobian (:mod:`.reference_ida`).
    jacobian : ``"model"`` (default; from the model's Jq, Jq̇) or ``"fd"`` (forward differences
        with bounded steps) for the Newton iterations of the implicit methods; for ``ida``,
        ``"fd"`` (its default) differences the GGL residual in q, coloured (reference_ida.py).
    rtol, atol : tolerances of the integrator (default 1e-10, 1e-12), as in ``solve_ivp``.
    max_step : largest step the integrator may take (s).
    first_step : initial step (s); default chosen by the integrator (``ida``: 1 µs,
        ``reference_ida.IDA_FIRST_STEP``).
    projection : ``"mass"`` (default; minimal ‖Δq‖_M correction), ``"euclidean"`` (minimal
        ‖Δq‖₂, the pseudoinverse correction) or ``"none"`` (plain index-1 ODE: the constraints
        drift; for comparison only).
    proj_tol : ‖Φ‖∞ at which the position projection stops (default 1e-13; never below the
        round-off floor 4·eps·max(1, ‖q‖∞)).
    grid : ``"dense"`` (default): outputs from the continuous output of the steps;
        ``"step"``: the integrator lands on every output time (slower, each output a step end).

    Attributes (after :meth:`solve`)
    --------------------------------
    nfev : right-hand sides evaluated (each one KKT solve); njev, nlu : Jacobians and LU
    factorisations of the integrator; nfev_jac : right-hand sides of finite-difference
    Jacobians; nstep : accepted steps; nproj : projection Newton iterations.
    BLAS runs single-threaded inside :meth:`solve` (``RTMBS_BLAS_THREADS``, :mod:`.threads`).
    """

    name = "reference"
    offline = True

    def __init__(self, system: MechanicalSystem, instrument: bool = False, **options):
        self.formulation = options.pop("formulation", "index1")
        if self.formulation not in FORMULATIONS:
            raise SolverError(f"solver 'reference': option 'formulation' must be one of "
                              f"{', '.join(FORMULATIONS)}, got {self.formulation!r}")
        al_keys = [k for k in options if k in augmented_lagrangian.AL_DEFAULTS]
        if al_keys and self.formulation != "augmented-lagrangian":
            raise SolverError(f"solver 'reference': option '{al_keys[0]}' belongs to "
                              "formulation 'augmented-lagrangian'")
        self.al_options = augmented_lagrangian.check_options(
            {k: options.pop(k) for k in al_keys}) if self.formulation != "index1" else {}
        idx1_keys = [k for k in options if k in DEFAULTS]
        if idx1_keys and self.formulation != "index1":
            raise SolverError(f"solver 'reference': option '{idx1_keys[0]}' belongs to "
                              "formulation 'index1'")
        for key in options:
            if key not in DEFAULTS:
                raise SolverError(f"solver 'reference': unknown option '{key}'"
                                  + did_you_mean(key, DEFAULTS))
        opts = {**DEFAULTS, **options}
        super().__init__(system, instrument, **opts)
        method = opts["method"]
        if method == "ida":  # SUNDIALS IDA on the GGL form (reference_ida.py)
            from .reference_ida import sksundae_ida

            self._method_cls = sksundae_ida()  # loaded now: threadpoolctl limits loaded libraries
        elif method in ODE_ONLY_METHODS:
            if system.m > 0:
                raise SolverError(
                    f"solver 'reference': method '{method}' cannot be combined with coordinate "
                    f"projection ('{system.name}' has m = {system.m} constraints); use one of "
                    + ", ".join(PROJECTABLE_METHODS))
            self._method_cls = ODE_ONLY_METHODS[method]
        elif method in PROJECTABLE_METHODS:
            self._method_cls = PROJECTABLE_METHODS[method]
        else:
            raise SolverError(f"solver 'reference': unknown method '{method}'"
                              + did_you_mean(method, {**PROJECTABLE_METHODS, **ODE_ONLY_METHODS,
                                                      "ida": None}))
        for key in ("rtol", "atol", "proj_tol"):
            if not float(opts[key]) > 0:
                raise SolverError(f"solver 'reference': option '{key}' must be > 0, got {opts[key]!r}")
        if opts["projection"] not in ("mass", "euclidean", "none"):
            raise SolverError("solver 'reference': option 'projection' must be 'mass', "
                              f"'euclidean' or 'none', got {opts['projection']!r}")
        if opts["jacobian"] is None:
            opts["jacobian"] = DEFAULT_JACOBIAN.get(method, "model")
        if opts["jacobian"] not in ("fd", "model"):
            raise SolverError("solver 'reference': option 'jacobian' must be 'fd' or 'model', "
                              f"got {opts['jacobian']!r}")
        self.jacobian = opts["jacobian"]
        if opts["grid"] not in ("dense", "step"):
            raise SolverError("solver 'reference': option 'grid' must be 'dense' or 'step', "
                              f"got {opts['grid']!r}")
        self.method = method
        self.rtol = float(opts["rtol"])
        self.atol = float(opts["atol"])
        self.max_step = float(opts["max_step"])
        self.first_step = opts["first_step"]
        self.projection = opts["projection"]
        self.proj_tol = float(opts["proj_tol"])
        self.grid = opts["grid"]
        self._lstsq = False
        self._sparse_kkt = False
        self._nonfinite_t = None
        self.nfev = self.njev = self.nlu = self.nproj = self.nfev_jac = 0

    # -- linear algebra ---------------------------------------------------------------------
    def _kkt_solve(self, A: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Solve the (n+m) system: dense LU, or least squares when Φq is rank deficient."""
        if self._lstsq:
            return np.linalg.lstsq(A, b, rcond=None)[0]
        if self._sparse_kkt:  # method "ida": large sparse models
            return spla.splu(sps.csc_matrix(A)).solve(b)
        lu = sla.lu_factor(A, check_finite=False)
        return sla.lu_solve(lu, b, check_finite=False)

    def _augmented(self, M: np.ndarray, phiq: np.ndarray) -> np.ndarray:
        n, m = self.system.n, self.system.m
        A = np.zeros((n + m, n + m))
        A[:n, :n] = M
        A[:n, n:] = phiq.T
        A[n:, :n] = phiq
        return A

    def accelerations(self, t: float, q: np.ndarray, qd: np.ndarray):
        """q̈ and λ at (t, q, q̇) from the KKT system above (Carpinelli 2016 eqs. 1, 23)."""
        sys, ws = self.system, self.ws
        n, m = sys.n, sys.m
        what = EVAL_M | EVAL_Q | (EVAL_PHIQ | EVAL_GAMMA if m else 0)
        sys.evaluate(t, q, qd, ws, what)
        self.neval += 1
        if m == 0:
            return self._kkt_solve(ws.M, ws.Q), np.zeros(0)
        sol = self._kkt_solve(self._augmented(ws.M, ws.phiq), np.concatenate((ws.Q, ws.gamma)))
        return sol[:n], sol[n:]

    def _rhs(self, t: float, y: np.ndarray) -> np.ndarray:
        n, nx = self.system.n, self.system.nx
        q, qd = y[:n], y[n:2 * n]
        out = np.empty_like(y)
        out[:n] = qd
        if nx:
            self.system.set_extra(y[2 * n:])  # the forces depend on the extra states
        with np.errstate(all="ignore"):
            out[n:2 * n] = self.accelerations(t, q, qd)[0]
            if nx:
                rates = np.zeros(nx)
                self.system.extra_rates(t, q, qd, y[2 * n:], rates)
                out[2 * n:] = rates
        self.nfev += 1
        if not np.isfinite(out).all():
            if self._nonfinite_t is None or t < self._nonfinite_t:
                self._nonfinite_t = t
        return out

    def _jacobian(self, t: float, y: np.ndarray) -> np.ndarray:
        """∂f/∂y for the integrator's Newton iterations (``jacobian`` option); a non-finite
        Jacobian stops the run with its cause instead of a NaN deep inside the LU."""
        J = self._model_jacobian(t, y) if self.jacobian == "model" else self._fd_jacobian(t, y)
        if not np.isfinite(J).all():
            how = ("finite differences of the right-hand side, jacobian='fd'"
                   if self.jacobian == "fd" else "the model's force Jacobians, jacobian='model'")
            raise _Failure(f"non-finite Jacobian ∂f/∂y ({how})", t)
        return J

    def _fd_jacobian(self, t: float, y: np.ndarray) -> np.ndarray:
        """Forward differences of the right-hand side with the fixed, bounded steps
        δ_j = FD_REL · max(|y_j|, FD_FLOOR) (``jacobian="fd"``; 2n + nx + 1 right-hand sides)."""
        f0 = self._rhs(t, y)
        J = np.empty((y.size, y.size))
        yp = y.copy()
        for j in range(y.size):
            d = FD_REL * max(abs(y[j]), FD_FLOOR)
            yp[j] = y[j] + d
            J[:, j] = (self._rhs(t, yp) - f0) / ((y[j] + d) - y[j])
            yp[j] = y[j]
        self.nfev_jac += y.size + 1
        self.njev += 1
        return J

    def _model_jacobian(self, t: float, y: np.ndarray) -> np.ndarray:
        """Approximate ∂f/∂y of the index-1 ODE from the model's force Jacobians (all terms):
        [[0, I], [X_q, X_q̇]] with [M Φqᵀ; Φq 0][X; Λ] = [J; 0] (the curvature terms of M, Φq and
        γ are left out: Radau only needs the Jacobian for its Newton iterations, not for accuracy;
        ``jacobian="model"``, instead of 2n finite-difference evaluations per Jacobian)."""
        sys, ws = self.system, self.ws
        n, m, nx = sys.n, sys.m, sys.nx
        q, qd = y[:n], y[n:2 * n]
        sys.evaluate(t, q, qd, ws, EVAL_M | EVAL_PHIQ | EVAL_JAC)
        self.njev += 1
        A = self._augmented(ws.M, ws.phiq) if m else ws.M.copy()
        rhs = np.zeros((n + m, 2 * n))
        rhs[:n, :n] = ws.Jq
        rhs[:n, n:] = ws.Jqd
        if self._lstsq:
            X = np.linalg.lstsq(A, rhs, rcond=None)[0]
        else:
            X = sla.lu_solve(sla.lu_factor(A, check_finite=False), rhs, check_finite=False)
        J = np.zeros((2 * n + nx, 2 * n + nx))
        J[:n, n:2 * n] = np.eye(n)
        J[n:2 * n, :2 * n] = X[:n]
        return J

    # -- projection (Hairer & Wanner VII.2; Carpinelli 2015 §3.3) -----------------------------------
    def project(self, t: float, q: np.ndarray, qd: np.ndarray):
        """Return (q, q̇) moved onto Φ(q, t) = 0 and Φq q̇ + Φt = 0, and ‖Φ‖∞ reached.

        Position: Newton on Φ with the minimal correction in the chosen metric W (M or I):
        [W Φqᵀ; Φq 0][Δq; μ] = [0; −Φ]. Velocity: the same system with −(Φq q̇ + Φt).
        """
        sys, ws = self.system, self.ws
        n, m = sys.n, sys.m
        q = q.copy()
        qd = qd.copy()
        if m == 0 or self.projection == "none":
            return q, qd, 0.0
        if self.projection == "mass":
            sys.evaluate(t, q, qd, ws, EVAL_M)
            self.neval += 1
            W = ws.M.copy()
        else:
            W = np.eye(n)
        floor = 4 * np.finfo(float).eps * max(1.0, float(np.abs(q).max()))
        tol = max(self.proj_tol, floor)
        rhs = np.zeros(n + m)
        for _ in range(PROJ_MAXITER + 1):
            sys.evaluate(t, q, qd, ws, EVAL_PHI | EVAL_PHIQ)
            self.neval += 1
            res = float(np.abs(ws.phi).max())
            if not res > tol:  # also stops on NaN; the caller checks finiteness
                break
            rhs[n:] = -ws.phi
            dq = self._kkt_solve(self._augmented(W, ws.phiq), rhs)[:n]
            q += dq
            self.nproj += 1
            if np.abs(dq).max() <= floor:
                sys.evaluate(t, q, qd, ws, EVAL_PHI | EVAL_PHIQ)
                res = float(np.abs(ws.phi).max())
                break
        rhs[n:] = -(ws.phiq @ qd + ws.phit)
        qd += self._kkt_solve(self._augmented(W, ws.phiq), rhs)[:n]
        return q, qd, res

    def _why(self, msg) -> str:
        """The integrator's reason, with the first non-finite evaluation of the last attempt
        and, for the implicit methods, which Jacobian their Newton iterations used."""
        why = str(msg or "integrator failed")
        if self._nonfinite_t is not None:
            why = (f"non-finite forces or accelerations from t = {self._nonfinite_t:.9g} s "
                   f"({why})")
        if self.method in IMPLICIT_METHODS:
            if self.jacobian == "fd":
                why += ("; Newton used a finite-difference Jacobian (jacobian='fd'): if the "
                        "model's forces are finite there, try jacobian='model'")
            else:
                why += ("; Newton used the model's Jacobian (jacobian='model', without the "
                        "curvature terms of M, Φq and γ): try jacobian='fd' or a smaller max_step")
        return why

    # -- the run --------------------------------------------------------------------------
    @with_limited_blas
    def solve(self, state: State, t_end: float, h: float = 1e-3, progress: bool = False) -> Result:
        """Integrate from ``state`` to ``t_end``; outputs on the grid ``state.t + k·h``
        (BLAS single-threaded unless ``RTMBS_BLAS_THREADS`` says otherwise, :mod:`.threads`).

        On failure (integrator failure, non-finite or diverging state) the result holds the
        outputs up to there, with ``meta['status'] = -1`` and a message naming the time.
        """
        t0, nsteps = output_steps(state, t_end, h)
        if self.formulation == "augmented-lagrangian":
            res = augmented_lagrangian.solve(self.system, self.al_options, state, t_end, h,
                                             progress)
            self.status = res.meta["status"]
            return res
        sys = self.system
        n, m, nx = sys.n, sys.m, sys.nx
        self.reset(state)
        if self.method == "ida":
            from .reference_ida import solve_ida

            return solve_ida(self, state, t_end, h, progress)
        self.nfev = self.njev = self.nlu = self.nproj = self.nfev_jac = 0
        self._nonfinite_t = None
        wall0 = time.perf_counter()

        # Rank of Φq at the start decides LU or least squares (redundant constraints).
        if m:
            sys.evaluate(t0, state.q, state.qd, self.ws, EVAL_PHIQ)
            s = np.linalg.svd(self.ws.phiq, compute_uv=False)
            self._lstsq = int((s > MODEL_RANK_RTOL * s[0]).sum()) < m
        x0 = np.asarray(state.x, float) if nx else np.zeros(0)
        if x0.shape != (nx,):
            raise SolverError(f"solver 'reference': state.x has shape {x0.shape}, expected ({nx},)")

        grid = t0 + np.arange(nsteps + 1) * h
        nout = nsteps + 1
        out_names = list(sys.output_names)
        T = np.empty(nout)
        Qa = np.empty((nout, n))
        QDa = np.empty((nout, n))
        LAM = np.zeros((nout, m))
        PHI = np.zeros(nout)
        PHID = np.zeros(nout)
        OUT = np.empty((nout, len(out_names)))
        X = np.empty((nout, nx))
        obuf = np.zeros(len(out_names))
        acc_names = list(getattr(sys, "acceleration_names", ()))
        ACC = np.empty((nout, len(acc_names)))
        abuf = np.zeros(len(acc_names))

        def record(k, t, q, qd, x):
            if nx:
                sys.set_extra(x)
            q, qd, _ = self.project(t, q, qd)
            qdd, lam = self.accelerations(t, q, qd)
            T[k] = t
            Qa[k] = q
            QDa[k] = qd
            X[k] = x
            if m:
                LAM[k] = lam
                self.lam = lam
                sys.evaluate(t, q, qd, self.ws, EVAL_PHI | EVAL_PHIQ)
                PHI[k] = np.linalg.norm(self.ws.phi)
                PHID[k] = np.linalg.norm(self.ws.phiq @ qd + self.ws.phit)
            if out_names:
                sys.outputs(t, q, qd, obuf)
                OUT[k] = obuf
            if acc_names:
                sys.acceleration_outputs(t, q, qd, qdd, abuf)
                ACC[k] = abuf
            if not (np.isfinite(q).all() and np.isfinite(qd).all() and np.isfinite(x).all()):
                raise _Failure("non-finite state at an output point", t)

        status, message, kdone = 1, "finished", 0
        bar = ode = None
        dq0 = dqd0 = 0.0
        try:
            q0, qd0, _ = self.project(t0, np.asarray(state.q, float), np.asarray(state.qd, float))
            dq0 = float(np.abs(q0 - state.q).max(initial=0.0))
            dqd0 = float(np.abs(qd0 - state.qd).max(initial=0.0))
            record(0, t0, q0, qd0, x0)
            kdone = 1
            if nsteps > 0:
                y0 = np.concatenate((q0, qd0, x0))
                t_stop = grid[-1]
                kw = dict(rtol=self.rtol, atol=self.atol, max_step=self.max_step)
                if self.first_step is not None:
                    kw["first_step"] = self.first_step
                if self.method in IMPLICIT_METHODS:
                    kw["jac"] = self._jacobian
                bound = grid[1] if self.grid == "step" else t_stop
                ode = self._method_cls(self._rhs, t0, y0, bound, **kw)
                if progress:
                    from tqdm import tqdm

                    bar = tqdm(total=float(t_stop - t0), unit="s", mininterval=0.5, leave=False,
                               desc=f"reference {sys.name}")
                while kdone <= nsteps:
                    t_before = ode.t
                    self._nonfinite_t = None
                    try:
                        msg = ode.step()
                    except (ValueError, np.linalg.LinAlgError, ZeroDivisionError) as exc:
                        ode.status, msg = "failed", str(exc)
                    if ode.status == "failed":
                        raise _Failure(self._why(msg), ode.t)
                    y = ode.y
                    t_new = ode.t
                    if not np.isfinite(y).all():
                        raise _Failure(self._why("non-finite state"), t_new)
                    if np.abs(y).max() > DIVERGENCE_LIMIT:
                        raise _Failure(f"state beyond {DIVERGENCE_LIMIT:g} (diverged)", t_new)
                    self.nstep += 1
                    # outputs inside the step: continuous output; at its end: the step value
                    if kdone <= nsteps and grid[kdone] < t_new:
                        sol = ode.dense_output()
                        while kdone <= nsteps and grid[kdone] < t_new:
                            ys = sol(grid[kdone])
                            record(kdone, grid[kdone], ys[:n], ys[n:2 * n], ys[2 * n:])
                            kdone += 1
                    if m and self.projection != "none":
                        qp, qdp, _ = self.project(t_new, y[:n], y[n:2 * n])
                        y = np.concatenate((qp, qdp, y[2 * n:]))
                        ode.y = y
                        ode.f = self._rhs(t_new, y)
                    if kdone <= nsteps and grid[kdone] == t_new:
                        record(kdone, t_new, y[:n], y[n:2 * n], y[2 * n:])
                        kdone += 1
                    if bar is not None:
                        bar.update(float(t_new - t_before))
                    if self.grid == "step" and kdone <= nsteps and ode.status == "finished":
                        ode.t_bound = grid[kdone]
                        ode.status = "running"
                    elif ode.status == "finished" and kdone <= nsteps:
                        raise _Failure("integrator stopped before the end", t_new)
        except _Failure as exc:
            status = -1
            t_last = T[kdone - 1] if kdone else t0
            message = exc.message(f"{self.method}, rtol = {self.rtol:g}", t_last)
        finally:
            if bar is not None:
                bar.close()
        wall = time.perf_counter() - wall0
        if ode is not None:
            self.njev, self.nlu = int(ode.njev), int(ode.nlu)
        k = kdone
        res = Result(
            t=T[:k].copy(), q=Qa[:k].copy(), qd=QDa[:k].copy(), lam=LAM[:k].copy(),
            phi_norm=PHI[:k].copy(), phid_norm=PHID[:k].copy(),
            outputs={**{nm: OUT[:k, j].copy() for j, nm in enumerate(out_names)},
                     **{nm: ACC[:k, j].copy() for j, nm in enumerate(acc_names)}},
            coordinate_names=list(getattr(sys, "coordinate_names", [])), x=X[:k].copy(),
            meta=dict(
                model=sys.name, solver=self.name, method=self.method, h=h, rtol=self.rtol,
                atol=self.atol, max_step=self.max_step, projection=self.projection,
                grid=self.grid, kkt="lstsq" if self._lstsq else "lu", nfev=self.nfev,
                jacobian=self.jacobian if self.method in IMPLICIT_METHODS else None,
                njev=self.njev, nlu=self.nlu, nfev_jac=self.nfev_jac, steps=self.nstep, nproj=self.nproj,
                initial_correction=dict(q=dq0, qd=dqd0),
                wall_s=wall, status=status, message=message,
            ),
        )
        # Extra first-order states: Result has no field for them yet (see the report).
        self.status = status
        return res

    def _step_impl(self, state: State, h: float):
        raise SolverError("solver 'reference' is offline (adaptive): call solve() or "
                          "rtmbs.simulate(system, 'reference', ...), not step()")
