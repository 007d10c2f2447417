"""CPU time of a ``li-euler`` step with Baumgarte, GGL or ``projection="mass"`` as one compiled call
(``rtmbs.solvers.compiled_step.li_euler_stab_step``) against the same step driven kernel by kernel
from Python, and as the compiled rollout (issue 11).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_stab_fused.py [--models peer-quarter-car,...]
        [--configs baumgarte,mass,ggl,ggl2] [--rounds 7] [--steps 2000]

Paths, per model and configuration, interleaved in each round in a rotating order: the
Python-driven sparse path (the solver with ``fused = False`` before ``reset``: what these
configurations ran before, and what ``instrument=True`` runs, without its phase timers); ``step``
(one compiled call) from Python; ``rollout`` of all the steps in one call, no outputs (its mean
per step). Each run: ``--warmup`` steps from the initial state, then ``--steps`` steps, every
step timed in process CPU time (``time.process_time_ns``, its ~0.3 µs call included alike).
Printed: the median and p99.9 of the per-step times over all rounds, the smallest and the median
of the per-round medians (rollout: the mean per step of each round), and the compiled paths'
time against the Python-driven one as the median over rounds of their ratio in the round (the
cases of one configuration run side by side, so this is the least disturbed by other load).
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
    "default": {},  # projection="step" (compiled before): for comparison
    "baumgarte": {"stabilize": "baumgarte"},
    "mass": {"stabilize": "projection", "projection": "mass"},
    "ggl": {"stabilize": "ggl"},
    "ggl2": {"stabilize": "ggl", "ggl_iterations": 2},
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
    for row in fused_path_table("li-euler", systems, configs, a.rounds, a.steps, a.warmup, a.h):
        print(row, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
