"""The core subcommands: demo, models, info, run, bench, plot."""
from __future__ import annotations

import json
import time
from pathlib import Path

from ..solvers.timing import bench_steps
from .numbers import json_line, json_safe, nonnegative_int, positive_float, positive_int
from ..io.files import writable_dir, writable_file
from .solver_options import add_solver_arguments, solver_options
from ..solvers.simulate import DRIFT_WARNING


def register(sub, fmt):
    p = sub.add_parser("demo", help="simulate the demo model and report speed and results",
                       formatter_class=fmt,
                       description="Run the demo: the rear multilink suspension over a 2 cm bump with "
                       "li-euler and li-euler-indep (Algorithms 1 and 2 of Carpinelli 2016), then the "
                       "built-in sedan through an ISO 3888-1 double lane change with a driver; "
                       "results (HDF5, CSV), plots and summary.json in --out.",
                       epilog="example:\n  rtmbs demo --out rtmbs-demo")
    p.add_argument("--out", default="rtmbs-demo", help="directory for results and plots")
    p.add_argument("--t-end", type=positive_float, default=None,
                   help="simulated time of the suspension runs [s] (default: 1.5)")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("models", help="list the built-in models", formatter_class=fmt,
                       epilog="example:\n  rtmbs models")
    p.set_defaults(func=cmd_models)

    p = sub.add_parser("schema", help="write the JSON Schema of the model format",
                       formatter_class=fmt,
                       epilog="example:\n  rtmbs schema --out docs/model-schema.json")
    p.add_argument("--out", default="model-schema.json", help="the file to write")
    p.set_defaults(func=cmd_schema)

    p = sub.add_parser("info", help="bodies, joints, forces and n, m, rank, f of a model",
                       formatter_class=fmt,
                       epilog="examples:\n  rtmbs info slider-crank\n  rtmbs info my_model.yaml --json")
    p.add_argument("model", help="built-in name (rtmbs models) or YAML file")
    p.add_argument("--json", action="store_true", help="print one JSON object with n, m, rank, f")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("run", help="simulate a model and write results", formatter_class=fmt,
                       epilog="examples:\n  rtmbs run double-pendulum --t-end 2 --h 1e-3 --solver li-euler --out out/dp\n"
                       "  rtmbs run truck-dae --solver li-euler --stabilize ggl --t-end 5 --out out/truck --json\n"
                       "  rtmbs run slider-crank --solver li-euler-indep --B qr --option rebase_tol=0.05\n"
                       "  rtmbs run multilink-ideal --t-end 1.5 --output-rate 100 --out out/ml   # results at 100 Hz\n"
                       "  rtmbs run my_car/ --t-end 3 --input handwheel_angle=0.05 --input drive_torque=throttle.csv"
                       "   # a vehicle folder (docs/tutorial-car.md); inputs: a number or a CSV of t and the channel\n"
                       "  rtmbs run sedan --t-end 10 --format h5,csv,mdf --out out/sedan\n"
                       "Results are written while the run goes, by default result.h5 at min(1/h, 1 kHz); "
                       "Ctrl-C or SIGTERM stops the run at once, keeps the results up to there and exits 130.\n"
                       "The solvers li-euler, li-euler-indep and explicit-euler project onto the constraints "
                       "by default (--stabilize projection); a run with --stabilize none warns when ‖Φ‖ "
                       f"exceeds {DRIFT_WARNING:g}.")
    _run_args(p)
    p.add_argument("--t-end", type=positive_float, default=1.0, help="end time [s]")
    p.add_argument("--out", default=None, help="directory for the results (--format) and "
                   "summary.json, written while the run goes")
    rate = p.add_mutually_exclusive_group()
    rate.add_argument("--save-every", type=positive_int, default=None, help="keep every k-th step "
                      "(default: as --output-rate's default)")
    rate.add_argument("--output-rate", type=positive_float, default=None, metavar="HZ",
                      help="keep the results at HZ samples per second (1/(k·h) for an integer k; "
                      f"default: the highest such rate up to min(1/h, {DEFAULT_RATE_HZ:g} Hz))")
    p.add_argument("--format", default="h5", metavar="LIST",
                   help="result files: h5 (result.h5), csv (result.csv), mdf (result.mf4, ASAM "
                   "MDF4), or a list such as h5,csv,mdf")
    p.add_argument("--mdf", action="store_true", help="also write result.mf4 (as --format ...,mdf)")
    p.add_argument("--json", action="store_true", help="print a one-line JSON summary")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--input", action="append", default=[], metavar="NAME=VALUE|FILE.csv",
                   help="drive an input channel: a number held, or a CSV of t and NAME "
                   "(a vehicle's handwheel_angle rad, drive_torque N m per half shaft, "
                   "brake_torque_front/_rear N m per wheel); repeatable")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("bench", help="time the steps of a solver on a model", formatter_class=fmt,
                       description="Time STEPS steps of a solver after a warm-up: wall µs per step "
                       "(median, p99, p99.9, max), process CPU µs per step, and the re-analyses "
                       "(nanalyse), fallbacks (nfallback) and re-choices of B (nrebase) of the "
                       "factorisations during the timed steps.",
                       epilog="examples:\n  rtmbs bench slider-crank --solver li-euler --steps 2000 --json\n"
                       "  rtmbs bench multilink-ideal --solver li-euler-indep --B qr --stabilize none --steps 100000")
    _run_args(p)
    p.add_argument("--steps", type=positive_int, default=2000, help="timed steps (after a warm-up)")
    p.add_argument("--warmup", type=nonnegative_int, default=200,
                   help="untimed steps before the timed ones")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("plot", help="plot signals of a result to PNG", formatter_class=fmt,
                       epilog="example:\n  rtmbs plot out/dp link2.z link2.vz --out out/dp/link2.png")
    p.add_argument("result", help="result directory or .h5 file written by 'rtmbs run'")
    p.add_argument("signals", nargs="+", help="output or coordinate names (see result.csv header)")
    p.add_argument("--out", default=None, help="PNG file (default: RESULT/plot.png)")
    p.set_defaults(func=cmd_plot)


