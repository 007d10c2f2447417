"""``rtmbs realtime`` (paced run with turnaround statistics), ``rtmbs export-fmu`` and
``rtmbs export-c``."""
from __future__ import annotations

import sys

from .numbers import fifo_priority, json_line, nonnegative_float, positive_float, positive_int
from .solver_options import add_solver_arguments, solver_options

#: Keys of the one-line ``--json`` summary, in order.
JSON_KEYS = ("model", "solver", "policy", "h", "steps", "overruns", "step_overruns",
             "os_overruns", "catchup_steps",
             "degraded_steps", "turnaround_us_p50", "turnaround_us_p99", "turnaround_us_p999",
             "turnaround_us_max", "lateness_us_p50", "lateness_us_p999", "lateness_us_max",
             "realtime_factor", "slip_us", "status", "sched", "io")

_MODEL_HELP = ("library model name, YAML model file, FILE.py:FACTORY or module:FACTORY "
               "(a function returning a MechanicalSystem)")


def register(subparsers, formatter_class) -> None:
    p = subparsers.add_parser(
        "realtime", formatter_class=formatter_class,
        help="run a model paced on the wall clock and report turnaround statistics",
        description="Run MODEL in real time: one solver step per tick of h, reading inputs and "
        "publishing outputs each step, and report the turnaround time (median, p99, p99.9, max), "
        "start lateness, deadline overruns and the real-time factor.",
        epilog="examples:\n"
        "  rtmbs realtime truck-dae --solver li-euler --h 1e-3 --duration 10 --out out/rt\n"
        "  rtmbs realtime truck-dae --duration 5 --policy catch-up --json\n"
        "  rtmbs realtime multilink-ideal --duration 60 --priority 50 --busy-wait\n"
        "  rtmbs realtime peer-quarter-car --duration 10 --busy-wait --prewarm\n"
        "  rtmbs realtime sedan --duration 10 --outputs-at start\n"
        "  rtmbs realtime my_model.py:build --udp io.yaml --duration 60\n"
        "  rtmbs realtime multilink-ideal --solver li-euler-indep --B partition --stabilize projection\n"
        "UDP packet layout and configuration: docs/realtime.md",
    )
    p.add_argument("model", metavar="MODEL", help=_MODEL_HELP)
    p.add_argument("--solver", default="li-euler", help="fixed-step solver name")
    p.add_argument("--h", type=positive_float, default=1e-3, help="step size = tick period [s]")
    p.add_argument("--duration", type=nonnegative_float, default=1.0,
                   help="simulated (= wall) time [s]; 0 runs no step (checks the model, solver "
                   "and I/O)")
    p.add_argument("--policy", default="warn", choices=("warn", "catch-up", "degrade", "stop"),
                   help="what to do when a step misses its deadline")
    p.add_argument("--recover-after", type=positive_int, default=50,
                   help="degrade: consecutive steps within budget before leaving degraded mode")
    p.add_argument("--priority", type=fifo_priority, metavar="N",
                   help="run under SCHED_FIFO priority N (1-99; Linux, root or CAP_SYS_NICE)")
    p.add_argument("--busy-wait", action="store_true",
                   help="spin through the whole period instead of sleeping until 200 µs before "
                   "the tick (a HIL loop on an isolated core: the caches stay warm; uses a core "
                   "fully)")
    p.add_argument("--prewarm", action="store_true",
                   help="just before each tick, take one step on a copy of the state in a second "
                   "data object of the model (results thrown away) so that the real step runs "
                   "with warm caches; costs a second step of CPU per period (with --busy-wait)")
    p.add_argument("--outputs-at", choices=("end", "start"), default="end",
                   help="publish the outputs at the end of each step (t + h; default) or at its "
                   "start (t, with the inputs just read: one step older, as MuJoCo's sensordata; "
                   "no extra evaluation on the compiled step)")
    p.add_argument("--udp", metavar="CONFIG", help="UDP I/O configuration file (YAML/JSON)")
    p.add_argument("--out", metavar="DIR", help="write summary.json/.md, turnaround.png, "
                   "timings.npz, result.h5 and result.mf4 there")
    p.add_argument("--json", action="store_true", help="print one line of JSON")
    add_solver_arguments(p)
    p.set_defaults(func=cmd_realtime)

    e = subparsers.add_parser(
        "export-fmu", formatter_class=formatter_class,
        help="export a model + the li-euler step as a native FMI 2.0/3.0 co-simulation FMU",
        description="Build a native co-simulation FMU (FMI 2.0 or 3.0) of MODEL stepped by the "
        "li-euler solver at H: the C engine with the model's data compiled in (no Python, no "
        "file at run time; the binary needs libc and libm only), its sources in sources/ to "
        "rebuild it on a target. Inputs are the model's input channels, outputs its named "
        "outputs with their units. doStep takes communication steps that are multiples of H, "
        "as 'rtmbs run' with the same options. Needs a C compiler (cc) and the FMI headers "
        "(pip install fmpy, or RTMBS_FMI_HEADERS=DIR).",
        epilog="examples:\n"
        "  rtmbs export-fmu sedan -o sedan.fmu\n"
        "  rtmbs export-fmu sedan --fmi 3 --h 5e-4 -o sedan3.fmu\n"
        "  rtmbs export-fmu multilink-ideal --stabilize ggl --ggl-iterations 2 -o multilink.fmu",
    )
    e.add_argument("model", metavar="MODEL", help=_MODEL_HELP)
    e.add_argument("--fmi", type=int, choices=(2, 3), default=2, help="FMI version (default 2)")
    e.add_argument("--solver", default="li-euler", choices=("li-euler",),
                   help="the fixed-step solver (its step is in the C engine)")
    e.add_argument("--h", type=positive_float, default=1e-3, help="solver step [s], fixed in "
                   "the FMU; communication steps must be multiples of it")
    e.add_argument("-o", "--output", required=True, metavar="FILE", help="FMU file to write")
    add_solver_arguments(e)
    e.set_defaults(func=cmd_export_fmu)

    c = subparsers.add_parser(
        "export-c", formatter_class=formatter_class,
        help="export a model + the li-euler step as a standalone real-time C program",
        description="Write DIR with the C engine, the model's data compiled in (model_data.c), "
        "the FMU instance code, a main program and a Makefile: `make` there builds DIR/rtmbs-rt "
        "(C99, libm only; `make CC=aarch64-linux-gnu-gcc` cross-compiles). rtmbs-rt runs the "
        "model paced on CLOCK_MONOTONIC without Python (clock_nanosleep TIMER_ABSTIME, "
        "--priority for SCHED_FIFO, mlockall, --cpu, --policy, --unpaced), prints the summary "
        "of 'rtmbs realtime' and writes out/result.csv (read by 'rtmbs plot out ...'). "
        "Options of a run: DIR/rtmbs-rt --help.",
        epilog="examples:\n"
        "  rtmbs export-c sedan -o rt-sedan && make -C rt-sedan && rt-sedan/rtmbs-rt --duration 60\n"
        "  rtmbs export-c double-pendulum --h 5e-4 -o rt-dp --make\n"
        "  make -C rt-dp CC=aarch64-linux-gnu-gcc",
    )
    c.add_argument("model", metavar="MODEL", help=_MODEL_HELP)
    c.add_argument("--solver", default="li-euler", choices=("li-euler",),
                   help="the fixed-step solver (its step is in the C engine)")
    c.add_argument("--h", type=positive_float, default=1e-3, help="solver step = tick period "
                   "[s], fixed in the program")
    c.add_argument("-o", "--output", required=True, metavar="DIR", help="folder to write")
    c.add_argument("--make", action="store_true", help="run make there afterwards")
    c.add_argument("--udp", metavar="CONFIG", help="UDP I/O configuration (YAML/JSON, as "
                   "'rtmbs realtime --udp'), compiled in; rtmbs-rt --listen/--send-to override "
                   "its addresses")
    add_solver_arguments(c)
    c.set_defaults(func=cmd_export_c)


