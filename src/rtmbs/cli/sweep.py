"""``rtmbs sweep`` and ``rtmbs identify``: many runs, on Dask by default (docs/runs.md)."""
from __future__ import annotations

import json
from pathlib import Path

from .numbers import json_line, json_safe, positive_float, positive_int
from .solver_options import add_solver_arguments, solver_options

_SCHEDULER_HELP = ("where the runs go: 'local' (a Dask LocalCluster of --workers single-threaded "
                   "processes), 'none' (one after the other in this process) or a scheduler address "
                   "tcp://host:8786")


def register(sub, fmt):
    p = sub.add_parser(
        "sweep", help="run a model over a grid of parameter values (Dask) into one table",
        formatter_class=fmt,
        description="One run per combination of the --param values (cartesian product), each with "
        "the model's own inputs or a --manoeuvre file; one table (HDF5 with units, and CSV) with a "
        "row per run: the parameters, status, max ‖Φ‖ and the final, min and max of each --output "
        "signal (and the signals over time with --trajectories). A PATH addresses a number of the "
        "model description: forces.spring.stiffness, bodies.arm.mass, gravity.2, "
        "bodies.link1.markers.tip.position.0 (docs/runs.md).",
        epilog="examples:\n"
        "  rtmbs sweep double-pendulum --param bodies.link2.mass=0.5,1,2 "
        "--param bodies.link1.mass=1:2:3 --t-end 1 --output link2.z --out out/sweep.h5\n"
        "  rtmbs sweep model.yaml --param forces.spring.stiffness=1e4,2e4 --manoeuvre steer.csv "
        "--scheduler tcp://10.0.0.5:8786 --out out/k.h5")
    p.add_argument("model", help="built-in name (rtmbs models) or YAML file")
    p.add_argument("--param", action="append", required=True, metavar="PATH=V1,V2,...",
                   help="a parameter and its values (v1,v2,... or start:stop:count), repeatable")
    p.add_argument("--manoeuvre", default="model", help="'model' (its own inputs), a YAML "
                   "(inputs: {name: input}) or CSV (t and one column per input) file, or "
                   "four-phase, four-phase-V1, four-phase-V2 (the concept models' test and its road)")
    p.add_argument("--solver", default="li-euler", help="solver name")
    p.add_argument("--h", type=positive_float, default=1e-3, help="step size [s]")
    p.add_argument("--t-end", type=positive_float, default=None,
                   help="end time [s] (default: 1, or the named manoeuvre's length)")
    p.add_argument("--save-every", type=positive_int, default=1, help="keep every k-th step")
    add_solver_arguments(p)
    p.add_argument("--output", action="append", default=None, metavar="SIGNAL",
                   help="an output or coordinate (q:NAME) in the table, repeatable (default: "
                   "every output of the model)")
    p.add_argument("--trajectories", action="store_true",
                   help="also keep the --output signals over time")
    _runs_args(p)
    p.add_argument("--batch", type=positive_int, default=1,
                   help="runs per Dask task (several short runs per task save scheduler round trips)")
    p.add_argument("--out", required=True, help="the table: FILE.h5 (and FILE.csv beside it)")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser(
        "identify", help="identify model parameters from measured data (least squares, Dask)",
        formatter_class=fmt,
        description="scipy least_squares on the parameters of CONFIG.yaml, the forward-difference "
        "Jacobian's columns run in parallel (one run each). CONFIG: model, parameters {PATH: "
        "{start, bounds: [lo, hi]}}, signals, target {data: FILE.csv} or {run: {PATH: value}}, "
        "and optional solver, h, t_end, options, manoeuvre, cost {normalise, loss}, fd_step, "
        "max_nfev (docs/runs.md).",
        epilog="example:\n  rtmbs identify id.yaml --workers 2 --out out/id.json\n"
        "with id.yaml:\n  model: model.yaml\n  t_end: 1.0\n  signals: [block.z]\n"
        "  parameters:\n    forces.spring.stiffness: {start: 800, bounds: [100, 5000]}\n"
        "  target: {data: measured.csv}")
    p.add_argument("config", help="identification config (YAML)")
    _runs_args(p, default=None)
    p.add_argument("--out", default=None, help="write the result here (JSON)")
    p.set_defaults(func=cmd_identify)


def _runs_args(p, default="local"):
    p.add_argument("--scheduler", default=default, help=_SCHEDULER_HELP +
                   ("" if default else " (default: the config's scheduler, else local)"))
    p.add_argument("--workers", type=positive_int, default=None,
                   help="processes of the local cluster (default: the cores)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print a one-line JSON summary")


def _scheduler(text):
    return None if text in (None, "none", "") else text


#: how long an interrupted sweep or identification may take to close its cluster before it ends
#: without writing (the results are written after the close)
UNWIND_S = 1.5