def _run_args(p):
    p.add_argument("model", help="built-in name (rtmbs models), YAML model file, or a vehicle "
                   "file or the folder holding its vehicle.yaml (docs/vehicle.md)")
    p.add_argument("--solver", default="li-euler", help="solver name (li-euler, li-euler-indep, "
                   "explicit-euler, rosenbrock-grk4t, ab3, reference, ...)")
    p.add_argument("--h", type=positive_float, default=1e-3, help="step size [s]")
    add_solver_arguments(p)


def cmd_models(args) -> int:
    from ..models import BUILTIN

    w = max(len(k) for k in BUILTIN)
    for name, (_, desc) in BUILTIN.items():
        print(f"{name:<{w}}  {desc}")
    return 0


def cmd_schema(args) -> int:
    from ..io.files import writable_file
    from ..model.schema import schema_text

    out = writable_file(args.out)
    out.write_text(schema_text())
    print(f"wrote {out}")
    return 0


def model_table(system) -> dict:
    """Bodies, joints and forces of a compiled body model, and its sizes."""
    from ..analysis.sizes import sizes

    info = {"name": system.name, **sizes(system)}
    if hasattr(system, "model"):
        mdl = system.model
        info["bodies"] = [{"name": b.name, "mass": b.mass,
                           "coordinates": "euler-parameters" if system.body_rtype[i] == 0 else "euler-angles-zxz"}
                          for i, b in enumerate(mdl.bodies)]
        info["joints"] = [{"name": j.name, "type": j.type, "equations": system.joint_rows[j.name][1],
                           "marker_i": j.marker_i, "marker_j": j.marker_j} for j in mdl.joints]
        nep = sum(1 for k in system.joint_rows if k.endswith(".euler-parameters"))
        info["euler_parameter_equations"] = nep
        info["forces"] = [{"name": f.name, "type": f.type, "stiff": bool(f.stiff)} for f in mdl.forces]
    return info


