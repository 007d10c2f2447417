"""Transient tyres in the one-call step: what the extra states cost. Not a test.

The sedan with its PAC2002 tyres steady-state and transient (``transient: true`` in
wheels.yaml, the file's PTX/PTY relaxation lengths; written to a temporary folder), stepped with
``li-euler`` (compiled step, projection): per round and model, 2000 steps after 300 warm-up
steps at 20 m/s with a drive torque, each ``step_outputs`` timed alone in process CPU time.
Interleaved over ``--rounds`` rounds. Also timed: the per-step Python work the compiled step
replaced for the transient model (``set_extra_step`` and a Python loop calling
``transient_step`` per tyre on the element outputs, as ``Solver.step`` did before).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_extra_states.py [--rounds 5]
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.kernels.codes import TYRE_TRANSIENT_COLUMNS  # noqa: E402
from rtmbs.system import compile_model  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402
from rtmbs.vehicle.build.vehicle import load_vehicle_file  # noqa: E402
from rtmbs.vehicle.tyre.contact import transient_step  # noqa: E402

H = 1e-3
SEDAN = Path(__file__).resolve().parents[1] / "src/rtmbs/data/vehicles/sedan"


def sedan(transient: bool, folder: Path):
    wheels = (folder / "wheels.yaml").read_text()
    (folder / "wheels.yaml").write_text(wheels.replace("transient: false",
                                                       f"transient: {str(transient).lower()}"))
    vehicle = (folder / "vehicle.yaml").read_text()
    (folder / "vehicle.yaml").write_text(vehicle.replace("speed: 0.0", "speed: 20.0"))
    return compile_model(load_vehicle_file(folder / "vehicle.yaml"))


def python_advance(system, state, h):
    """What ``Solver.step`` ran in Python per step before the compiled step took it over."""
    system.set_extra_step(h)
    x = state.x
    for j, r in enumerate(system._transient_rows):
        vsx, vsy, vx, sk, sa = system.force_out_all[r, TYRE_TRANSIENT_COLUMNS]
        x[2 * j], x[2 * j + 1] = transient_step(x[2 * j], x[2 * j + 1], vsx, vsy, vx, sk, sa, h)
    system.extra_state[:] = x


def timed(system, steps, python_part=False):
    st = system.initial_state()
    slv = get_solver("li-euler")(system, stabilize="projection")
    slv.reset(st)
    system.set_input("drive_torque", 100.0)
    out = np.zeros(len(system.output_names))
    for _ in range(300):
        slv.step_outputs(st, H, out)
    cpu = time.process_time_ns
    ts = np.empty(steps, np.int64)
    for k in range(steps):
        c0 = cpu()
        if python_part:
            python_advance(system, st, H)
        else:
            slv.step_outputs(st, H, out)
        ts[k] = cpu() - c0
    return ts / 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=2000)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d1, tempfile.TemporaryDirectory() as d2:
        for d in (d1, d2):
            shutil.copytree(SEDAN, d, dirs_exist_ok=True)
        cases = {"sedan, steady-state tyres": (sedan(False, Path(d1)), False),
                 "sedan, transient tyres": (sedan(True, Path(d2)), False),
                 "the Python extra-state work it replaced": (None, True)}
        res = {k: [] for k in cases}
        for _ in range(a.rounds):
            for name, (system, py) in cases.items():
                s = system if system is not None else cases["sedan, transient tyres"][0]
                res[name].append(timed(s, a.steps, py))
    print(f"{platform.processor() or platform.machine()}, load {os.getloadavg()[0]:.1f}, "
          f"{a.rounds} rounds x {a.steps} steps, process CPU µs per call")
    print("| case | median | p99.9 | max |")
    print("| --- | --- | --- | --- |")
    for name, runs in res.items():
        meds = [np.median(r) for r in runs]
        allv = np.concatenate(runs)
        print(f"| {name} | {np.median(meds):.1f} (rounds {min(meds):.1f}-{max(meds):.1f}) | "
              f"{np.percentile(allv, 99.9):.1f} | {allv.max():.1f} |")


if __name__ == "__main__":
    main()
