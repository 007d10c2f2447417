"""Parameter sweeps: one run per combination of parameter values, one table of results.

``sweep(model, {path: [values]}, ...)`` runs the cartesian product of the values (the first
parameter varies slowest) with :func:`rtmbs.runs.engine.run_many` and returns a
:class:`SweepTable`: one row per run with its parameters, status, max ‖Φ‖ and, per chosen output
signal, its final, minimum and maximum value (and, with ``trajectories=True``, the signal over the
common time grid), written to HDF5 with units (docs/runs.md).
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import ModelError, SolverError, did_you_mean
from ..solvers.base import get_solver
from .engine import RunsInterrupted, TaskFailure, run_many
from .input_files import manoeuvre_inputs, named_manoeuvre, with_road
from .parameters import ModelSpec, build_system, check_paths, model_spec, unit_of_parameter, with_values

#: per-signal statistics of a run (table columns ``<signal>.<stat>``)
STATS = ("final", "min", "max")
#: ``status`` of a run that had not finished when the sweep was interrupted (NaN values)
NOT_FINISHED = -3


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) or SIGTERM stopped a sweep; ``table`` holds every run, those that had not
    finished with status ``NOT_FINISHED`` and NaN values. Also a ``KeyboardInterrupt``."""

    def __init__(self, table: "SweepTable"):
        self.table = table
        super().__init__(f"sweep interrupted after {table.meta['finished']} of "
                         f"{table.meta['runs']} runs")


@dataclass
class RunSpec:
    """What every run of a sweep shares: the model, the manoeuvre's inputs and the solver."""

    model: ModelSpec
    inputs: list | None = None
    solver: str = "li-euler"
    h: float = 1e-3
    t_end: float = 1.0
    save_every: int = 1
    options: dict = field(default_factory=dict)
    signals: list = field(default_factory=list)
    trajectories: bool = False


def parse_values(text: str, option: str = "--param") -> tuple[str, list[float]]:
    """``PATH=v1,v2,...`` or ``PATH=start:stop:count`` (evenly spaced, ends included)."""
    path, sep, vals = text.partition("=")
    path = path.strip()
    if not sep or not path or not vals.strip():
        raise SolverError(f"{option} {text!r}: expected PATH=v1,v2,... or PATH=start:stop:count")
    try:
        if ":" in vals:
            a, b, n = vals.split(":")
            if int(n) < 1:
                raise ValueError
            values = np.linspace(float(a), float(b), int(n)).tolist()
        else:
            values = [float(v) for v in vals.split(",")]
    except ValueError:
        raise SolverError(f"{option} {text!r}: expected numbers v1,v2,... or start:stop:count "
                          "(count a whole number >= 1)") from None
    if not all(np.isfinite(values)):
        raise SolverError(f"{option} {text!r}: values must be finite")
    return path, values


def check_run(t_end, h) -> None:
    """A run of at least one step, with finite ``h`` > 0 (before any run)."""
    import math

    if not (isinstance(h, (int, float)) and math.isfinite(h) and h > 0):
        raise SolverError(f"h = {h!r}, expected a finite step size > 0 s")
    if not (isinstance(t_end, (int, float)) and math.isfinite(t_end) and round(t_end / h) >= 1):
        raise SolverError(f"t_end = {t_end!r} s is shorter than one step (h = {h:g} s): nothing to run")


def combinations(params: dict) -> list[dict]:
    """The cartesian product of ``{path: [values]}`` as a list of ``{path: value}``."""
    paths = list(params)
    return [dict(zip(paths, combo)) for combo in itertools.product(*(params[p] for p in paths))]