def cmd_info(args) -> int:
    from ..models import load_model

    system = load_model(args.model)
    info = model_table(system)
    car = vehicle_section(system)
    if car:
        info["vehicle"] = car
    if args.json:
        print(json_line(info))
        return 0
    print(f"model {info['name']}")
    for key in ("bodies", "joints", "forces"):
        if key in info:
            print(f"\n{key} ({len(info[key])}):")
            for it in info[key]:
                extra = ", ".join(f"{k}={v}" for k, v in it.items() if k != "name")
                print(f"  {it['name']:<24} {extra}")
    if "euler_parameter_equations" in info:
        print(f"\nEuler-parameter normalisation equations: {info['euler_parameter_equations']}")
    print("\n| coordinates n | constraints m | rank Φq | degrees of freedom f |")
    print("|---|---|---|---|")
    print(f"| {info['n']} | {info['m']} | {info['rank']} | {info['f']} |")
    if car:
        print("\n" + vehicle_markdown(car), end="")
    return 0


def vehicle_section(system) -> dict | None:
    """The vehicle data of a car (a model with a chassis and wheels with tyres:
    rtmbs.analysis.statics.vehicle_info), None for any other model."""
    from ..analysis.statics import vehicle_info

    model = getattr(system, "model", None)
    names = {b.name for b in getattr(model, "bodies", ())}
    if model is None or "chassis" not in names or "fl_wheel" not in names:
        return None
    return vehicle_info(model)


def vehicle_markdown(v: dict) -> str:
    """The vehicle section of ``rtmbs info`` as Markdown with units."""
    cm = v["centre_of_mass_m"]
    lines = ["vehicle:", "", "| quantity | value |", "|---|---|",
             f"| mass | {v['mass_kg']:.1f} kg |",
             f"| centre of mass (x, y, z) | {cm[0]:.3f}, {cm[1]:.3f}, {cm[2]:.3f} m |"]
    if "wheelbase_m" in v:
        lines.append(f"| wheelbase | {v['wheelbase_m']:.3f} m |")
    if "steering_ratio" in v:
        lines.append(f"| steering ratio on centre | {v['steering_ratio']:.2f} |")
    lines.append("| unsprung mass per corner | " + ", ".join(
        f"{c} {m:.1f}" for c, m in v["unsprung_mass_kg"].items()) + " kg |")
    lines += ["", "| axle | track [m] | load [N] | share [%] | wheel rate [N/m] | "
              "corner sprung mass [kg] | ride frequency [Hz] | roll centre [mm] |",
              "|---|---|---|---|---|---|---|---|"]
    for a, r in v["axles"].items():
        lines.append(f"| {a} | {r['track_m']:.3f} | {r['load_N']:.0f} | {100 * r['load_share']:.1f} | "
                     f"{r['wheel_rate_N_per_m']:.0f} | {r['corner_sprung_mass_kg']:.1f} | "
                     f"{r['ride_frequency_Hz']:.2f} | {1e3 * r['roll_centre_height_m']:.0f} |")
    return "\n".join(lines) + "\n"


def check_steps(t_end: float, h: float, what: str = "--t-end") -> int:
    """The number of steps of a run of ``t_end`` at ``h``; a run shorter than one step is refused
    naming the options (before the model is even loaded)."""
    from ..errors import SolverError

    nsteps = round(t_end / h)
    if nsteps < 1:
        raise SolverError(f"{what} {t_end:g} s is shorter than one step (--h {h:g} s): "
                          "nothing to run")
    return nsteps


#: ``rtmbs run`` keeps its results at most this often by default [Hz].
DEFAULT_RATE_HZ = 1000.0
#: A run whose result files would be larger than this says so before it starts [bytes].
LARGE_RESULT_BYTES = 1e9


def default_every(h: float) -> int:
    """Steps between saved samples by default: the smallest k with 1/(k·h) ≤ ``DEFAULT_RATE_HZ``
    (every step for h ≥ 1 ms; every 10th at h = 0.1 ms)."""
    import math

    return max(1, math.ceil(1.0 / (DEFAULT_RATE_HZ * h) - 1e-9))


