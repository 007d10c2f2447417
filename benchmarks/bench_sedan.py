"""µs per step of li-euler (h = 1 ms) on the built-in sedan and sedan-bushings, driving straight
at 20 m/s on a flat road with a constant drive torque.

Usage:  python benchmarks/bench_sedan.py [--steps 2000] [--repeats 5]

Each model and linear solver (``auto``: the sparse LU here; ``dense``): warm-up (50 steps), then ``repeats`` runs of ``steps`` steps of a plain
Python loop over ``solver.step`` from the assembled state; prints the median and best µs per step
and the cost of one full ``evaluate``. Not a test: numbers go to docs/models/sedan.md.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.protocol import EVAL_JAC, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402
from rtmbs.system import compile_model  # noqa: E402
from rtmbs.vehicle.build import sedan_model  # noqa: E402


def _system(joints):
    m = sedan_model(joints)
    for b in m.bodies:
        b.velocity = (20.0, 0.0, 0.0)
    for b in m.bodies:
        if b.name.endswith("_wheel"):
            b.angular_velocity = (0.0, 20.0 / b.position[2], 0.0)
    s = compile_model(m)
    s.set_input("drive_torque", 100.0)
    return s


def _steps(system, steps, h=1e-3, **opts):
    slv = get_solver("li-euler")(system, **opts)
    st = system.initial_state()
    slv.reset(st)
    for _ in range(50):
        slv.step(st, h)
    t0 = time.perf_counter()
    for _ in range(steps):
        slv.step(st, h)
    dt = time.perf_counter() - t0
    if not np.all(np.isfinite(st.q)):
        raise RuntimeError(f"li-euler diverged on {system.name}")
    return 1e6 * dt / steps, st


def _eval(system, calls=2000):
    ws, st = system.workspace(), system.initial_state()
    what = EVAL_M | EVAL_Q | EVAL_JAC | EVAL_PHI | EVAL_PHIQ
    system.evaluate(0.0, st.q, st.qd, ws, what)
    t0 = time.perf_counter()
    for _ in range(calls):
        system.evaluate(0.0, st.q, st.qd, ws, what)
    return 1e6 * (time.perf_counter() - t0) / calls


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args(argv)
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, steps={a.steps}, repeats={a.repeats}")
    print("| model | n | m | evaluate (all) µs | linear_solver | li-euler µs/step median | best | "
          "chassis vx after |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for joints in ("ideal", "bushings"):
        s = _system(joints)
        ev = _eval(s)
        for linear in ("auto", "dense"):
            runs = [_steps(s, a.steps, linear_solver=linear) for _ in range(a.repeats)]
            us = sorted(r[0] for r in runs)
            st = runs[-1][1]
            vx = st.qd[s.body_qadr[s.body_index["chassis"]]]
            print(f"| {s.name} | {s.n} | {s.m} | {ev:.0f} | {linear} | {us[len(us) // 2]:.0f} | "
                  f"{us[0]:.0f} | {vx:.2f} m/s |")


if __name__ == "__main__":
    main()
