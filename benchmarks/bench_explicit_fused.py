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

from rtmbs.bench import fused_path_table  # noqa: E402
from rtmbs.models import load_model  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="peer-quarter-car,multilink-ideal")
    ap.add_argument("--stabilize", default="none,baumgarte,projection")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--h", type=float, default=1e-3)
    a = ap.parse_args(argv)
    configs = {s: {"stabilize": s} for s in a.stabilize.split(",")}
    systems = {name: load_model(name) for name in a.models.split(",")}
    print(f"h = {a.h:g} s, {a.rounds} rounds of {a.steps} steps after {a.warmup}")
    for row in fused_path_table("explicit-euler", systems, configs, a.rounds, a.steps, a.warmup, a.h):
        print(row, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
