"""CPU cost of the vehicle outputs (model sensors, engine/sensors.c) and of ``rtmbs statics``.

Usage:  python benchmarks/bench_vehicle_outputs.py [--calls 3000] [--rounds 7]

1. ``system.outputs`` on the sedan at design, with and without its 22 sensors (the same model
   otherwise), interleaved in rounds: median µs per call (process CPU time).
2. One static solve (``rtmbs.analysis.statics.vehicle_statics``) of sedan and sedan-bushings:
   process CPU seconds. Not a test: numbers go to docs/benchmarks.md.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.analysis.statics import vehicle_statics  # noqa: E402
from rtmbs.system import compile_model  # noqa: E402
from rtmbs.vehicle.build import sedan_model  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    with_s = sedan_model()
    without = with_s.model_copy(deep=True)
    without.sensors = []
    systems = {"without sensors": compile_model(without), "with sensors": compile_model(with_s)}
    st = systems["with sensors"].initial_state()
    times = {k: [] for k in systems}
    for _ in range(a.rounds):
        for k, s in systems.items():
            out = np.zeros(len(s.output_names))
            t0 = time.process_time()
            for _ in range(a.calls):
                s.outputs(0.0, st.q, st.qd, out)
            times[k].append((time.process_time() - t0) / a.calls * 1e6)
    for k, v in times.items():
        print(f"outputs {k} ({len(systems[k].output_names)}): median {np.median(v):.2f} µs/call")
    for joints in ("ideal", "bushings"):
        t0 = time.process_time()
        vehicle_statics(sedan_model(joints))
        print(f"statics sedan {joints}: {time.process_time() - t0:.2f} s CPU")


if __name__ == "__main__":
    main()