def save_every(args) -> int:
    """Steps between saved samples from ``--save-every`` or ``--output-rate`` (which must be
    1/(k·h) for an integer k ≥ 1), else :func:`default_every`."""
    from ..errors import SolverError

    if getattr(args, "output_rate", None) is None:
        return args.save_every or default_every(args.h)
    k = 1.0 / (args.output_rate * args.h)
    if round(k) < 1 or abs(k - round(k)) > 1e-9 * k:
        raise SolverError(f"--output-rate {args.output_rate:g} Hz is not 1/(k·h) for an integer "
                          f"k ≥ 1 with --h {args.h:g} s (e.g. {1.0 / args.h:g}, "
                          f"{1.0 / (10 * args.h):g} Hz)")
    return int(round(k))


def run_formats(args) -> list[str]:
    """The result formats of ``rtmbs run`` (``--format``, plus mdf with ``--mdf``)."""
    from ..io.stream import parse_formats

    formats = parse_formats(args.format)
    if args.mdf and "mdf" not in formats:
        formats.append("mdf")
    return formats


def announce_size(system, nsteps: int, every: int, formats, out) -> None:
    """Warn before a run whose result files would pass ``LARGE_RESULT_BYTES`` (and when they
    would not fit in the free space of ``out``), with the option that makes them smaller."""
    import shutil
    import warnings

    from ..io.stream import expected_bytes, human

    rows = nsteps // every + 1
    width = (2 * system.n + system.m + system.nx + len(system.output_names)
             + len(getattr(system, "acceleration_names", ())) + 3)
    sizes = expected_bytes(rows, width, formats)
    total = sum(sizes.values())
    listing = ", ".join(f"{k} {human(v)}" for k, v in sizes.items())
    if total > LARGE_RESULT_BYTES:
        warnings.warn(f"the results will take about {human(total)} ({rows} samples of {width} "
                      f"signals: {listing}); --output-rate sets how many samples are kept")
    try:
        free = shutil.disk_usage(out).free
    except OSError:
        return
    if total > free:
        warnings.warn(f"the results will take about {human(total)} but '{out}' has "
                      f"{human(free)} free: the files will be incomplete")


def cmd_run(args) -> int:
    import sys
    import warnings

    from ..errors import ConstraintDriftWarning, SimulationDiverged, SimulationInterrupted
    from ..io import interrupts
    from ..models import load_model
    from ..solvers.base import get_solver
    from ..solvers.simulate import simulate

    nsteps = check_steps(args.t_end, args.h)
    every = save_every(args)
    formats = run_formats(args)
    if args.out:
        writable_dir(args.out)  # before the run, not after it
    system = load_model(args.model)
    from ..runs.input_files import input_functions

    inputs = input_functions(args.input, system)
    slv = get_solver(args.solver)(system, **solver_options(args))  # its own option errors
    stream = None
    if args.out:
        from ..io.stream import ResultStream

        announce_size(system, nsteps, every, formats, args.out)
        stream = ResultStream(args.out, formats, system, rows=nsteps // every + 1,
                              meta=dict(model=system.name, solver=slv.name, h=args.h))
    t0 = time.perf_counter()
    code, failure = 0, None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConstraintDriftWarning)
        try:
            res = simulate(system, slv, t_end=args.t_end, h=args.h, save_every=every,
                           progress=not args.no_progress and not args.json, inputs=inputs,
                           on_rows=stream)
        except SimulationDiverged as exc:
            res, code, failure = exc.result, 3, f"rtmbs: error: {exc}"
        except SimulationInterrupted as exc:
            res, code, failure = exc.result, 130, f"rtmbs: {exc}"
        except BaseException:  # Ctrl-C before the first step, a refusal, an error
            if stream is not None:
                stream.stop()
            raise
    with interrupts.writing("results"):  # Ctrl-C from here on: the files are finished first
        for w in caught:
            if issubclass(w.category, ConstraintDriftWarning):
                print(f"rtmbs: warning: {w.message}", file=sys.stderr)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        wall = time.perf_counter() - t0
        s = res.summary(wall)
        from .user_warnings import warnings_shown

        s["warnings"] = list(dict.fromkeys(warnings_shown() + s["warnings"]))  # e.g. redundant joints
        if stream is not None:
            files = stream.finish(res) + [Path(args.out) / "summary.json"]
            s["files"] = [str(f) for f in files]
            write_summary(Path(args.out) / "summary.json", s)
    if failure:  # the results are kept: say where
        where = ("written to " + ", ".join(s["files"])) if args.out else "not written (no --out)"
        print(f"{failure}; {where}", file=sys.stderr)
    if args.json:
        print(json_line(s))
    elif not failure:
        print(f"{s['model']}: {s['steps']} steps of {s['solver']} (h = {s['h']:g} s) to t = {s['t_end']:g} s "
              f"in {s['wall_s']:.2f} s; max ‖Φ‖ = {s['max_constraint_norm']:.3g}")
        if args.out:
            print(f"results written to {args.out}/ ({', '.join(Path(f).name for f in s['files'])})")
    return code


