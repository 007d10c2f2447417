"""Parameter identification of a concept model from target responses (Carpinelli 2015 §5.1.3, eq. 5.5).

The paper minimises f1(b)² + f2(b)², f1 and f2 the "cumulative errors" of the chassis vertical
position z and velocity v_z over the test, with Matlab's ``lsqnonlin``. Here:

* ``residual="cumulative"``: the paper's two residuals f_k = Σ_t |ref_k − model_k| Δt/σ_k
  (``cumulative="signed"``: Σ_t (ref_k − model_k) Δt/σ_k; the paper says not which); two
  equations for five unknowns: under-determined at the first order;
* ``residual="stacked"`` (recommended): every sample, (model_k − ref_k)/(σ_k √N_k), so
  ½‖r‖² = ½ Σ_k RMS_k²/σ_k²;

σ_k is the standard deviation of the target signal k (it makes z and v_z commensurable).
``scipy.optimize.least_squares`` (TRF, the analogue of ``lsqnonlin``) with bounds runs on the
parameters scaled to [0, 1] between their bounds; the Jacobian is forward differences whose
columns are computed with ``map`` (``map(fn, list_of_args) -> list``; the builtin by default,
a Dask client's map for parallel runs).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from ..errors import ModelError, SolverError, did_you_mean

RESIDUALS = ("stacked", "cumulative")
CUMULATIVE = ("absolute", "signed")


@dataclass
class Identification:
    """Result: ``params`` (name -> identified value), ``x`` (same, as an array), ``cost`` (½‖r‖²
    at the end), ``history`` (cost at the start and after each iteration), ``iterations``
    (Jacobian evaluations), ``nfev`` (simulations for residuals; the Jacobians take
    len(names) more each), ``status``/``message`` of least_squares, ``max_iterations`` (the
    cap), ``at_bounds`` (name -> "lower"/"upper" for the parameters that end at a bound)."""

    names: tuple
    x: np.ndarray
    params: dict
    cost: float
    history: list
    iterations: int
    nfev: int
    status: int
    message: str
    x0: np.ndarray = field(default_factory=lambda: np.zeros(0))
    max_iterations: int = 0
    at_bounds: dict = field(default_factory=dict)

    @property
    def converged(self) -> bool:
        """least_squares stopped on a tolerance (status > 0), not at the iteration cap."""
        return converged(self.status)

    def stop_summary(self) -> str:
        """One line: converged or not, scipy's status and message, residual evaluations against
        least_squares' cap (``max_iterations`` + 1), the Jacobians, the parameters at a bound."""
        return stop_summary(self.status, self.message, self.nfev, self.max_iterations + 1,
                            self.at_bounds, note=f" ({self.iterations} Jacobians)")


#: a parameter within this share of its bounds' span of a bound counts as at the bound
AT_BOUND_SHARE = 1e-3


def converged(status: int) -> bool:
    """scipy least_squares' ``status``: > 0 a tolerance was met; 0 the evaluation cap; −1 the
    algorithm could not progress."""
    return int(status) > 0


def bounds_reached(names, x, lower, upper, active_mask=None, share: float = AT_BOUND_SHARE) -> dict:
    """name -> "lower" / "upper" for each parameter within ``share`` of the span of a bound
    (or marked active by least_squares' ``active_mask``: −1 lower, 1 upper)."""
    x, lo, hi = (np.asarray(a, float) for a in (x, lower, upper))
    span = np.where(np.isfinite(hi - lo), hi - lo, np.inf)
    act = np.zeros(len(x), int) if active_mask is None else np.asarray(active_mask, int)
    out = {}
    for k, nm in enumerate(names):
        if act[k] < 0 or (np.isfinite(lo[k]) and x[k] - lo[k] <= share * span[k]):
            out[nm] = "lower"
        elif act[k] > 0 or (np.isfinite(hi[k]) and hi[k] - x[k] <= share * span[k]):
            out[nm] = "upper"
    return out