def run_one(task) -> dict:
    """One run of a sweep (``task`` = (RunSpec, {path: value})): its row and trajectories."""
    import warnings

    from ..errors import RedundantConstraintWarning
    from ..solvers.simulate import simulate

    spec, values = task
    system = build_system(spec.model, values, spec.inputs)
    t0 = time.perf_counter()
    with warnings.catch_warnings():  # said once by prepare(), not once per run
        warnings.simplefilter("ignore", RedundantConstraintWarning)
        res = simulate(system, spec.solver, t_end=spec.t_end, h=spec.h, save_every=spec.save_every,
                       raise_on_divergence=False, accelerations=False, **spec.options)
    row = {"status": int(res.meta.get("status", 1)),
           "max_constraint_norm": float(np.max(res.phi_norm)) if len(res.phi_norm) else 0.0,
           "t_reached": float(res.t[-1]), "wall_s": time.perf_counter() - t0}
    traj = {}
    for s in spec.signals:
        y = np.asarray(res.signal(s), float)
        row[f"{s}.final"], row[f"{s}.min"], row[f"{s}.max"] = float(y[-1]), float(np.min(y)), float(np.max(y))
        if spec.trajectories:
            traj[s] = y
    return {"row": row, "t": np.asarray(res.t) if spec.trajectories else None, "traj": traj}


