"""CPU time of an Algorithm 2 step (``li-euler-indep``, default options) as one compiled call
against the same step driven kernel by kernel from Python (issue 11).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_indep_fused.py [--models ...] [--rounds 7]

Each round runs ``--steps`` steps after ``--warmup`` from the initial state with each path,
alternating which goes first; every step is timed in process CPU time (``time.process_time_ns``,
its ~0.3 µs call included alike in both). Printed per model and path: the median and the 99.9th
percentile of the per-step times over all rounds, the range of the per-round medians, and the
rebases. The Python-driven path is the solver with ``fused_step = False`` (what
``instrument=True`` runs, without its phase timers).
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.models import load_model  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402


def _times_us(system, fused: bool, steps: int, warmup: int, h: float = 1e-3):
    """Per-step process CPU µs of ``steps`` steps after ``warmup``; and the rebases."""
    slv = get_solver("li-euler-indep")(system)
    slv.fused_step = fused  # before reset: the kernel's arguments are made only when fused
    st = system.initial_state()
    slv.reset(st)
    for _ in range(warmup):
        slv.step(st, h)
    out = np.empty(steps)
    clock = time.process_time_ns
    step = slv.step
    for k in range(steps):
        t0 = clock()
        step(st, h)
        out[k] = clock() - t0
    assert slv.status == 0, "a step failed"
    return out / 1e3, slv.nrebase


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="multilink-ideal,peer-quarter-car,sedan")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=200)
    a = ap.parse_args(argv)
    print("| model (n, m) | path | median µs | p99.9 µs | round medians | rebases |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in a.models.split(","):
        system = load_model(name)
        res = {True: [], False: []}
        reb = {True: 0, False: 0}
        for r in range(a.rounds):
            for fused in ((True, False) if r % 2 == 0 else (False, True)):
                t, nreb = _times_us(system, fused, a.steps, a.warmup)
                res[fused].append(t)
                reb[fused] = nreb
        med = {}
        for fused in (True, False):
            allt = np.concatenate(res[fused])
            rmed = [float(np.median(t)) for t in res[fused]]
            med[fused] = float(np.median(allt))
            label = "one compiled call" if fused else "Python-driven"
            print(f"| {name} ({system.n}, {system.m}) | {label} | {med[fused]:.1f} | "
                  f"{np.percentile(allt, 99.9):.1f} | {min(rmed):.1f}-{max(rmed):.1f} | "
                  f"{reb[fused]} |")
        print(f"|  | saved | {med[False] - med[True]:.1f} "
              f"({100 * (1 - med[True] / med[False]):.0f} %) |  |  |  |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
