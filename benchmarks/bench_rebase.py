"""Cost of Algorithm 2's re-choice of B (a rebase) against a normal step (the aim: at most a few
normal steps; counted in ``nrebase``).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_rebase.py [--models four-bar,multilink-ideal]

``rebase_tol`` above 1 makes every step rebase; the same model without it gives the normal step.
Both are timed in process CPU time over 50 steps after 5 warm-up steps, interleaved, 5 rounds;
the medians and their ratio are printed, with the share of the timed rebases that kept the
analysis of Φu (the same partition and row pivots, ``nrebase_same``; "-" before it).
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.models import load_model  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402


def _per_step_us(system, steps=50, **opts):
    slv = get_solver("li-euler-indep")(system, B="partition", stabilize="projection", **opts)
    st = system.initial_state()
    slv.reset(st)
    for _ in range(5):
        slv.step(st, 1e-3)
    n0, s0 = slv.nrebase, getattr(slv, "nrebase_same", None)
    t0 = time.process_time_ns()
    for _ in range(steps):
        slv.step(st, 1e-3)
    us = (time.process_time_ns() - t0) / steps / 1e3
    kept = None if s0 is None else (slv.nrebase_same - s0, slv.nrebase - n0)
    return us, slv.nrebase - n0, kept


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="four-bar,multilink-ideal")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args(argv)
    print("| model | step with a rebase (µs) | normal step (µs) | ratio | analysis kept |")
    print("| --- | --- | --- | --- | --- |")
    for name in a.models.split(","):
        system = load_model(name)
        reb, norm, kept = [], [], [0, 0]
        for _ in range(a.rounds):
            us, nreb, k = _per_step_us(system, rebase_tol=1e3)
            assert nreb >= 50
            reb.append(us)
            if k is not None:
                kept = [kept[0] + k[0], kept[1] + k[1]]
            norm.append(_per_step_us(system)[0])
        r, n = float(np.median(reb)), float(np.median(norm))
        share = f"{kept[0]}/{kept[1]}" if kept[1] else "-"
        print(f"| {name} | {r:.0f} | {n:.0f} | {r / n:.1f} | {share} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