@dataclass
class SweepTable:
    """The results of a sweep: ``columns`` {name: (runs,)}, their ``units``, the parameter paths,
    ``t`` (samples,) and ``trajectories`` {signal: (runs, samples)} when kept, and ``meta``."""

    parameters: list
    columns: dict
    units: dict
    t: np.ndarray | None = None
    trajectories: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)

    def __len__(self):
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def save_hdf5(self, path):
        """One HDF5 file: ``/runs/<column>`` and ``/trajectories/<signal>`` with a ``unit``
        attribute each, ``/t``, the sweep's settings as attributes of the root."""
        import h5py

        with h5py.File(path, "w") as f:
            for k, v in self.meta.items():
                f.attrs[k] = v if not isinstance(v, (list, dict)) else repr(v)
            f.attrs["parameters"] = list(self.parameters)
            g = f.create_group("runs")
            for name, col in self.columns.items():
                d = g.create_dataset(name, data=col)
                d.attrs["unit"] = self.units.get(name, "")
            if self.t is not None:
                d = f.create_dataset("t", data=self.t)
                d.attrs["unit"] = "s"
                tg = f.create_group("trajectories")
                for name, arr in self.trajectories.items():
                    d = tg.create_dataset(name, data=arr)
                    d.attrs["unit"] = self.units.get(name, "")
            if self.failures:
                f.attrs["failures"] = [fl.describe() for fl in self.failures]
        return path

    def save_csv(self, path):
        """The table as CSV: a header of names, a row of units, one row per run."""
        import csv

        names = list(self.columns)
        with open(path, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(names)
            w.writerow([self.units.get(n, "") for n in names])
            for i in range(len(self)):
                w.writerow([str(self.columns[n][i]) if self.columns[n].dtype.kind == "i"
                            else repr(float(self.columns[n][i])) for n in names])
        return path


def prepare(model, params: dict, manoeuvre=None, signals=None, **run) -> tuple[RunSpec, list[dict]]:
    """Check everything before any run: the parameter paths (unknown: named, with close names),
    every combination's values (validated as the model file would be), the manoeuvre (every
    input it drives is the model's), the signals; returns the shared spec and the combinations."""
    spec = model_spec(model)
    if not params:
        raise SolverError("a sweep needs at least one parameter (--param PATH=v1,v2,...)")
    check_paths(spec, params)
    for path, values in params.items():
        if len(values) == 0:
            raise SolverError(f"--param {path}: no values")
    combos = combinations(params)
    for c in combos:
        with_values(spec, c)
    named = named_manoeuvre(manoeuvre)
    if named is not None:  # the concept models' four-phase test: its tables, its road
        spec = replace(spec, description=with_road(spec.description, named.road, spec.name,
                                                   "--manoeuvre"))
        inputs = manoeuvre_inputs(named.inputs, spec.description, spec.name)
        if run.get("t_end") is None:
            run["t_end"] = named.t_end
    else:
        inputs = manoeuvre_inputs(manoeuvre, spec.description, spec.name)
    if run.get("t_end") is None:
        run.pop("t_end", None)
    base = build_system(spec, None, inputs)
    get_solver(run.get("solver", "li-euler"))(base, **run.get("options", {}))  # its option errors
    check_run(run.get("t_end", 1.0), run.get("h", 1e-3))
    known = list(base.output_names) + list(base.coordinate_names)
    chosen = list(signals) if signals else list(base.output_names)
    for s in chosen:
        if s not in known and s.removeprefix("q:").removeprefix("qd:") not in base.coordinate_names:
            raise ModelError(f"outputs.{s}",
                             f"unknown signal of model '{spec.name}'" + did_you_mean(s, known))
    return RunSpec(model=spec, inputs=inputs, signals=chosen, **run), combos


def sweep(model, params: dict, manoeuvre=None, signals=None, scheduler=None, progress=True,
          n_workers=None, batch=1, **run) -> SweepTable:
    """Run the cartesian product of ``params`` ({path: [values]}) and return the table.

    ``run``: ``solver``, ``h``, ``t_end``, ``save_every``, ``options`` (solver options),
    ``trajectories``; ``batch`` runs per Dask task. A failed run keeps its row (status -2, NaN
    values) and is listed in ``table.failures``; a diverged one has status -1 and its values up
    to divergence. Ctrl-C (SIGINT) or SIGTERM raises :class:`SweepInterrupted` holding the table
    of the runs finished so far (the others with status ``NOT_FINISHED``)."""
    spec, combos = prepare(model, params, manoeuvre, signals, **run)
    labels = [", ".join(f"{k}={v:g}" for k, v in c.items()) for c in combos]
    t0 = time.perf_counter()
    try:
        outs = run_many(run_one, [(spec, c) for c in combos], scheduler=scheduler,
                        progress=progress, n_workers=n_workers, labels=labels, keep_going=True,
                        desc="sweep", batch=batch)
    except RunsInterrupted as exc:
        table = _table(spec, combos, exc.results, time.perf_counter() - t0, scheduler)
        raise SweepInterrupted(table) from None
    wall = time.perf_counter() - t0
    return _table(spec, combos, outs, wall, scheduler)


def _table(spec: RunSpec, combos, outs, wall, scheduler) -> SweepTable:
    from ..units import unit_of

    done = lambda o: o is not None and not isinstance(o, TaskFailure)  # noqa: E731
    ok = [o for o in outs if done(o)]
    keys = list(ok[0]["row"]) if ok else ["status"]
    params = list(combos[0])
    cols = {"run": np.arange(len(combos))}
    cols.update({p: np.array([c[p] for c in combos], float) for p in params})
    for k in keys:
        cols[k] = np.array([o["row"][k] if done(o) else np.nan for o in outs], float)
    cols["status"] = np.array([o["row"]["status"] if done(o) else
                               NOT_FINISHED if o is None else -2 for o in outs], int)
    etypes = {f.name: f.type for f in spec.model.description.forces}
    units = {p: unit_of_parameter(p, spec.model.description) for p in params}
    units.update({"run": "", "status": "", "max_constraint_norm": "", "t_reached": "s", "wall_s": "s"})
    for s in spec.signals:
        u = unit_of(s if s.startswith(("q:", "qd:")) else s, etypes)
        units[s] = u
        units.update({f"{s}.{st}": u for st in STATS})
    t, traj = None, {}
    if spec.trajectories:
        n = int(round(spec.t_end / spec.h)) // spec.save_every + 1
        t = next((o["t"] for o in ok if len(o["t"]) == n), None)
        for s in spec.signals:
            arr = np.full((len(outs), n), np.nan)
            for i, o in enumerate(outs):
                if done(o):
                    arr[i, :len(o["traj"][s])] = o["traj"][s]
            traj[s] = arr
    meta = {"model": spec.model.name, "solver": spec.solver, "h": spec.h, "t_end": spec.t_end,
            "save_every": spec.save_every, "runs": len(combos), "wall_s": wall,
            "finished": sum(o is not None for o in outs),
            "scheduler": "in-process" if scheduler is None else str(scheduler),
            "solver_options": dict(spec.options)}
    return SweepTable(params, cols, units, t, traj, meta,
                      [o for o in outs if isinstance(o, TaskFailure)])
