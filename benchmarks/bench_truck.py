"""µs per step of the fixed-step solvers on the planar truck (the Truck benchmark's Table 2, on this machine).

Usage:  OPENBLAS_NUM_THREADS=1 python benchmarks/bench_truck.py [--steps 20000] [--rounds 5]
        [--repeats 7] [--block 5000] [--methods li-euler generalized-alpha] [--compare-only]

First, each of ``methods`` (defaults) on truck-ode and truck-dae three ways, interleaved round
by round: the engine's dense step (src/rtmbs/engine/li_euler_dense.c, alpha_dense.c) called from
Python (``solver.step``), the same step in the engine's rollout
(``rtmbs.solvers.rollout.rollout``), and the numpy dense path (``dense_in_engine = False``). Per
path and round: the process CPU time of ``steps`` steps (µs per step), and for the two
``solver.step`` paths each step's thread CPU time (``time.thread_time_ns``, garbage collector
off), whose median, p99.9 and max are printed (they include the clock's own cost, printed too).
Then every solver on the three variants: ``repeats`` blocks of ``block`` steps, median and best
process CPU µs per step (skipped with ``--compare-only``). Not a test: numbers go to
docs/benchmarks/truck.md.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import gc  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.models.truck import truck  # noqa: E402
from rtmbs.protocol import EVAL_JAC, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q  # noqa: E402
from rtmbs.solvers.base import SolverError, get_solver  # noqa: E402
from rtmbs.solvers.rollout import rollout  # noqa: E402

H = 1e-3
T_START = 9.8  # the front wheel is about to meet the first bump

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
    ("ode", "generalized-alpha", 1e-3, {}),
    ("linear", "generalized-alpha", 1e-3, {}),
    ("dae", "generalized-alpha", 1e-3, {}),
    ("dae", "generalized-alpha", 1e-3, {"stabilize": "projection"}),
]


def _time_steps(sys, solver, h, steps, opts):
    slv = get_solver(solver)(sys, **opts)
    st = sys.initial_state()
    st.t = T_START
    slv.reset(st)
    t0 = time.process_time()
    for _ in range(steps):
        slv.step(st, h)
    dt = time.process_time() - t0
    if not np.all(np.isfinite(st.q)):
        raise RuntimeError(f"{solver} {opts} diverged on {sys.name}")
    return 1e6 * dt / steps


def _solver(sys, method, in_engine):
    slv = get_solver(method)(sys)
    slv.dense_in_engine = in_engine
    st = sys.initial_state()
    st.t = T_START
    slv.reset(st)
    assert slv.dense_c is in_engine
    return slv, st


def _block(sys, method, path, steps):
    """µs per step (process CPU) of ``steps`` steps of ``method`` on ``path``, and each step's
    thread CPU µs (None for the rollout: one call)."""
    slv, st = _solver(sys, method, path != "numpy step")
    if path == "C rollout":
        t0 = time.process_time()
        r = rollout(slv, st, steps, H, outputs=False, every=steps)
        dt = time.process_time() - t0
        assert r.nsteps == steps
        return 1e6 * dt / steps, None
    step = slv.step
    gc.collect()
    gc.disable()
    t0 = time.process_time()
    for _ in range(steps):
        step(st, H)
    dt = time.process_time() - t0
    per = np.empty(steps, np.int64)
    clock = time.thread_time_ns
    for i in range(steps):
        c0 = clock()
        step(st, H)
        per[i] = clock() - c0
    gc.enable()
    assert np.isfinite(st.q).all() and slv.status == 0
    return 1e6 * dt / steps, per / 1e3


def _clock_cost(n=20000):
    clock = time.thread_time_ns
    per = np.empty(n, np.int64)
    for i in range(n):
        c0 = clock()
        per[i] = clock() - c0
    return float(np.median(per)) / 1e3


def _machine() -> str:
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        model = next(ln.split(":", 1)[1].strip() for ln in lscpu.splitlines()
                     if ln.startswith("Model name"))
    except (OSError, StopIteration):
        model = platform.processor() or platform.machine()
    return f"{model}, {os.cpu_count()} vCPU"


def compare(methods, steps: int, rounds: int) -> None:
    """The comparison of the module docstring, as Markdown."""
    paths = ("C step", "C rollout", "numpy step")
    models = {v: truck(v) for v in ("ode", "dae")}
    keys = [(mt, v) for mt in methods for v in models]
    print(f"machine: {_machine()}, Python {platform.python_version()}, numpy {np.__version__}; "
          f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    means = {(k, p): [] for k in keys for p in paths}
    tails = {(k, p): [] for k in keys for p in paths}
    for mt, v in keys:  # warm-up
        for p in paths:
            _block(models[v], mt, p, 500)
    for _ in range(rounds):
        for k in keys:
            for p in paths:
                mean, per = _block(models[k[1]], k[0], p, steps)
                means[k, p].append(mean)
                if per is not None:
                    tails[k, p].append(per)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; thread_time_ns "
          f"costs {_clock_cost():.2f} µs a call (inside the per-step times)")
    print(f"\n{rounds} rounds of {steps} steps from t = {T_START} s, h = 1 ms\n")
    print("| solver | model | path | µs/step (process CPU, median of rounds) | rounds min-max | "
          "per step: median | p99.9 | max |\n| --- | --- | --- | --- | --- | --- | --- | --- |")
    for k in keys:
        for p in paths:
            m = means[k, p]
            if tails[k, p]:
                x = np.concatenate(tails[k, p])
                tail = (f"{np.median(x):.2f} | {np.percentile(x, 99.9):.2f} | {x.max():.1f}")
            else:
                tail = "(one call) | | "
            print(f"| {k[0]} | truck-{k[1]} | {p} | {np.median(m):.2f} | "
                  f"{min(m):.2f}-{max(m):.2f} | {tail} |")
    for k in keys:
        c = np.median(means[k, "C step"])
        r = np.median(means[k, "numpy step"]) / c
        ro = c / np.median(means[k, "C rollout"])
        print(f"{k[0]}, truck-{k[1]}: the numpy path costs {r:.1f}x the C step from Python, "
              f"which costs {ro:.2f}x the rollout's")


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
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--block", type=int, default=5000)
    ap.add_argument("--methods", nargs="+", default=["li-euler", "generalized-alpha"])
    ap.add_argument("--compare-only", action="store_true")
    a = ap.parse_args(argv)
    compare(a.methods, a.steps, a.rounds)
    if a.compare_only:
        return
    models = {v: truck(v) for v in ("ode", "dae", "linear")}
    print(f"\nevery solver: {a.repeats} blocks of {a.block} steps")
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
        ts = [_time_steps(sys, solver, h, a.block, opts) for _ in range(a.repeats)]
        o = ", ".join(f"{k}={w}" for k, w in opts.items()) or "defaults"
        print(f"| truck-{v} | {solver} | {o} | {h * 1e3:g} | {np.median(ts):.1f} | "
              f"{min(ts):.1f} |")


if __name__ == "__main__":
    main()
