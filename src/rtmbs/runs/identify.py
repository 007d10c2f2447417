"""Parameter identification: scipy ``least_squares`` on model parameters (docs/runs.md).

A configuration (YAML, or the same mapping) names the model, the parameters with their start
values and bounds (and ``also``: more paths given the same value), the measured data (a CSV of
``t`` and signal columns, a target run of the same model with given parameter values, or of
another model through the same manoeuvre, e.g. the named ``four-phase`` test) and the cost
(residuals simulated − measured at the measured times, divided per signal by the measured
signal's standard deviation, or not: ``residual: stacked``, every sample; or ``residual: eq55``,
Carpinelli 2015 eq. 5.5's cumulative error per signal, Σ_t |simulated − measured| Δt / σ). The
Jacobian is by forward differences; its columns — one run each — go through
:func:`rtmbs.runs.engine.run_many`, in parallel on Dask when a scheduler is given.
"""
from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import yaml

from ..concept.calibrate import bounds_reached, converged, stop_summary
from ..model.strict_yaml import safe_load, yaml_problem
from ..errors import ModelError
from .engine import RunsInterrupted, local_cluster, run_many
from .input_files import manoeuvre_inputs, named_manoeuvre, with_road
from .parameters import build_system, check_paths, model_spec, unit_of_parameter, with_values
from .sweep import RunSpec

_KEYS = {"model", "solver", "h", "t_end", "options", "manoeuvre", "signals", "parameters",
         "target", "cost", "fd_step", "max_nfev", "scheduler", "workers"}
_COST_KEYS = {"normalise", "loss", "residual"}
#: the residual vector: every sample (stacked) or one cumulative error per signal (Carpinelli 2015 eq. 5.5)
RESIDUALS = ("stacked", "eq55")
_LOSSES = ("linear", "soft_l1", "huber", "cauchy", "arctan")


@dataclass
class Problem:
    """A checked identification: the shared run spec, parameter paths, starts, bounds, the
    measured times and values per signal, scales and the solver settings."""

    spec: RunSpec
    paths: list
    start: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    t_meas: np.ndarray
    measured: dict
    scale: dict
    loss: str = "linear"
    fd_step: float = 1e-6
    max_nfev: int = 50
    source: str = "config"
    tied: dict = field(default_factory=dict)
    residual: str = "stacked"


@dataclass
class Identification:
    """The identified ``values`` {path: value}, with the start, the final cost (½ Σ r²), the
    RMS residual, scipy's status and message, the numbers of residual and Jacobian evaluations
    and of runs, the wall time, the evaluation cap ``max_nfev`` and ``at_bounds`` (path ->
    "lower"/"upper" for the values that end at a bound)."""

    values: dict
    start: dict
    units: dict
    cost: float
    rms: float
    status: int
    message: str
    nfev: int
    njev: int
    runs: int
    wall_s: float
    history: list = field(default_factory=list)
    max_nfev: int = 0
    at_bounds: dict = field(default_factory=dict)
    #: stopped by Ctrl-C (SIGINT) or SIGTERM: ``values`` are the best evaluated so far, ``history``
    #: the evaluations that finished, ``unfinished`` the parameter points whose runs had not
    interrupted: bool = False
    unfinished: list = field(default_factory=list)

    @property
    def converged(self) -> bool:
        """least_squares stopped on a tolerance (status > 0), not on the evaluation cap."""
        return converged(self.status)

    def stop_summary(self) -> str:
        """Converged or not, scipy's status and message, evaluations against the cap, the
        parameters at a bound."""
        return stop_summary(self.status, self.message, self.nfev, self.max_nfev, self.at_bounds,
                            unit="evaluations")

    def as_dict(self) -> dict:
        d = {k: getattr(self, k) for k in ("values", "start", "units", "cost", "rms", "status",
                                           "message", "nfev", "njev", "runs", "wall_s",
                                           "max_nfev", "at_bounds")}
        d["converged"] = self.converged
        d["stop"] = self.stop_summary()
        if self.interrupted:
            d["interrupted"] = True
            d["evaluations"] = self.history
            d["unfinished"] = self.unfinished
        return d


class IdentificationInterrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) or SIGTERM stopped :func:`identify`; ``result`` is an
    :class:`Identification` of the best point evaluated so far (``interrupted`` set). Also a
    ``KeyboardInterrupt``."""

    def __init__(self, result: Identification):
        self.result = result
        super().__init__(f"identification interrupted after {result.nfev} evaluations")


def _err(source, key, problem):
    return ModelError(f"{source}: {key}", problem)


def _number(source, key, v, positive=False):
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    if not ok or (positive and v <= 0):
        raise _err(source, key, f"expected a finite number{' > 0' if positive else ''}, got {v!r}")
    return float(v)


def load_config(config) -> tuple[dict, str, Path]:
    """The mapping of a config file (or a given mapping), its name for messages and its folder."""
    if isinstance(config, dict):
        return config, "config", Path.cwd()
    p = Path(config)
    if not p.is_file():
        raise ModelError(str(p), "identification config not found")
    try:
        data = safe_load(p.read_text())
    except yaml.YAMLError as exc:
        raise ModelError(str(p), yaml_problem(exc)) from None
    if not isinstance(data, dict):
        raise ModelError(str(p), "an identification config holds a mapping")
    return data, str(p), p.parent


def problem(config) -> Problem:
    """Check a configuration before any run: unknown keys, the model and parameter paths (named,
    with close names), starts inside their bounds, the manoeuvre, the signals and the data."""
    from ..errors import did_you_mean

    data, src, folder = load_config(config)
    for k in data:
        if k not in _KEYS:
            raise _err(src, k, "unknown key" + did_you_mean(k, _KEYS))
    for k in ("model", "parameters", "target", "signals"):
        if k not in data:
            raise _err(src, k, "required key is missing")
    model = str(data["model"])
    if Path(model).suffix.lower() in (".yaml", ".yml") and not Path(model).is_absolute():
        model = str(folder / model)
    mspec = model_spec(model)
    params = data["parameters"]
    if not isinstance(params, dict) or not params:
        raise _err(src, "parameters", "expected a mapping PATH: {start: x, bounds: [lo, hi]}")
    check_paths(mspec, params)
    start, lo, hi = [], [], []
    tied = {}
    for path, p in params.items():
        key = f"parameters.{path}"
        if not isinstance(p, dict) or "start" not in p:
            raise _err(src, key, "expected {start: x, bounds: [lo, hi]}")
        extra = set(p) - {"start", "bounds", "also"}
        if extra:
            raise _err(src, f"{key}.{sorted(extra)[0]}", "unknown key (known: start, bounds, also)")
        also = p.get("also", [])
        also = [also] if isinstance(also, str) else also
        if not isinstance(also, list) or not all(isinstance(a, str) for a in also):
            raise _err(src, f"{key}.also", f"expected a list of parameter paths, got {also!r}")
        check_paths(mspec, also)
        if also:
            tied[path] = list(also)
        x0 = _number(src, f"{key}.start", p["start"])
        b = p.get("bounds", [-math.inf, math.inf])
        if not isinstance(b, (list, tuple)) or len(b) != 2:
            raise _err(src, f"{key}.bounds", f"expected [lower, upper], got {b!r}")
        a, c = (float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v for v in b)
        if not all(isinstance(v, float) and not math.isnan(v) for v in (a, c)) or not a < c:
            raise _err(src, f"{key}.bounds", f"expected numbers lower < upper, got {b!r}")
        if not a <= x0 <= c:
            raise _err(src, f"{key}.start", f"start {x0:g} is outside the bounds [{a:g}, {c:g}]")
        start.append(x0)
        lo.append(a)
        hi.append(c)
    with_values(mspec, expand(dict(zip(params, start)), tied))  # the start values make a valid model
    man = data.get("manoeuvre")
    named = named_manoeuvre(man, f"{src}: manoeuvre")
    if named is not None:
        mspec = replace(mspec, description=with_road(mspec.description, named.road, mspec.name,
                                                     f"{src}: manoeuvre"))
        inputs = manoeuvre_inputs(named.inputs, mspec.description, mspec.name)
    else:
        if isinstance(man, str) and man != "model" and not Path(man).is_absolute():
            man = str(folder / man)
        inputs = manoeuvre_inputs(man, mspec.description, mspec.name)
    signals = data["signals"]
    if isinstance(signals, str):
        signals = [signals]
    spec = RunSpec(model=mspec, inputs=inputs, solver=str(data.get("solver", "li-euler")),
                   h=_number(src, "h", data.get("h", 1e-3), True),
                   t_end=_number(src, "t_end", data.get("t_end", named.t_end if named else 1.0), True),
                   options=dict(data.get("options") or {}), signals=list(signals))
    base = build_system(mspec, None, inputs)
    known = list(base.output_names) + [f"q:{c}" for c in base.coordinate_names]
    for s in spec.signals:
        if s not in known:
            raise _err(src, f"signals.{s}",
                       f"unknown signal of model '{mspec.name}'" + did_you_mean(s, known))
    t_meas, measured = _measured(data["target"], src, folder, spec, named, tied)
    cost = data.get("cost") or {}
    if not isinstance(cost, dict) or set(cost) - _COST_KEYS:
        raise _err(src, "cost", f"expected a mapping with {', '.join(sorted(_COST_KEYS))}")
    loss = cost.get("loss", "linear")
    if loss not in _LOSSES:
        raise _err(src, "cost.loss", f"unknown loss '{loss}'" + did_you_mean(loss, _LOSSES))
    residual = cost.get("residual", "stacked")
    if residual not in RESIDUALS:
        raise _err(src, "cost.residual", f"unknown residual '{residual}'"
                   + did_you_mean(str(residual), RESIDUALS))
    norm = cost.get("normalise", True)
    scale = {s: (float(np.std(y)) if norm and np.std(y) > 0 else 1.0) for s, y in measured.items()}
    return Problem(spec, list(params), np.array(start), np.array(lo), np.array(hi), t_meas,
                   measured, scale, loss, _number(src, "fd_step", data.get("fd_step", 1e-6), True),
                   int(_number(src, "max_nfev", data.get("max_nfev", 50), True)), src, tied,
                   residual)


def _measured(target, src, folder, spec, named=None, tied=None):
    """(times, {signal: values}) of the measured data: a CSV file, a run of the model, or a run
    of another ``model`` (e.g. the detailed ``multilink-ideal`` for a concept model) through the
    same manoeuvre."""
    keys = set(target) if isinstance(target, dict) else None
    if keys is None or keys - {"run", "data", "model"} or not keys \
            or ("data" in keys) == bool(keys & {"run", "model"}):
        raise _err(src, "target", "expected {run: {PATH: value, ...}} (a run of the model), "
                   "{model: NAME, run: {...}} (a run of another model) or {data: FILE.csv} "
                   "(columns t and the signals)")
    if "data" not in keys:
        values = target.get("run") or {}
        if "model" in keys:
            spec = _target_spec(target["model"], src, folder, spec, named)
        else:  # the identified model: a value of an identified path also goes to its ``also``
            values = expand(values, {p: o for p, o in (tied or {}).items() if p in values})
        check_paths(spec.model, values)
        out = simulate_signals(spec, values)
        return out["t"], {s: out[s] for s in spec.signals}
    import csv

    p = Path(target["data"])
    p = p if p.is_absolute() else folder / p
    if not p.is_file():
        raise _err(src, "target.data", f"file not found: {p}")
    with p.open(newline="") as fh:
        rows = [r for r in csv.reader(fh) if r]
    head = [h.strip() for h in rows[0]] if rows else []
    for s in ["t"] + spec.signals:
        if s not in head:
            raise _err(src, "target.data", f"{p.name} has no column '{s}' (columns: {', '.join(head)})")
    try:
        cols = {h: np.array([float(r[k]) for r in rows[1:]]) for k, h in enumerate(head)
                if h in spec.signals or h == "t"}
    except (ValueError, IndexError):
        raise _err(src, "target.data", f"{p.name}: every row needs a number in every column") from None
    if len(cols["t"]) < 1 or cols["t"].max() > spec.t_end + 1e-12 or cols["t"].min() < 0:
        raise _err(src, "target.data", f"{p.name}: times must lie in [0, t_end = {spec.t_end:g}] s")
    return cols["t"], {s: cols[s] for s in spec.signals}


def _target_spec(model, src, folder, spec: RunSpec, named) -> RunSpec:
    """The run spec of a target ``model``: the identified model's manoeuvre (its inputs, and
    the named manoeuvre's road), solver and signals."""
    from ..errors import did_you_mean

    model = str(model)
    if Path(model).suffix.lower() in (".yaml", ".yml") and not Path(model).is_absolute():
        model = str(folder / model)
    tspec = model_spec(model)
    if named is not None:
        tspec = replace(tspec, description=with_road(tspec.description, named.road, tspec.name,
                                                     f"{src}: manoeuvre"))
    inputs = manoeuvre_inputs(spec.inputs, tspec.description, tspec.name) if spec.inputs else None
    out = replace(spec, model=tspec, inputs=inputs)
    base = build_system(tspec, None, inputs)
    known = list(base.output_names) + [f"q:{c}" for c in base.coordinate_names]
    for s in spec.signals:
        if s not in known:
            raise _err(src, "target.model", f"model '{tspec.name}' has no signal '{s}'"
                       + did_you_mean(s, known))
    return out


