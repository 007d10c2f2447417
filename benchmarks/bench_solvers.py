"""µs per step of the fixed-step solvers and their stabilisations (median of repeats, one thread).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_solvers.py [--repeats 7] [--steps 2000]
        [--out docs/benchmarks/solvers.md]

Models written in Python (the test suite's, tests/_models/linkages.py): the slider-crank (n = 9, m = 8, f = 1), the stiff
two-mass system with a constraint (n = 3, m = 1) and without (n = 2, m = 0), and a chain of 10
pendulum bars (n = 30, m = 20, f = 10) to show how the linear algebra scales. Each run: one
warm-up, then ``repeats`` timed blocks of ``steps`` steps of
``solver.step`` (no recording); the table gives the median and the best block, and the phase
split (Carpinelli 2016 Tables 5-6 layout) from one instrumented block.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import pathlib  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.solvers.base import PHASES, get_solver  # noqa: E402
from rtmbs.solvers.timing import cpu_model  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _models_module():
    """tests/_models/linkages.py: Python systems of the mechanical-system protocol."""
    sys.path.insert(0, str(ROOT / "tests"))
    from _models import linkages

    return linkages


def chain(mod, nbar=10):
    """nbar bars of 0.3 m pinned end to end, hanging from the origin, started bent."""
    L = 0.3
    joints = [(0, -L / 2, -1, (0.0, 0.0))] + [(b - 1, L / 2, b, -L / 2) for b in range(1, nbar)]
    sysm = mod.PlanarLinkage(f"chain-{nbar}", [1.0] * nbar, [L] * nbar, joints)
    tip = np.zeros(2)
    q = []
    for b in range(nbar):
        th = 0.8 + 0.05 * b
        u = np.array([np.sin(th), -np.cos(th)])
        q += [*(tip + L / 2 * u), th]
        tip = tip + L * u
    sysm._q0[:] = q
    return sysm


#: Every option that the paper's numbers depend on is explicit (the defaults are
#: stabilize="projection" and, for li-euler-indep, B="partition").
CONFIGS = [
    ("explicit-euler", {"stabilize": "none"}),
    ("explicit-euler", {"stabilize": "projection"}),
    ("li-euler", {"stabilize": "none"}),
    ("li-euler", {"stabilize": "projection"}),
    ("li-euler", {"stabilize": "baumgarte"}),
    ("li-euler", {"stabilize": "ggl"}),
    ("li-euler-indep", {"B": "qr", "stabilize": "none"}),
    ("li-euler-indep", {"B": "qr", "stabilize": "projection"}),
    ("li-euler-indep", {"B": "qr", "stabilize": "projection", "projection_solve": "T"}),
    ("li-euler-indep", {"B": "partition", "stabilize": "none"}),
    ("li-euler-indep", {"B": "partition", "stabilize": "projection"}),
    ("li-euler-indep", {"B": "partition", "stabilize": "projection", "projection_solve": "T"}),
]


def bench(sysm, solver, opts, h, steps, repeats):
    slv = get_solver(solver)(sysm, **opts)
    st = sysm.initial_state()
    slv.reset(st)
    for _ in range(min(steps, 200)):
        slv.step(st, h)
    times = []
    for _ in range(repeats):
        st = sysm.initial_state()
        slv.reset(st)
        t0 = time.process_time()
        for _ in range(steps):
            slv.step(st, h)
        times.append((time.process_time() - t0) / steps * 1e6)
        if not np.all(np.isfinite(st.q)):
            return None
    inst = get_solver(solver)(sysm, instrument=True, **opts)
    st = sysm.initial_state()
    inst.reset(st)
    for _ in range(steps):
        inst.step(st, h)
    return float(np.median(times)), float(np.min(times)), inst.phase_times_us()


def _label(solver, opts):
    if not opts:
        return solver
    return solver + " " + ", ".join(f"{k}={v}" for k, v in opts.items())


def _machine():
    cpu = cpu_model()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{cpu}, {os.cpu_count()} cores (shared; load average {load:.1f} at the start), "
            f"Python {platform.python_version()}, "
            f"numpy {np.__version__}, OPENBLAS_NUM_THREADS="
            f"{os.environ.get('OPENBLAS_NUM_THREADS')}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--h", type=float, default=1e-3)
    ap.add_argument("--out", default=None, help="write the markdown section here")
    args = ap.parse_args(argv)
    mod = _models_module()
    models = [
        mod.slider_crank(),
        mod.StiffTwoMass(constrained=True),
        mod.StiffTwoMass(),
        chain(mod, 10),
    ]
    lines = [
        "## Fixed-step solvers (benchmarks/bench_solvers.py)",
        "",
        f"Machine: {_machine()}.",
        f"h = {args.h:g} s; µs per step, median of {args.repeats} blocks of {args.steps} steps "
        "(best block in brackets), process CPU time; phases from one instrumented block (the timers add their own "
        "overhead, about 0.1-0.3 µs per phase). "
        "Models written in Python (tests/_models/linkages.py): every solver steps them from Python, "
        "on its dense path.",
        "",
    ]
    for sysm in models:
        lines += [f"### {sysm.name} (n = {sysm.n}, m = {sysm.m}, f = {sysm.n - sysm.m})", "",
                  "| solver | µs/step | " + " | ".join(PHASES) + " |",
                  "| --- | --- | " + " | ".join("---" for _ in PHASES) + " |"]
        for solver, opts in CONFIGS:
            if sysm.m == 0 and opts.get("stabilize") not in (None, "none"):
                continue
            if sysm.m == 0 and solver == "li-euler-indep" and opts["B"] != "qr":
                continue
            r = bench(sysm, solver, opts, args.h, args.steps, args.repeats)
            if r is None:
                row = f"| {_label(solver, opts)} | diverged | " + " | ".join("" for _ in PHASES) + " |"
            else:
                med, best, ph = r
                row = (f"| {_label(solver, opts)} | {med:.1f} ({best:.1f}) | "
                       + " | ".join(f"{ph[p]:.1f}" for p in PHASES) + " |")
            print(sysm.name, row, flush=True)
            lines.append(row)
        lines.append("")
    text = "\n".join(lines) + "\n"
    if args.out:
        pathlib.Path(args.out).write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
