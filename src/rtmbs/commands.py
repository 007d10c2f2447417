"""The core subcommands: demo, models, info, run, bench, plot."""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np


def register(sub, fmt):
    p = sub.add_parser("demo", help="simulate the demo model and report speed and results",
                       formatter_class=fmt,
                       description="Run the demo: a short simulation of the built-in demo model with a "
                       "real-time solver, compared with the offline reference solution.",
                       epilog="example:\n  rtmbs demo --out rtmbs-demo")
    p.add_argument("--out", default="rtmbs-demo", help="directory for results and plots")
    p.add_argument("--t-end", type=float, default=None, help="simulated time [s] (default: the demo's)")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("models", help="list the built-in models", formatter_class=fmt,
                       epilog="example:\n  rtmbs models")
    p.set_defaults(func=cmd_models)

    p = sub.add_parser("info", help="bodies, joints, forces and n, m, rank, f of a model",
                       formatter_class=fmt,
                       epilog="examples:\n  rtmbs info slider-crank\n  rtmbs info my_model.yaml --json")
    p.add_argument("model", help="built-in name (rtmbs models) or YAML file")
    p.add_argument("--json", action="store_true", help="print one JSON object with n, m, rank, f")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("run", help="simulate a model and write results", formatter_class=fmt,
                       epilog="examples:\n  rtmbs run double-pendulum --t-end 2 --h 1e-3 --solver li-euler --out out/dp\n"
                       "  rtmbs run truck-dae --solver li-euler --stabilize ggl --t-end 5 --out out/truck --json")
    _run_args(p)
    p.add_argument("--t-end", type=float, default=1.0, help="end time [s]")
    p.add_argument("--out", default=None, help="directory for result.h5, result.csv, summary.json")
    p.add_argument("--save-every", type=int, default=1, help="keep every k-th step")
    p.add_argument("--mdf", action="store_true", help="also write result.mf4 (ASAM MDF4)")
    p.add_argument("--json", action="store_true", help="print a one-line JSON summary")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("bench", help="time the steps of a solver on a model", formatter_class=fmt,
                       epilog="example:\n  rtmbs bench slider-crank --solver li-euler --steps 2000 --json")
    _run_args(p)
    p.add_argument("--steps", type=int, default=2000, help="timed steps (after a warm-up)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("plot", help="plot signals of a result to PNG", formatter_class=fmt,
                       epilog="example:\n  rtmbs plot out/dp link2.z link2.vz --out out/dp/link2.png")
    p.add_argument("result", help="result directory or .h5 file written by 'rtmbs run'")
    p.add_argument("signals", nargs="+", help="output or coordinate names (see result.csv header)")
    p.add_argument("--out", default=None, help="PNG file (default: RESULT/plot.png)")
    p.set_defaults(func=cmd_plot)


def _run_args(p):
    p.add_argument("model", help="built-in name (rtmbs models) or YAML file")
    p.add_argument("--solver", default="li-euler", help="solver name (li-euler, li-euler-indep, "
                   "explicit-euler, rosenbrock-grk4t, ab3, reference, ...)")
    p.add_argument("--h", type=float, default=1e-3, help="step size [s]")
    p.add_argument("--stabilize", default=None, help="none|projection|baumgarte|ggl (solver-dependent)")
    p.add_argument("--jacobian", default=None, help="stiff|all: force Jacobians of the stiff terms or of all")


def _solver_options(args) -> dict:
    opts = {}
    if args.stabilize:
        opts["stabilize"] = args.stabilize
    if args.jacobian:
        opts["jacobian"] = args.jacobian
    return opts


def cmd_models(args) -> int:
    from .models import BUILTIN

    w = max(len(k) for k in BUILTIN)
    for name, (_, desc) in BUILTIN.items():
        print(f"{name:<{w}}  {desc}")
    return 0


def model_table(system) -> dict:
    """Bodies, joints and forces of a compiled body model, and its sizes."""
    from .analysis import sizes

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
    from .models import load_model

    system = load_model(args.model)
    info = model_table(system)
    if args.json:
        print(json.dumps(info))
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
    return 0