def stop_summary(status: int, message: str, count: int, cap: int, at_bounds: dict,
                 unit: str = "evaluations", note: str = "") -> str:
    """One line: "converged: scipy least_squares status 2, "...", after 12 of at most 41
    evaluations; parameters at a bound: d_r (upper)" or "NOT converged: ... stopped by the
    evaluation cap; ..." (``count``, ``cap``: residual evaluations and least_squares'
    ``max_nfev``; ``note`` follows the unit)."""
    head = "converged" if converged(status) else "NOT converged"
    cap_txt = f" of at most {cap}" if cap else ""
    hit = ", stopped by the evaluation cap" if int(status) == 0 else ""
    bnd = (", ".join(f"{k} ({v})" for k, v in at_bounds.items()) if at_bounds
           else "none")
    return (f"{head}: scipy least_squares status {status}, \"{message}\", after {count}"
            f"{cap_txt} {unit}{note}{hit}; parameters at a bound: {bnd}")


def check_problem(names: Sequence[str], x0, bounds, known: Sequence[str] | None = None):
    """(x0, lower, upper) as arrays; ModelError naming the parameter for an unknown name, a
    start outside its bounds, or empty bounds."""
    names = tuple(names)
    if not names:
        raise ModelError("identify.names", "no parameters to identify")
    if len(set(names)) != len(names):
        raise ModelError("identify.names", f"a parameter is listed twice: {list(names)}")
    if known is not None:
        for nm in names:
            if nm not in known:
                raise ModelError(f"identify.names.{nm}", "unknown parameter" + did_you_mean(nm, list(known))
                                 + f" (known: {', '.join(known)})")
    x0 = np.asarray(x0, float)
    lo, hi = (np.asarray(b, float) for b in bounds)
    for what, a in (("x0", x0), ("bounds[0]", lo), ("bounds[1]", hi)):
        if a.shape != (len(names),):
            raise ModelError(f"identify.{what}", f"expected {len(names)} values (one per parameter "
                             f"{', '.join(names)}), got shape {a.shape}")
    for i, nm in enumerate(names):
        if not (np.isfinite(lo[i]) and np.isfinite(hi[i]) and lo[i] < hi[i]):
            raise ModelError(f"identify.bounds.{nm}", f"need finite lower < upper, got "
                             f"[{lo[i]:g}, {hi[i]:g}]")
        if not lo[i] <= x0[i] <= hi[i]:
            raise ModelError(f"identify.bounds.{nm}", f"the start {x0[i]:g} is outside the "
                             f"bounds [{lo[i]:g}, {hi[i]:g}]")
    return x0, lo, hi


def residual_vector(model: dict, target: dict, signals=("z", "vz"), residual: str = "stacked",
                    cumulative: str = "absolute", scale: dict | None = None) -> np.ndarray:
    """The residuals of ``model`` against ``target`` (module docstring). ``scale``: σ per
    signal (default: the target's standard deviation). A failed run (NaN) gives large finite
    residuals so the optimiser steps back."""
    if residual not in RESIDUALS:
        raise SolverError(f"identify: residual '{residual}' is not one of {', '.join(RESIDUALS)}")
    if cumulative not in CUMULATIVE:
        raise SolverError(f"identify: cumulative '{cumulative}' is not one of {', '.join(CUMULATIVE)}")
    out = []
    for k in signals:
        ref = np.asarray(target[k], float)
        y = np.asarray(model[k], float)
        s = (scale or {}).get(k) or float(np.std(ref)) or 1.0
        d = np.where(np.isfinite(y), y - ref, 1e3 * s) / s
        if residual == "stacked":
            out.append(d / np.sqrt(d.size))
        else:
            dt = float(np.mean(np.diff(target["t"]))) if "t" in target else 1.0
            out.append(np.array([np.sum(np.abs(d) if cumulative == "absolute" else -d) * dt]))
    return np.concatenate(out)


@dataclass
class Residual:
    """``residual(u)``: the residual vector at the scaled parameters ``u`` (in [0, 1] between
    the bounds). A module-level callable holding plain data, so that a Dask ``map`` can ship
    it to the workers (with a picklable ``simulate``, e.g. :class:`QuarterCarSimulator`)."""

    simulate: Callable
    target: dict
    names: tuple
    lower: np.ndarray
    span: np.ndarray
    signals: tuple
    residual: str
    cumulative: str
    scale: dict

    def params(self, u) -> dict:
        return dict(zip(self.names, (self.lower + np.clip(u, 0.0, 1.0) * self.span).tolist()))

    def __call__(self, u) -> np.ndarray:
        return residual_vector(self.simulate(self.params(u)), self.target, self.signals,
                               self.residual, self.cumulative, self.scale)


