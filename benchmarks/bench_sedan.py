"""CPU µs per step of li-euler (h = 1 ms, projection: the defaults) on the built-in sedan and
sedan-bushings, driving straight at 20 m/s on a flat road with a constant drive torque.

Usage:  python benchmarks/bench_sedan.py [--steps 3000] [--rounds 5] [--models sedan,sedan-bushings]
            [--linear-solver auto] [--json]

Per round and model (the rounds interleave the models): a new solver, 200 untimed steps, then
``steps`` steps of a plain Python loop over ``solver.step``, each timed alone in process CPU time
(``time.process_time_ns``). Printed per model: the median, p99, p99.9 and max over all timed steps
of all rounds, the medians of the rounds, and the chassis speed at the end (a check that the car
drove). Not a test: numbers go to docs/benchmarks.md.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.solvers.base import get_solver  # noqa: E402
from rtmbs.system import compile_model  # noqa: E402
from rtmbs.vehicle.build import sedan_model  # noqa: E402

JOINTS = {"sedan": "ideal", "sedan-bushings": "bushings"}


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


def _round(system, steps, h=1e-3, **opts):
    slv = get_solver("li-euler")(system, **opts)
    st = system.initial_state()
    slv.reset(st)
    for _ in range(200):
        slv.step(st, h)
    per = np.empty(steps)
    clock = time.process_time_ns
    for i in range(steps):
        t0 = clock()
        slv.step(st, h)
        per[i] = clock() - t0
    if not np.all(np.isfinite(st.q)):
        raise RuntimeError(f"li-euler diverged on {system.name}")
    vx = float(st.qd[system.body_qadr[system.body_index["chassis"]]])
    return per * 1e-3, vx


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--models", default="sedan,sedan-bushings")
    ap.add_argument("--linear-solver", default="auto")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    a = ap.parse_args(argv)
    names = a.models.split(",")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the tyre file's filled-in coefficients)
        systems = {name: _system(JOINTS[name]) for name in names}
    load0 = os.getloadavg()[0]
    runs = {name: [] for name in names}
    for _ in range(a.rounds):
        for name in names:
            runs[name].append(_round(systems[name], a.steps, linear_solver=a.linear_solver))
    out = {"load": [load0, os.getloadavg()[0]], "steps": a.steps, "rounds": a.rounds}
    for name in names:
        s = systems[name]
        allsteps = np.concatenate([r[0] for r in runs[name]])
        out[name] = {"n": s.n, "m": s.m,
                     "median": float(np.median(allsteps)),
                     "p99": float(np.percentile(allsteps, 99)),
                     "p99.9": float(np.percentile(allsteps, 99.9)),
                     "max": float(allsteps.max()),
                     "round_medians": [float(np.median(r[0])) for r in runs[name]],
                     "chassis_vx": runs[name][-1][1]}
    if a.json:
        print(json.dumps(out))
        return
    print(f"{os.cpu_count()} CPUs, load {out['load'][0]:.1f} → {out['load'][1]:.1f}; "
          f"{a.rounds} rounds × {a.steps} steps; li-euler, linear_solver={a.linear_solver}; "
          "process CPU µs per step")
    print("| model | n | m | median | p99 | p99.9 | max | medians of the rounds | chassis vx at the end |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in names:
        r = out[name]
        meds = " / ".join(f"{x:.0f}" for x in r["round_medians"])
        print(f"| {name} | {r['n']} | {r['m']} | {r['median']:.1f} | {r['p99']:.0f} | "
              f"{r['p99.9']:.0f} | {r['max']:.0f} | {meds} | {r['chassis_vx']:.2f} m/s |")


if __name__ == "__main__":
    main()