def simulate_signals(spec: RunSpec, values: dict) -> dict:
    """One run with parameter ``values``: ``t`` and every signal of ``spec`` on the saved grid."""
    from ..solvers.simulate import simulate

    system = build_system(spec.model, values, spec.inputs)
    res = simulate(system, spec.solver, t_end=spec.t_end, h=spec.h, accelerations=False,
                   **spec.options)
    return {"t": np.asarray(res.t), **{s: np.asarray(res.signal(s), float) for s in spec.signals}}


def expand(values: dict, tied: dict) -> dict:
    """``values`` with each identified path's value also written to the paths it is ``also``
    (one design parameter held by several numbers: a pivot's x on both bodies)."""
    out = dict(values)
    for path, others in tied.items():
        out.update({o: values[path] for o in others})
    return out


def residuals_task(task) -> np.ndarray:
    """Residuals of one parameter vector (a Dask task): ``task`` = (Problem, values)."""
    prob, x = task
    out = simulate_signals(prob.spec, expand(dict(zip(prob.paths, map(float, x))), prob.tied))
    r = [(np.interp(prob.t_meas, out["t"], out[s]) - prob.measured[s]) / prob.scale[s]
         for s in prob.spec.signals]
    if prob.residual == "eq55":  # Carpinelli 2015 eq. 5.5: f_k = Σ_t |model_k − ref_k| Δt / σ_k
        dt = float(np.mean(np.diff(prob.t_meas))) if prob.t_meas.size > 1 else 1.0
        return np.array([np.sum(np.abs(d)) * dt for d in r])
    return np.concatenate(r)


