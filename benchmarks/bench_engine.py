"""CPU time of li-euler's step in the C engine against the numba kernel it replaced, from Python and
rolled out, and the binding's cost (a step called from Python against the same step inside the
C rollout).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_engine.py [--models four-bar,...] [--rounds 5]
        [--steps 2000]

Per model and round, in a rotating order: ``numba step`` (the numba ``li_euler_stab_step``
called from Python), ``C step`` (``_engine.li_euler_stab_step`` from Python: what ``solver.step``
runs), ``numba rollout`` and ``C rollout`` (all the steps in one call, no outputs; mean per
step). Each case: ``--warmup`` steps from the initial state on a fresh solver, then ``--steps``
steps, each timed in process CPU time (``time.process_time_ns``, its ~0.3 µs call included in
every case alike). Printed per case: median, p99.9 and max of the per-step times over all rounds
(rollouts: the mean per step of each round), and the ratios C / numba and C step / C rollout as
the median over rounds of the ratio within the round.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.engine import _engine  # noqa: E402
from rtmbs.models import load_model  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402
from rtmbs.solvers.compiled_step import li_euler_stab_step  # noqa: E402
from rtmbs.solvers.rollout import _li_euler_rollout  # noqa: E402

CASES = ("numba step", "C step", "numba rollout", "C rollout")


def _solver(name: str):
    system = load_model(name)
    solver = get_solver("li-euler")(system)
    state = system.initial_state()
    solver.reset(state)
    return system, solver, state


def _steps(name: str, kernel, steps: int, warmup: int, h: float) -> np.ndarray:
    system, solver, state = _solver(name)
    post = (solver.jac_flag, solver.implicit) + solver.stab_args + solver._no_outputs
    args, m, q, qd = solver.kernel_args, system.m, state.q, state.qd
    clock = time.process_time_ns
    out = np.empty(steps)
    t = 0.0
    for k in range(warmup + steps):
        t0 = clock()
        kernel(*args, q, qd, m, t, h, *post)
        t1 = clock()
        t += h
        if k >= warmup:
            out[k - warmup] = (t1 - t0) * 1e-3
    return out


def _rollout(name: str, kernel, steps: int, warmup: int, h: float) -> float:
    system, solver, state = _solver(name)
    n, m, nx = system.n, system.m, system.nx
    opts = (solver.jac_flag, solver.implicit) + solver.stab_args

    def run(k, i0):
        res = (np.zeros(1), np.zeros((1, n)), np.zeros((1, n)), np.zeros((1, n)), np.zeros((1, m)),
               np.zeros((1, 0)), np.zeros((1, nx)))
        return kernel(*solver.kernel_args, state.q, state.qd, m, 0.0, i0, h, *opts, k, k,
                      np.zeros(0, np.int64), np.zeros((k, 0)), np.zeros(0, np.int64), *res,
                      np.empty(n), np.empty(n), np.empty(nx))

    run(warmup, 0)
    t0 = time.process_time_ns()
    done = run(steps, warmup)
    t1 = time.process_time_ns()
    assert done == steps, f"{name}: the rollout stopped at step {done}"
    return (t1 - t0) * 1e-3 / steps


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="peer-four-bar,peer-chain,peer-quarter-car,multilink-ideal,sedan")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--h", type=float, default=1e-3)
    a = ap.parse_args(argv)
    print("| model | case | median µs | p99.9 µs | max µs | C / numba | step / rollout |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in a.models.split(","):
        per = {c: [] for c in CASES}
        medians = {c: [] for c in CASES}
        for r in range(a.rounds):
            order = CASES[r % 4:] + CASES[:r % 4]
            for c in order:
                if c.endswith("step"):
                    x = _steps(name, li_euler_stab_step if c.startswith("numba") else
                               _engine.li_euler_stab_step, a.steps, a.warmup, a.h)
                    per[c].append(x)
                    medians[c].append(np.median(x))
                else:
                    x = _rollout(name, _li_euler_rollout if c.startswith("numba") else
                                 _engine.li_euler_rollout, a.steps, a.warmup, a.h)
                    per[c].append(np.array([x]))
                    medians[c].append(x)
        ratio = {"C step": np.median(np.array(medians["C step"]) / np.array(medians["numba step"])),
                 "C rollout": np.median(np.array(medians["C rollout"]) / np.array(medians["numba rollout"]))}
        binding = np.median(np.array(medians["C step"]) / np.array(medians["C rollout"]))
        for c in CASES:
            x = np.concatenate(per[c])
            rc = f"{ratio[c]:.2f}" if c in ratio else ""
            sr = f"{binding:.2f}" if c == "C step" else ""
            print(f"| {name} | {c} | {np.median(x):.1f} | {np.percentile(x, 99.9):.1f} | {x.max():.1f} "
                  f"| {rc} | {sr} |", flush=True)


if __name__ == "__main__":
    main()