def cmd_realtime(args) -> int:
    from pathlib import Path

    from ..io.files import writable_dir
    from ..realtime.loop import _make_solver, run_realtime
    from ..realtime.modelspec import resolve_model

    if args.out:
        writable_dir(args.out)  # before the run, not after it
    io = None
    if args.udp:
        from ..realtime.udp import UdpIO

        io = UdpIO(args.udp)  # the configuration is checked before the model is built
    system = resolve_model(args.model)
    # built here so that the options go to the solver alone (not to run_realtime's keywords)
    slv = _make_solver(system, args.solver, solver_options(args))
    from ..io.interrupts import results_follow

    with results_follow():  # Ctrl-C ends the loop, which then writes its report and files
        rep = run_realtime(system, slv, h=args.h, duration=args.duration,
                           policy=args.policy, io=io, record=bool(args.out),
                           recover_after=args.recover_after, priority=args.priority,
                           out=args.out, busy_wait=args.busy_wait, outputs_at=args.outputs_at,
                           prewarm=args.prewarm)
    written = []
    if args.out:
        from ..io.files import signals_held
        from ..io.mdf import save_mdf
        from ..io.meta import attach

        out = Path(args.out)
        attach(rep.result, system)  # units and the geometry `rtmbs view` draws
        with signals_held():  # the files are closed cleanly (Ctrl-C waits for them)
            rep.result.save_hdf5(out / "result.h5")
            save_mdf(rep.result, out / "result.mf4", units=getattr(system, "units", None))
        written = [str(out / f) for f in ("summary.json", "summary.md", "turnaround.png",
                                         "timings.npz", "result.h5", "result.mf4")]
    s = rep.summary()
    if args.json:
        from .user_warnings import warnings_shown

        print(json_line({**{k: s[k] for k in JSON_KEYS}, "warnings": warnings_shown()}))
    else:
        sys.stdout.write(rep.markdown())
        if args.out:
            print(f"\nwritten to {args.out}")
    where = ("written to " + ", ".join(written)) if written else "not written (no --out)"
    if rep.status == 2:  # Ctrl-C / SIGTERM: the steps done are kept
        print(f"rtmbs: {rep.message}; results kept up to there; {where}", file=sys.stderr)
        return 130
    if rep.status == 0:  # finished, but e.g. every input packet was refused
        print(f"rtmbs: warning: {rep.message}", file=sys.stderr)
        return 1
    if rep.status < 0:
        print(f"rtmbs: error: {rep.message}; results kept up to there; {where}", file=sys.stderr)
        return 3
    return 0


def cmd_export_fmu(args) -> int:
    from ..io.files import writable_file
    from ..fmu import export_fmu

    writable_file(args.output)  # before the model is built and the FMU packed
    path = export_fmu(args.model, args.output, fmi=args.fmi, h=args.h, solver=args.solver,
                      solver_options=solver_options(args))
    print(f"wrote {path}")
    return 0


def cmd_export_c(args) -> int:
    import subprocess

    from ..fmu.export_c import export_c
    from ..io.files import writable_dir

    writable_dir(args.output)  # before the model is built
    udp = None
    if args.udp:
        from ..realtime.udp import load_udp_config

        udp = load_udp_config(args.udp)  # (checked before the model is built)
    out = export_c(args.model, args.output, h=args.h, solver=args.solver,
                   solver_options=solver_options(args), udp=udp)
    print(f"wrote {out} (make -C {out} builds {out}/rtmbs-rt)")
    if args.make:
        r = subprocess.run(["make", "-C", str(out)], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"rtmbs: error: make failed:\n{r.stdout}{r.stderr}", file=sys.stderr)
            return 1
        print(f"built {out}/rtmbs-rt")
    return 0