def cmd_sweep(args) -> int:
    import sys

    from ..io.files import writable_file
    from ..runs.sweep import parse_values, sweep

    out = writable_file(args.out)
    params = {}
    for text in args.param:
        path, values = parse_values(text)
        if path in params:
            from ..errors import SolverError

            raise SolverError(f"--param {path}: given twice")
        params[path] = values
    from ..io.interrupts import unwinding, writing
    from ..runs.sweep import NOT_FINISHED, SweepInterrupted

    note = "sweep interrupted; no table written"
    try:
        # Ctrl-C: the workers are killed, the table of the finished runs written (or, if that
        # has not begun within the limit, the process ended saying the note). 1.5 s: closing a
        # local cluster took over 1 s at load 4, and the exit stays within 2 s of the signal
        with unwinding(note, limit_s=UNWIND_S):
            table = sweep(args.model, params, manoeuvre=args.manoeuvre, signals=args.output,
                          scheduler=_scheduler(args.scheduler),
                          progress=not (args.no_progress or args.json), n_workers=args.workers,
                          solver=args.solver, h=args.h, t_end=args.t_end,
                          save_every=args.save_every, options=solver_options(args),
                          trajectories=args.trajectories, batch=args.batch)
    except SweepInterrupted as exc:
        table, done, runs = exc.table, exc.table.meta["finished"], exc.table.meta["runs"]
        if not done:
            print("rtmbs: sweep interrupted before any run finished; no table written",
                  file=sys.stderr)
            return 130
        with writing("the table of the finished runs"):
            h5, csv = _save(table, out)
        print(f"rtmbs: sweep interrupted after {done} of {runs} runs; the finished runs are in "
              f"{h5} and {csv} (status {NOT_FINISHED}: not finished)", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print(f"rtmbs: {note}", file=sys.stderr)
        return 130
    h5, csv = _save(table, out)
    status = table.columns["status"]
    summary = {"runs": len(table), "done": int((status == 1).sum()),
               "diverged": int((status == -1).sum()), "failed": len(table.failures),
               "wall_s": table.meta["wall_s"], "runs_per_s": len(table) / table.meta["wall_s"],
               "files": [str(h5), str(csv)]}
    for f in table.failures:
        print(f"rtmbs: {f.describe()}", file=sys.stderr)
    if args.json:
        print(json_line(summary))
    else:
        print(f"{summary['runs']} runs in {summary['wall_s']:.3g} s ({summary['runs_per_s']:.3g} "
              f"runs/s): {summary['done']} done, {summary['diverged']} diverged, "
              f"{summary['failed']} failed; table in {h5} and {csv}")
    return 1 if table.failures else 0


def _save(table, out):
    """The table as ``out`` (.h5) and the CSV beside it; their paths."""
    h5 = out if out.suffix.lower() in (".h5", ".hdf5") else out.with_suffix(".h5")
    table.save_hdf5(h5)
    return h5, table.save_csv(h5.with_suffix(".csv"))


def cmd_identify(args) -> int:
    import sys

    from ..io.files import writable_file
    from ..io.interrupts import unwinding, writing
    from ..runs.identify import IdentificationInterrupted, identify, load_config

    out = writable_file(args.out) if args.out else None
    data, _, _ = load_config(args.config)
    sched = args.scheduler if args.scheduler is not None else data.get("scheduler", "local")
    workers = args.workers or data.get("workers")
    quiet = args.no_progress or args.json
    note = "identification interrupted; nothing written"
    try:
        with unwinding(note, limit_s=UNWIND_S):  # as for the sweep
            res = identify(args.config, scheduler=_scheduler(sched), progress=not quiet,
                           n_workers=workers)
    except IdentificationInterrupted as exc:
        res = exc.result
        where = "; not written (no --out)"
        if out:
            with writing("the evaluations so far"):
                Path(out).write_text(json.dumps(json_safe(res.as_dict()), indent=1))
            where = f"; the evaluations are in {out}"
        best = ", ".join(f"{p} = {v:.6g} {res.units[p]}" for p, v in res.values.items())
        print(f"rtmbs: identification interrupted after {res.nfev} evaluations ({res.runs} runs, "
              f"{len(res.unfinished)} unfinished); best so far: {best} (cost {res.cost:.4g})"
              f"{where}", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print(f"rtmbs: {note}", file=sys.stderr)
        return 130
    d = res.as_dict()
    if out:
        Path(out).write_text(json.dumps(json_safe(d), indent=1))
    if args.json:
        print(json_line(d))
    else:
        for p, v in res.values.items():
            print(f"{p} = {v:.6g} {res.units[p]} (start {res.start[p]:.6g})")
        print(f"cost {res.cost:.4g}, RMS residual {res.rms:.4g}; {res.nfev} evaluations, "
              f"{res.njev} Jacobians, {res.runs} runs in {res.wall_s:.3g} s")
        print(res.stop_summary())
    return 0 if res.status > 0 else 1
