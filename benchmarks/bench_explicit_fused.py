"""CPU time of an ``explicit-euler`` step as one compiled call
(``rtmbs.solvers.compiled_explicit.explicit_euler_step``) against the same step driven kernel by
kernel from Python, and as the compiled rollout (issue 11).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_explicit_fused.py [--models peer-quarter-car,...]
        [--stabilize none,baumgarte,projection] [--rounds 9] [--steps 1000] [--h 1e-3]

Paths, per model and ``stabilize``, interleaved in each round in a rotating order: the
Python-driven sparse path (the solver with ``fused = False`` before ``reset``: what explicit Euler
ran before, and what ``instrument=True`` runs, without its phase timers); ``step`` (one compiled
call) from Python; ``rollout`` of all the steps in one call, no outputs (its mean per step). Each
run: ``--warmup`` steps from the initial state, then ``--steps`` steps, every step timed in
process CPU time (``rtmbs.bench.step_cpu_us``; 1000 steps by default: explicit Euler at
h = 1 ms leaves multilink-ideal's stiff tyres after about 1.8 s). Printed as ``bench_stab_fused.py`` prints: the
median and p99.9 of the per-step times over all rounds, the smallest and the median of the
per-round medians (rollout: the mean per step of each round), and the compiled paths' time
against the Python-driven one as the median over the rounds of their ratio in the round.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.bench import step_cpu_us  # noqa: E402
from rtmbs.models import load_model  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402
from rtmbs.solvers.rollout import rollout  # noqa: E402

PATHS = ("Python-driven", "step", "rollout")


def run_us(system, stabilize, path, steps, warmup, h):
    """Per-step CPU µs of one run (``rollout``: its mean per step, one value)."""
    slv = get_solver("explicit-euler")(system, linear_solver="sparse", stabilize=stabilize)
    if path == "Python-driven":
        slv.fused = slv.extra_in_step = False  # before reset: the kernel-by-kernel path
    st = system.initial_state()
    slv.reset(st)
    for _ in range(warmup):
        slv.step(st, h)
    if path != "rollout":
        return step_cpu_us(slv, st, h, steps)
    t0 = time.process_time_ns()
    r = rollout(slv, st, steps, h, outputs=False, every=steps)
    assert r.status == 1, r.message
    return np.array([(time.process_time_ns() - t0) / steps / 1e3])


def table(name, system, stabs, res):
    """The rows of one model (``res``: (stabilize, path) -> the rounds' per-step times)."""
    for s in stabs:
        rmeds = {p: np.array([float(np.median(t)) for t in res[(s, p)]]) for p in PATHS}
        for p in PATHS:
            allt = np.concatenate(res[(s, p)])
            p999 = "-" if p == "rollout" else f"{np.percentile(allt, 99.9):.1f}"
            print(f"| {name} ({system.n}, {system.m}) | {s} | {p} | {np.median(allt):.1f} | "
                  f"{p999} | {rmeds[p].min():.1f} | {np.median(rmeds[p]):.1f} |")
        for p in PATHS[1:]:  # (paired: the paths of a round run side by side)
            print(f"|  |  | {p} / Python-driven, median of the rounds' ratios | "
                  f"{np.median(rmeds[p] / rmeds['Python-driven']):.2f} |  |  |  |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="peer-quarter-car,multilink-ideal")
    ap.add_argument("--stabilize", default="none,baumgarte,projection")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--h", type=float, default=1e-3)
    a = ap.parse_args(argv)
    stabs = a.stabilize.split(",")
    print(f"h = {a.h:g} s, {a.rounds} rounds of {a.steps} steps after {a.warmup}")
    print("| model (n, m) | stabilize | path | median µs/step | p99.9 | quietest round | median "
          "round |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in a.models.split(","):
        system = load_model(name)
        cases = [(s, p) for s in stabs for p in PATHS]
        for s, p in cases:  # untimed: compiles what the cache lacks
            run_us(system, s, p, 20, 0, a.h)
        res = {k: [] for k in cases}
        for r in range(a.rounds):
            k0 = r % len(cases)
            for s, p in cases[k0:] + cases[:k0]:
                res[(s, p)].append(run_us(system, s, p, a.steps, a.warmup, a.h))
        table(name, system, stabs, res)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