def fd_points(prob: Problem, x: np.ndarray) -> tuple[list, np.ndarray]:
    """The points of the forward-difference columns at ``x``: x + δ_j e_j, δ_j = fd_step·max(|x_j|,
    |start_j|, 1e-12), stepped backwards where forwards would leave the bounds."""
    delta = prob.fd_step * np.maximum(np.maximum(np.abs(x), np.abs(prob.start)), 1e-12)
    delta = np.where(x + delta > prob.upper, -delta, delta)
    pts = []
    for j in range(len(x)):
        xj = x.copy()
        xj[j] += delta[j]
        pts.append(xj)
    return pts, delta


def identify(config, scheduler=None, progress=True, n_workers=None, log=None) -> Identification:
    """Identify the parameters of ``config`` (a file or a mapping); the runs of each Jacobian go
    through :func:`run_many` (in this process, or on Dask: ``"local"``, an address, a client).
    Ctrl-C (SIGINT) or SIGTERM raises :class:`IdentificationInterrupted` with the best point
    evaluated so far, the evaluations that finished and the points whose runs had not."""
    from scipy.optimize import least_squares

    prob = problem(config)
    t0 = time.perf_counter()
    counts = {"runs": 0}
    cache = {}
    history = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=prob.max_nfev, unit="eval", desc="identify", leave=False)

    unfinished: list = []
    with contextlib.ExitStack() as stack:
        sched = scheduler
        if scheduler == "local":
            sched = stack.enter_context(local_cluster(n_workers))

        def batch(points):
            labels = [", ".join(f"{p}={v:g}" for p, v in zip(prob.paths, x)) for x in points]
            try:
                out = run_many(residuals_task, [(prob, x) for x in points], scheduler=sched,
                               progress=False, labels=labels)
            except RunsInterrupted as exc:
                counts["runs"] += exc.done
                unfinished.extend(x.tolist() for x, r in zip(points, exc.results) if r is None)
                raise
            counts["runs"] += len(points)
            return out

        def fun(x):
            key = x.tobytes()
            if key not in cache:
                cache.clear()
                cache[key] = batch([x.copy()])[0]
                r = cache[key]
                counts["residuals"] = r.size
                history.append({"x": x.tolist(), "cost": 0.5 * float(r @ r)})
                if bar is not None:
                    bar.update(1)
                    bar.set_postfix(cost=f"{0.5 * float(r @ r):.3g}")
                if log:
                    log(f"cost {0.5 * float(r @ r):.6g} at " + ", ".join(f"{v:.6g}" for v in x))
            return cache[key]

        def jac(x):
            key = x.tobytes()
            pts, delta = fd_points(prob, x)
            if key in cache:
                r0, rs = cache[key], batch(pts)
            else:
                out = batch([x.copy()] + pts)
                r0, rs = out[0], out[1:]
            return np.column_stack([(rj - r0) / dj for rj, dj in zip(rs, delta)])

        x_scale = np.where(prob.start != 0, np.abs(prob.start), 1.0)
        try:
            sol = least_squares(fun, prob.start, jac=jac, bounds=(prob.lower, prob.upper),
                                x_scale=x_scale, loss=prob.loss, max_nfev=prob.max_nfev)
        except KeyboardInterrupt:
            if bar is not None:
                bar.close()
            raise IdentificationInterrupted(_interrupted(prob, history, unfinished, counts,
                                                         time.perf_counter() - t0)) from None
    if bar is not None:
        bar.close()
    r = sol.fun
    return Identification(
        values=dict(zip(prob.paths, map(float, sol.x))), start=dict(zip(prob.paths, map(float, prob.start))),
        units={p: unit_of_parameter(p, prob.spec.model.description) for p in prob.paths},
        cost=float(0.5 * r @ r), rms=float(np.sqrt(np.mean(r ** 2))) if len(r) else 0.0,
        status=int(sol.status), message=str(sol.message), nfev=int(sol.nfev),
        njev=int(sol.njev or 0), runs=counts["runs"], wall_s=time.perf_counter() - t0, history=history,
        max_nfev=int(prob.max_nfev),
        at_bounds=bounds_reached(prob.paths, sol.x, prob.lower, prob.upper,
                                 getattr(sol, "active_mask", None)))


def _interrupted(prob: Problem, history, unfinished, counts, wall) -> Identification:
    """The :class:`Identification` of an interrupted fit: the best evaluated point (the start,
    with a NaN cost, when none finished)."""
    best = min(history, key=lambda h: h["cost"]) if history else None
    x = np.asarray(best["x"]) if best else prob.start
    cost = best["cost"] if best else math.nan
    n = counts.get("residuals", 0)
    return Identification(
        values=dict(zip(prob.paths, map(float, x))),
        start=dict(zip(prob.paths, map(float, prob.start))),
        units={p: unit_of_parameter(p, prob.spec.model.description) for p in prob.paths},
        cost=float(cost), rms=float(math.sqrt(2 * cost / n)) if best and n else math.nan,
        status=0, message=f"interrupted (Ctrl-C or SIGTERM) after {len(history)} evaluations",
        nfev=len(history), njev=0, runs=counts["runs"], wall_s=wall, history=list(history),
        max_nfev=int(prob.max_nfev),
        at_bounds=bounds_reached(prob.paths, x, prob.lower, prob.upper, None),
        interrupted=True, unfinished=list(unfinished))
