"""Issue 14: the transient tyre driven from rest (multilink-ideal, ``transient: true``, a 300 N m
drive torque step at t = 0.1 s; the study's corner, flat road). Prints Fx statistics after the
build-up for several steps h and solvers.

Run: PYTHONPATH=src python benchmarks/tyre_from_rest.py [solver ...]
"""
import sys

import numpy as np

from rtmbs.errors import SolverError
from rtmbs.model.description import Input
from rtmbs.models.multilink import multilink_model
from rtmbs.solvers.simulate import simulate
from rtmbs.system import compile_model

T_STEP, TORQUE, T_END = 0.1, 300.0, 0.6


def system(transient=True, torque=TORQUE):
    m = multilink_model("ideal", transient=transient)
    m.inputs = [Input(name="drive_torque", type="step", t0=T_STEP, t1=T_STEP + 0.001,
                      **{"from": 0.0, "to": torque}),
                Input(name="brake_torque", type="constant", value=0.0)]
    return compile_model(m)


def run(solver, h, transient=True, t_end=T_END):
    res = simulate(system(transient), solver, t_end=t_end, h=h, accelerations=False,
                   raise_on_divergence=False)
    return res


def stats(res, t0=T_STEP + 0.15):
    t, fx = res.t, res.outputs["tyre.Fx"]
    w = t >= t0
    return dict(mean=fx[w].mean(), lo=fx[w].min(), hi=fx[w].max(), std=fx[w].std(),
                vx=res.outputs["chassis.vx"][-1] if "chassis.vx" in res.outputs else np.nan)


if __name__ == "__main__":
    solvers = sys.argv[1:] or ["li-euler"]
    for sol in solvers:
        for tr in (False, True):
            for h in (0.5e-3, 1e-3, 2e-3):
                try:
                    r = run(sol, h, tr)
                except SolverError as exc:
                    print(f"{sol}: {exc}")
                    break
                if r.meta.get("status", 0) < 0 or r.t[-1] < T_STEP + 0.15:
                    print(f"{sol:14s} transient={tr!s:5s} h={h * 1e3:.1f} ms diverged at t = "
                          f"{r.t[-1]:.3f} s", flush=True)
                    continue
                s = stats(r)
                print(f"{sol:14s} transient={tr!s:5s} h={h * 1e3:.1f} ms status={r.meta.get('status')} "
                      f"Fx after {T_STEP + 0.15:.2f} s: mean {s['mean']:8.1f} min {s['lo']:8.1f} "
                      f"max {s['hi']:8.1f} std {s['std']:7.1f} N; chassis vx end {s['vx']:.3f} m/s",
                      flush=True)
