"""µs per step of the fixed-step solvers on the planar truck (seed 001 Table 2 analogue).

Usage:  OPENBLAS_NUM_THREADS=1 python benchmarks/bench_truck.py [--steps 5000] [--repeats 7]

Each configuration: warm-up, then ``repeats`` runs of ``steps`` steps of a plain
Python loop over ``solver.step``; prints the median (and the best) µs per step, and the cost of
one ``evaluate`` call. Not a test: numbers go to docs/benchmarks/truck.md.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.models.truck import truck  # noqa: E402
from rtmbs.protocol import EVAL_JAC, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q  # noqa: E402
from rtmbs.solvers.base import SolverError, get_solver  # noqa: E402

CONFIGS = [
    # (model, solver, h, options)
    ("ode", "li-euler", 1e-3, {}),
    ("ode", "li-euler", 1e-3, {"jacobian": "all"}),
    ("ode", "rosenbrock-grk4t", 1e-3, {}),
    ("ode", "rosenbrock-grk4t", 1e-3, {"jacobian": "stiff"}),
    ("ode", "ab3", 2.5e-4, {}),            # explicit: unstable at 1 ms on this model
    ("linear", "li-euler", 1e-3, {}),
    ("linear", "rosenbrock-grk4t", 1e-3, {}),
    ("dae", "li-euler", 1e-3, {"stabilize": "none"}),
    ("dae", "li-euler", 1e-3, {"stabilize": "baumgarte"}),
    ("dae", "li-euler", 1e-3, {"stabilize": "ggl"}),
    ("dae", "li-euler", 1e-3, {"stabilize": "projection"}),
]


def _time_steps(sys, solver, h, steps, opts):
    slv = get_solver(solver)(sys, **opts)
    st = sys.initial_state()
    st.t = 9.8                       # the front wheel is about to meet the first bump
    slv.reset(st)
    t0 = time.perf_counter()
    for _ in range(steps):
        slv.step(st, h)
    dt = time.perf_counter() - t0
    if not np.all(np.isfinite(st.q)):
        raise RuntimeError(f"{solver} {opts} diverged on {sys.name}")
    return 1e6 * dt / steps


def _time_eval(sys, what, calls=20000):
    ws = sys.workspace()
    st = sys.initial_state()
    sys.evaluate(0.0, st.q, st.qd, ws, what)
    t0 = time.perf_counter()
    for _ in range(calls):
        sys.evaluate(0.0, st.q, st.qd, ws, what)
    return 1e6 * (time.perf_counter() - t0) / calls


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=5000)
    ap.add_argument("--repeats", type=int, default=7)
    a = ap.parse_args(argv)
    models = {v: truck(v) for v in ("ode", "dae", "linear")}
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, steps={a.steps}, repeats={a.repeats}")
    print("\n| model | evaluate(Q) µs | evaluate(M, Q, Jacobians[, G]) µs |\n| --- | --- | --- |")
    for v, sys in models.items():
        full = EVAL_M | EVAL_Q | EVAL_JAC | ((EVAL_PHI | EVAL_PHIQ) if sys.m else 0)
        print(f"| truck-{v} | {_time_eval(sys, EVAL_Q):.2f} | {_time_eval(sys, full):.2f} |")
    print("\n| model | solver | options | h [ms] | µs/step median | best |\n"
          "| --- | --- | --- | --- | --- | --- |")
    for v, solver, h, opts in CONFIGS:
        sys = models[v]
        try:
            _time_steps(sys, solver, h, 50, opts)          # compile / warm up
        except SolverError as exc:
            print(f"| truck-{v} | {solver} | {opts} | {h * 1e3:g} | not available: {exc} | |")
            continue
        ts = [_time_steps(sys, solver, h, a.steps, opts) for _ in range(a.repeats)]
        o = ", ".join(f"{k}={w}" for k, w in opts.items()) or "defaults"
        print(f"| truck-{v} | {solver} | {o} | {h * 1e3:g} | {np.median(ts):.1f} | "
              f"{min(ts):.1f} |")


if __name__ == "__main__":
    main()