def fd_points(u: np.ndarray, diff_step: float) -> tuple[list, list]:
    """The forward-difference points u + h e_j of the Jacobian columns and their steps h
    (backwards where forwards would leave [0, 1])."""
    steps, points = [], []
    for j in range(len(u)):
        h = diff_step if u[j] + diff_step <= 1.0 else -diff_step
        v = np.array(u, float)
        v[j] += h
        steps.append(h)
        points.append(v)
    return points, steps


def identify(simulate: Callable[[dict], dict], target: dict, names: Sequence[str], x0, bounds,
             known: Sequence[str] | None = None, signals=("z", "vz"), residual: str = "stacked",
             cumulative: str = "absolute", map: Callable = map, diff_step: float = 1e-3,
             max_iterations: int = 40, ftol: float = 1e-8, xtol: float = 1e-8,
             log: Callable | None = None) -> Identification:
    """Least-squares identification of ``names`` (start ``x0``, ``bounds`` = (lower, upper))
    so that ``simulate(params) -> {signal: array}`` matches ``target`` (same keys and grid).

    ``known``: the parameter names ``simulate`` understands (checked first). Options as in
    the module docstring; ``max_iterations`` bounds the Jacobian evaluations, ``ftol`` and
    ``xtol`` are least_squares' (the scaled variables are in [0, 1])."""
    from scipy.optimize import least_squares

    names = tuple(names)
    x0, lo, hi = check_problem(names, x0, bounds, known)
    for k in signals:
        if k not in target:
            raise SolverError(f"identify: the target has no signal '{k}' (it has: "
                              f"{', '.join(sorted(target))})")
    residual_vector({k: target[k] for k in signals}, target, signals, residual, cumulative)
    span = hi - lo
    scale = {k: float(np.std(np.asarray(target[k], float))) or 1.0 for k in signals}
    res_of = Residual(simulate, {k: np.asarray(target[k], float) for k in (*signals, "t") if k in target},
                      names, lo, span, tuple(signals), residual, cumulative, scale)
    params = res_of.params

    cache = {}
    history = []

    def fun(u):
        r = res_of(u)
        cache["u"], cache["r"] = u.copy(), r
        return r

    def jac(u):
        r0 = cache["r"] if "u" in cache and np.array_equal(cache["u"], u) else res_of(u)
        history.append(0.5 * float(r0 @ r0))
        if log:
            log(f"    iteration {len(history) - 1}: cost {history[-1]:.6g}  "
                + "  ".join(f"{k}={v:.6g}" for k, v in params(u).items()))
        points, steps = fd_points(u, diff_step)
        cols = list(map(res_of, points))
        return np.column_stack([(c - r0) / h for c, h in zip(cols, steps)])

    u0 = (x0 - lo) / span
    sol = least_squares(fun, u0, jac=jac, bounds=(0.0, 1.0), method="trf", x_scale=1.0,
                        ftol=ftol, xtol=xtol, gtol=1e-10, max_nfev=max_iterations + 1)
    history.append(float(sol.cost))
    x = lo + sol.x * span
    return Identification(names=names, x=x, params=dict(zip(names, x.tolist())),
                          cost=float(sol.cost), history=history, iterations=int(sol.njev),
                          nfev=int(sol.nfev), status=int(sol.status), message=str(sol.message),
                          x0=x0, max_iterations=int(max_iterations),
                          at_bounds=bounds_reached(names, sol.x, np.zeros(len(x)), np.ones(len(x)),
                                                   getattr(sol, "active_mask", None)))


@dataclass(frozen=True)
class _ManoeuvreSimulator:
    """What a simulator of a concept model through a manoeuvre holds: plain data, so that the
    module-level subclasses are picklable and Dask workers can run them."""

    manoeuvre: object
    solver: str = "li-euler"
    h: float = 1e-3
    every: int = 1
    fixed: dict | None = None
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class QuarterCarSimulator(_ManoeuvreSimulator):
    """``simulate(params)`` for :func:`identify`: the concept quarter car with ``fixed`` and
    ``params`` (names :data:`rtmbs.concept.models.QUARTER_PARAMS`) driven through
    ``manoeuvre`` (:func:`rtmbs.concept.drive_cycles.run`). A run that fails returns NaN from
    where it stopped."""

    def __call__(self, params: dict) -> dict:
        from ..system import compile_model
        from .drive_cycles import run
        from .models import quarter_car_model

        model = quarter_car_model({**(self.fixed or {}), **params}, road=self.manoeuvre.road())
        return run(compile_model(model), self.manoeuvre, solver=self.solver, h=self.h,
                   every=self.every, **self.options)


