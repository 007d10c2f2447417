"""The KKT ordering condensed onto the chassis against the plain one. Not a test.

Per model: ``li-euler`` (defaults: projection with eq. 22's factors, implicit positions) with
the ordering the solver chooses (``solvers.sparse``: condensed onto a hub body when that costs
fewer multiply-adds with the same pivot health) and with the plain one (every multiplier after
all the coordinates of its row: ``kkt_hubs`` patched to return no hub), the two interleaved
over ``--rounds`` rounds of ``--steps`` steps after 200 warm-up steps, each step timed alone in
process CPU time; drive torque 100 N m where the model has one. Also the multiply-adds per
factorisation and the largest difference of the two runs' final q.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_kkt_ordering.py [--models sedan,...]
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import rtmbs.solvers.li_euler as li  # noqa: E402
from rtmbs.models import load_model  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402

MODELS = "peer-four-bar,peer-quarter-car,multilink-ideal,multilink-bushings,sedan-bushings,sedan"


def make(name: str, plain: bool):
    s = load_model(name)
    if "drive_torque" in s.input_names:
        s.set_input("drive_torque", 100.0)
    hubs = li.kkt_hubs
    if plain:
        li.kkt_hubs = lambda system: []
    try:
        slv = get_solver("li-euler")(s)
        st = s.initial_state()
        slv.reset(st)
    finally:
        li.kkt_hubs = hubs
    for _ in range(200):
        slv.step(st, 1e-3)
    return slv, st


def timed(slv, st, steps: int) -> np.ndarray:
    cpu = time.process_time_ns
    ts = np.empty(steps, np.int64)
    for k in range(steps):
        c0 = cpu()
        slv.step(st, 1e-3)
        ts[k] = cpu() - c0
    return ts / 1e3


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=MODELS)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=1000)
    a = ap.parse_args(argv)
    print(f"{platform.processor() or platform.machine()}, load {os.getloadavg()[0]:.1f}, "
          f"{a.rounds} rounds x {a.steps} steps, process CPU µs per step")
    print("| model (n, m) | multiply-adds plain → chosen | plain: median (rounds) / p99.9 / max | "
          "chosen: median (rounds) / p99.9 / max | ratio | max |Δq| at the end |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in a.models.split(","):
        runs = {plain: make(name, plain) for plain in (True, False)}
        res = {True: [], False: []}
        for _ in range(a.rounds):
            for plain, (slv, st) in runs.items():
                res[plain].append(timed(slv, st, a.steps))
        cells = []
        for plain in (True, False):
            meds = [np.median(r) for r in res[plain]]
            allv = np.concatenate(res[plain])
            cells.append(f"{np.median(meds):.1f} ({min(meds):.1f}-{max(meds):.1f}) / "
                         f"{np.percentile(allv, 99.9):.0f} / {allv.max():.0f}")
        ratio = (np.median([np.median(r) for r in res[False]])
                 / np.median([np.median(r) for r in res[True]]))
        (sp_, stp), (sc, stc) = runs[True], runs[False]
        s = sc.system
        print(f"| {name} ({s.n}, {s.m}) | {sp_.skkt.lu.flops:,} → {sc.skkt.lu.flops:,} | "
              f"{cells[0]} | {cells[1]} | {ratio:.2f} | {np.abs(stp.q - stc.q).max():.1e} m |")


if __name__ == "__main__":
    main()