def write_summary(path: Path, s: dict) -> None:
    """``summary.json`` (a full disk: the named error of the result files)."""
    from ..errors import OutputError
    from ..io.stream import cause_of

    try:
        path.write_text(json.dumps(json_safe(s), indent=1, allow_nan=False))
    except OSError as exc:
        raise OutputError(f"result file '{path}': {cause_of(exc)}; the file is incomplete "
                          "(the results before it are complete)") from None


def cmd_bench(args) -> int:
    from ..models import load_model

    system = load_model(args.model)
    r = bench_steps(system, args.solver, args.h, args.steps, warmup=args.warmup,
                    options=solver_options(args))
    if args.json:
        print(json_line(r))
    else:
        print(f"{r['model']} (n={r['n']}, m={r['m']}, f={r['f']}), {r['solver']}, h = {r['h']:g} s, "
              f"{r['steps']} steps after {r['warmup']}:\n"
              f"  wall µs/step: median {r['us_per_step_median']:.1f}, p99 {r['us_per_step_p99']:.1f}, "
              f"p99.9 {r['us_per_step_p999']:.1f}, max {r['us_per_step_max']:.1f}, "
              f"mean {r['us_per_step_mean']:.1f}\n"
              f"  process CPU µs/step: {r['cpu_us_per_step']:.1f}\n"
              f"  during the timed steps: {r['nanalyse']} re-analyses, {r['nfallback']} fallbacks, "
              f"{r['nrebase']} rebases")
        if r["failed_step"]:
            print(f"  the solver FAILED at step {r['failed_step']} "
                  f"(t = {r['failed_step'] * r['h']:g} s after the start)")
        elif r["status"] != "ok":
            print("  the state DIVERGED (not finite at the end)")
    return 0 if r["status"] == "ok" else 1


def load_result(path):
    """The :class:`~rtmbs.result.Result` in ``path`` (a folder written by ``rtmbs run`` or its
    ``.h5`` file; a folder with only a ``result.csv``, as ``rtmbs export-c``'s program writes), or an :class:`~rtmbs.errors.OutputError` naming the file and the cause."""
    from ..errors import OutputError
    from ..result import Result

    src = Path(path)
    if not src.exists():
        raise OutputError(f"result '{src}': not found (expected a folder written by 'rtmbs run' "
                          "or its result.h5)")
    h5 = src / "result.h5" if src.is_dir() else src
    if src.is_dir() and not h5.is_file() and (src / "result.csv").is_file():
        h5 = src / "result.csv"  # (rtmbs export-c's program writes the CSV only)
    if not h5.is_file():
        raise OutputError(f"result '{src}': no result.h5 in that folder (written by 'rtmbs run "
                          "--out')")
    try:
        res = Result.load(h5)
    except (OSError, KeyError, ValueError) as exc:
        raise OutputError(f"result '{h5}': not a readable result file "
                          f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})") from None
    if len(res.t) == 0:
        raise OutputError(f"result '{h5}': holds no time steps, nothing to plot")
    return res


def cmd_plot(args) -> int:
    from ..io.plot import plot_signals

    src = Path(args.result)
    res = load_result(src)
    out = writable_file(args.out if args.out else (src if src.is_dir() else src.parent) / "plot.png")
    plot_signals(res, args.signals, out)
    print(f"wrote {out}")
    return 0


def cmd_demo(args) -> int:
    from .demo import run_demo

    return run_demo(Path(args.out), t_end=args.t_end)
