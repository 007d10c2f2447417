"""``ida``'s iteration matrix, ``jacobian="model"`` against ``"fd"`` (coloured differences in q):
residuals, iteration matrices, process CPU and wall, and the difference of the two results
(docs/reference-solver.md, "ida's iteration matrix"). Not a test; minutes to a quarter hour.

    PYTHONPATH=src python tests/reference/ida_jacobian_bench.py multilink [--fd-first]
    PYTHONPATH=src python tests/reference/ida_jacobian_bench.py sedan-short [--fd-first]
    PYTHONPATH=src python tests/reference/ida_jacobian_bench.py sedan-full   # ~17 min

multilink: the study's 10 s manoeuvre (both variants, rtol 1e-8, atol 1e-10) and the double
pendulum (2 s, rtol 1e-10); sedan-*: the ISO 7401 step steer's reference run (80 km/h, 20°,
rise 0.15 s, rtol 1e-6), short window t_step 0.1 / t_end 0.5 or the full t_step 0.5 / t_end 2.
"""
from __future__ import annotations

import argparse
import json
import math
import pathlib
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parents[1]))  # tests/: the test models


def _timed(fn):
    c0, w0 = time.process_time(), time.perf_counter()
    res = fn()
    return res, round(time.process_time() - c0, 1), round(time.perf_counter() - w0, 1)


def _row(name, jac, res, cpu, wall, **extra):
    m = res.meta
    print(json.dumps(dict(case=name, jacobian=jac, status=m["status"], t=float(res.t[-1]),
                          nfev=m["nfev"], njev=m["njev"], nfev_jac=m["nfev_jac"],
                          colours=m.get("colours"), cpu=cpu, wall=wall, **extra)), flush=True)


def multilink(order):
    from _models.exact import double_pendulum

    from rtmbs.solvers.reference import ReferenceSolver
    from rtmbs.studies.multilink import FULL, build_system, dropped_state

    cases = []
    for variant in ("ideal", "bushings"):
        sy = build_system(variant, FULL)
        st = dropped_state(sy, FULL["drop"])
        ReferenceSolver(sy, method="ida").solve(st, 0.002, h=1e-3)  # compiled, loaded
        cases.append((f"multilink-{variant}", sy, st, FULL["t_end"], 1e-3, 1e-8, 1e-10))
    dp = double_pendulum()
    cases.append(("double-pendulum", dp, dp.initial_state(), 2.0, 0.01, 1e-10, 1e-12))
    for name, sy, st, T, h, rtol, atol in cases:
        out = {}
        for jac in order:
            res, cpu, wall = _timed(lambda: ReferenceSolver(
                sy, method="ida", rtol=rtol, atol=atol, jacobian=jac).solve(st, T, h=h))
            extra = {}
            if name == "double-pendulum":
                E = np.array([dp.energy(q, qd) for q, qd in zip(res.q, res.qd)])
                extra["rel_energy"] = float(np.abs(E - E[0]).max() / abs(E[0]))
            _row(name, jac, res, cpu, wall, **extra)
            out[jac] = res
        a, b = out["model"], out["fd"]
        print(f"{name}: fd vs model max|dq| {np.abs(a.q - b.q).max():.2e}, max|dqd| "
              f"{np.abs(a.qd - b.qd).max():.2e}, travel {np.abs(a.q[-1] - a.q[0]).max():.3g}")


def sedan(order, full):
    from rtmbs.manoeuvres.events import sedan_system
    from rtmbs.manoeuvres.reference_check import chassis_signals, smooth_step_input
    from rtmbs.solvers.simulate import simulate

    t_step, t_end = (0.5, 2.0) if full else (0.1, 0.5)
    system, _ = sedan_system(80 / 3.6)
    inputs = {"handwheel_angle": smooth_step_input(math.radians(20.0), t_step, 0.15),
              "drive_torque": lambda t: (0.0, 0.0, 0.0)}
    sig = {}
    for jac in order:
        res, cpu, wall = _timed(lambda: simulate(
            system, "reference", t_end=t_end, h=1e-3, inputs=inputs, raise_on_divergence=False,
            method="ida", rtol=1e-6, jacobian=jac))
        _row(f"sedan t_end {t_end:g}", jac, res, cpu, wall)
        sig[jac] = chassis_signals(res)
    a, b = sig["model"], sig["fd"]
    k = min(len(a["yaw_rate"]), len(b["yaw_rate"]))
    print("fd vs model, max difference / peak:",
          {nm: f"{np.abs(a[nm][:k] - b[nm][:k]).max() / np.abs(a[nm][:k]).max():.2e}" for nm in a})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("multilink", "sedan-short", "sedan-full"))
    ap.add_argument("--fd-first", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    order = ("fd", "model") if args.fd_first else ("model", "fd")
    if args.what == "multilink":
        multilink(order)
    else:
        sedan(order, args.what == "sedan-full")


if __name__ == "__main__":
    main()
