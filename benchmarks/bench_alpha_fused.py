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
import time  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.bench import step_cpu_us  # noqa: E402
from rtmbs.models import load_model  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402
from rtmbs.solvers.rollout import rollout  # noqa: E402

CONFIGS = {
    "velocity": {},  # the default: 3 Newton corrections, velocity correction
    "projection": {"stabilize": "projection"},
    "none": {"stabilize": "none"},
    "stiff": {"jacobian": "stiff"},
}
PATHS = ("Python-driven", "step", "rollout")


def _run_us(system, opts, path, steps, warmup, h=1e-3):
    slv = get_solver("generalized-alpha")(system, linear_solver="sparse", **opts)
    if path == "Python-driven":
        slv.fused = slv.extra_in_step = False  # before reset: the kernel-by-kernel path
    st = system.initial_state()
    slv.reset(st)
    for _ in range(warmup):
        slv.step(st, h)
    if path != "rollout":
        return step_cpu_us(slv, st, h, steps)
    clock = time.process_time_ns
    t0 = clock()
    r = rollout(slv, st, steps, h, outputs=False, every=steps)
    assert r.status == 1, r.message
    return np.array([(clock() - t0) / steps / 1e3])


def _rows(name, system, c, res):
    """The table rows of configuration ``c``: per path, then the paired ratios."""
    rmeds = {}
    for p in PATHS:
        allt = np.concatenate(res[(c, p)])
        rmeds[p] = np.array([float(np.median(t)) for t in res[(c, p)]])
        p999 = "-" if p == "rollout" else f"{np.percentile(allt, 99.9):.1f}"
        yield (f"| {name} ({system.n}, {system.m}) | {c} | {p} | {np.median(allt):.1f} | {p999} "
               f"| {rmeds[p].min():.1f} | {np.median(rmeds[p]):.1f} |")
    for p in PATHS[1:]:
        ratio = np.median(rmeds[p] / rmeds["Python-driven"])
        yield f"|  |  | {p} / Python-driven, median of the rounds' ratios | {ratio:.2f} |  |  |  |"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="peer-quarter-car,multilink-ideal")
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=200)
    a = ap.parse_args(argv)
    configs = a.configs.split(",")
    print("| model (n, m) | config | path | median µs/step | p99.9 | quietest round | median "
          "round |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in a.models.split(","):
        system = load_model(name)
        cases = [(c, p) for c in configs for p in PATHS]
        for c, p in cases:  # untimed: compiles what the cache lacks
            _run_us(system, CONFIGS[c], p, 20, 0)
        res = {k: [] for k in cases}
        for r in range(a.rounds):
            k0 = r % len(cases)
            for c, p in cases[k0:] + cases[:k0]:
                res[(c, p)].append(_run_us(system, CONFIGS[c], p, a.steps, a.warmup))
        for c in configs:
            for row in _rows(name, system, c, res):
                print(row, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
