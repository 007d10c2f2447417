"""CPU time of a ``generalized-alpha`` step as one compiled call
(``rtmbs.solvers.compiled_alpha.generalized_alpha_step``) against the same step driven kernel by
kernel from Python, and as the compiled rollout (issue 11).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_alpha_fused.py [--models peer-quarter-car,...]
        [--configs velocity,projection,none,stiff] [--rounds 7] [--steps 2000]

The shape of ``bench_stab_fused.py``: per model and configuration, the paths interleaved in each
round in a rotating order: the Python-driven sparse path (the solver with ``fused = False`` before
``reset``: what generalized-α ran before, and what ``instrument=True`` runs, without its phase
timers); ``step`` (one compiled call) from Python; ``rollout`` of all the steps in one call, no
outputs (its mean per step). Each run: ``--warmup`` steps from the initial state, then
``--steps`` steps, every step timed in process CPU time (``rtmbs.bench.step_cpu_us``). Printed:
the median and p99.9 of the per-step times over all rounds, the smallest and the median of the
per-round medians (rollout: the mean per step of each round), and the compiled paths' time
against the Python-driven one as the median over rounds of their ratio in the round.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse  # noqa: E402

from rtmbs.bench import fused_path_table  # noqa: E402
from rtmbs.models import load_model  # noqa: E402

CONFIGS = {
    "velocity": {},  # the default: 3 Newton corrections, velocity correction
    "projection": {"stabilize": "projection"},
    "none": {"stabilize": "none"},
    "stiff": {"jacobian": "stiff"},
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="peer-quarter-car,multilink-ideal")
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--h", type=float, default=1e-3)
    a = ap.parse_args(argv)
    configs = {c: CONFIGS[c] for c in a.configs.split(",")}
    systems = {name: load_model(name) for name in a.models.split(",")}
    print(f"h = {a.h:g} s, {a.rounds} rounds of {a.steps} steps after {a.warmup}")
    for row in fused_path_table("generalized-alpha", systems, configs, a.rounds, a.steps, a.warmup, a.h):
        print(row, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