def _save(result, out: Path, mdf: bool = False) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = [result.save_hdf5(out / "result.h5"), result.save_csv(out / "result.csv")]
    if mdf:
        from .io.mdf import save_mdf

        files.append(save_mdf(result, out / "result.mf4"))
    return files


def summary(result, wall_s: float) -> dict:
    return {
        "model": result.meta.get("model"), "solver": result.meta.get("solver"),
        "h": result.meta.get("h"), "steps": int(result.meta.get("steps", len(result.t) - 1)),
        "t_end": float(result.t[-1]),
        "max_constraint_norm": float(np.max(result.phi_norm)) if len(result.phi_norm) else 0.0,
        "final_constraint_norm": float(result.phi_norm[-1]) if len(result.phi_norm) else 0.0,
        "wall_s": wall_s, "status": result.meta.get("status"), "message": result.meta.get("message"),
    }


def cmd_run(args) -> int:
    from .errors import SimulationDiverged
    from .models import load_model
    from .solvers.simulate import simulate

    system = load_model(args.model)
    t0 = time.perf_counter()
    code = 0
    try:
        res = simulate(system, args.solver, t_end=args.t_end, h=args.h, save_every=args.save_every,
                       progress=not args.no_progress and not args.json, **_solver_options(args))
    except SimulationDiverged as exc:
        res = exc.result
        code = 3
        import sys

        print(f"rtmbs: error: {exc}", file=sys.stderr)
    wall = time.perf_counter() - t0
    s = summary(res, wall)
    if args.out:
        out = Path(args.out)
        files = _save(res, out, args.mdf)
        (out / "summary.json").write_text(json.dumps(s, indent=1))
        s["files"] = [str(f) for f in files]
    if args.json:
        print(json.dumps(s))
    else:
        print(f"{s['model']}: {s['steps']} steps of {s['solver']} (h = {s['h']:g} s) to t = {s['t_end']:g} s "
              f"in {wall:.2f} s; max ‖Φ‖ = {s['max_constraint_norm']:.3g}")
        if args.out:
            print(f"results written to {args.out}/ (result.h5, result.csv, summary.json)")
    return code


def bench_steps(system, solver_name: str, h: float, steps: int, warmup: int = 200, **options) -> dict:
    """Time ``steps`` steps of a solver after ``warmup`` steps: µs per step, median and max."""
    from .solvers.base import get_solver

    slv = get_solver(solver_name)(system, **options)
    state = system.initial_state()
    slv.reset(state)
    for _ in range(warmup):
        slv.step(state, h)
        state.t += h
    dt = np.empty(steps)
    clock = time.perf_counter_ns
    for i in range(steps):
        a = clock()
        slv.step(state, h)
        dt[i] = clock() - a
        state.t += h
    from .analysis import sizes

    sz = sizes(system)
    return {**sz, "model": system.name, "solver": solver_name, "h": h, "steps": steps,
            "us_per_step_median": float(np.median(dt) / 1e3), "us_per_step_p99": float(np.percentile(dt, 99) / 1e3),
            "us_per_step_max": float(dt.max() / 1e3), "options": options}


def cmd_bench(args) -> int:
    from .models import load_model

    system = load_model(args.model)
    r = bench_steps(system, args.solver, args.h, args.steps, **_solver_options(args))
    if args.json:
        print(json.dumps(r))
    else:
        print(f"{r['model']} (n={r['n']}, m={r['m']}, f={r['f']}), {r['solver']}, h = {r['h']:g} s: "
              f"median {r['us_per_step_median']:.1f} µs/step, p99 {r['us_per_step_p99']:.1f}, "
              f"max {r['us_per_step_max']:.1f} ({r['steps']} steps)")
    return 0


def cmd_plot(args) -> int:
    from .io.plot import plot_signals
    from .io.result import Result

    res = Result.load(args.result)
    out = Path(args.out) if args.out else (Path(args.result) if Path(args.result).is_dir()
                                           else Path(args.result).parent) / "plot.png"
    plot_signals(res, args.signals, out)
    print(f"wrote {out}")
    return 0


def cmd_demo(args) -> int:
    from .demo import run_demo

    return run_demo(Path(args.out), t_end=args.t_end)