def quarter_car_simulator(manoeuvre, solver: str = "li-euler", h: float = 1e-3,
                          every: int = 1, fixed: dict | None = None, **options) -> QuarterCarSimulator:
    """A checked :class:`QuarterCarSimulator` (the model is drivable by ``manoeuvre``)."""
    from ..system import compile_model
    from .drive_cycles import check_drivable
    from .models import quarter_car_model

    check_drivable(compile_model(quarter_car_model(fixed, road=manoeuvre.road())), manoeuvre)
    return QuarterCarSimulator(manoeuvre, solver, h, every, fixed, dict(options))


def rms_errors(model: dict, target: dict, keys=("z", "vz", "az")) -> dict:
    """RMS of model − target per signal (Tables 5.1-5.2)."""
    return {k: float(np.sqrt(np.nanmean((np.asarray(model[k]) - np.asarray(target[k])) ** 2)))
            for k in keys}


@dataclass(frozen=True)
class CarSimulator(_ManoeuvreSimulator):
    """``simulate(params)`` for :func:`identify`: the 12-DOF trailing-arm car with ``fixed`` and
    ``params`` (names :data:`rtmbs.concept.models.CAR_PARAMS`) through ``manoeuvre``
    (:func:`rtmbs.concept.drive_cycles.run_car`); picklable."""

    def __call__(self, params: dict) -> dict:
        from ..system import compile_model
        from .drive_cycles import run_car
        from .models import trailing_arm_car_model

        model = trailing_arm_car_model({**(self.fixed or {}), **params}, road=self.manoeuvre.road())
        return run_car(compile_model(model), self.manoeuvre, solver=self.solver, h=self.h,
                       every=self.every, **self.options)


def car_simulator(manoeuvre, solver: str = "li-euler", h: float = 1e-3, every: int = 1,
                  fixed: dict | None = None, **options) -> CarSimulator:
    """A :class:`CarSimulator`."""
    return CarSimulator(manoeuvre, solver, h, every, fixed, dict(options))


@dataclass(frozen=True)
class IdentificationModelSimulator:
    """``simulate(params)`` for :func:`identify` on the 5-body identification model (§5.2.2),
    see :func:`identification_model_simulator`; picklable."""

    wheel_z: dict
    inputs: dict
    n: int
    h: float
    signals: dict
    fixed: dict | None = None
    solver: str = "li-euler"
    options: dict = field(default_factory=dict)

    def __call__(self, params: dict) -> dict:
        from ..solvers.base import get_solver
        from ..solvers.rollout import rollout
        from ..system import compile_model
        from .models import identification_model

        system = compile_model(identification_model({**(self.fixed or {}), **params},
                                                    wheel_z=self.wheel_z))
        slv = get_solver(self.solver)(system, **self.options)
        state = system.initial_state()
        slv.reset(state)
        r = rollout(slv, state, self.n, self.h, inputs=self.inputs)
        out = {"status": int(r.status)}
        for key, name in self.signals.items():
            y = np.full(self.n, np.nan)
            v = np.asarray(r.outputs[name])[:self.n]
            y[:len(v)] = v
            out[key] = y
        return out


def identification_model_simulator(wheel_z: dict, inputs: dict, t_end: float, h: float = 1e-3,
                                   signals: dict | None = None, fixed: dict | None = None,
                                   solver: str = "li-euler", **options) -> IdentificationModelSimulator:
    """``simulate(params)`` for :func:`identify` on the 5-body identification model (§5.2.2):
    wheel-centre heights ``wheel_z`` (corner -> input function, e.g. a ``table`` of the
    measurement), input channels ``inputs`` (``Fx_<corner>``, ``drive_torque``: one value per
    step, e.g. :func:`rtmbs.concept.longitudinal.identification_inputs`), ``signals`` (key ->
    output name, default body z, v_z, pitch and roll rates). Parameters:
    :data:`rtmbs.concept.models.CAR_PARAMS`."""
    signals = signals or {"z": "body.z", "vz": "body.vz", "wy": "body.wy", "wx": "body.wx"}
    return IdentificationModelSimulator(wheel_z, inputs, int(round(t_end / h)), h, signals, fixed,
                                        solver, dict(options))
