"""CPU time of an Algorithm 2 step (``li-euler-indep``, default options) as one compiled call
against the same step driven kernel by kernel from Python (issue 11); and of the step with its
outputs and the compiled rollout against the step called from Python.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_indep_fused.py [--models ...] [--rounds 7]
        [--tables fused,rollout]

Table "fused": each round runs ``--steps`` steps after ``--warmup`` from the initial state with
each path, alternating which goes first; every step is timed in process CPU time
(``time.process_time_ns``, its ~0.3 µs call included alike in both). Printed per model and path:
the median and the 99.9th percentile of the per-step times over all rounds, the range of the
per-round medians, and the rebases. The Python-driven path is the solver with
``fused_step = False`` (what ``instrument=True`` runs, without its phase timers).

Table "rollout" (the compiled step everywhere), the paths interleaved in each round in a rotating
order: ``step`` from Python; ``step`` then ``system.outputs`` (the real-time loop's step before
the outputs were in the compiled call); ``step_outputs`` (one call); ``rollout`` in chunks of
``--chunk`` steps with the outputs of every step (each chunk timed, its time / chunk steps: the
median and p99.9 are of those means, so the p99.9 is not comparable with a single step's);
``rollout`` of all the steps in one call without outputs (the mean per step only). Each path
runs once untimed first.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.bench import step_cpu_us  # noqa: E402
from rtmbs.models import load_model  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402
from rtmbs.solvers.rollout import rollout  # noqa: E402


def _times_us(system, fused: bool, steps: int, warmup: int, h: float = 1e-3):
    """Per-step process CPU µs of ``steps`` steps after ``warmup``; and the rebases."""
    slv = get_solver("li-euler-indep")(system)
    slv.fused_step = fused  # before reset: the kernel's arguments are made only when fused
    st = system.initial_state()
    slv.reset(st)
    for _ in range(warmup):
        slv.step(st, h)
    return step_cpu_us(slv, st, h, steps), slv.nrebase


def _solver(system, h, warmup):
    slv = get_solver("li-euler-indep")(system)
    st = system.initial_state()
    slv.reset(st)
    for _ in range(warmup):
        slv.step(st, h)
    return slv, st


def _path_us(system, path: str, steps: int, warmup: int, chunk: int, h: float = 1e-3):
    """Per-step process CPU µs of ``steps`` steps of ``path`` (table "rollout"): one value per
    step, per chunk (its mean per step) or one for the whole rollout; and the rebases."""
    slv, st = _solver(system, h, warmup)
    clock = time.process_time_ns
    out = np.zeros(len(system.output_names))
    if path == "rollout":
        times = np.empty(steps // chunk)
        for k in range(len(times)):
            t0 = clock()
            r = rollout(slv, st, chunk, h)
            times[k] = (clock() - t0) / chunk
            assert r.status == 1, r.message
    elif path == "rollout-all":
        t0 = clock()
        r = rollout(slv, st, steps, h, outputs=False, every=steps)
        times = np.array([(clock() - t0) / steps])
        assert r.status == 1, r.message
    else:
        times = np.empty(steps)
        step, outputs, step_outputs = slv.step, system.outputs, slv.step_outputs
        for k in range(steps):
            if path == "step":
                t0 = clock()
                step(st, h)
            elif path == "step + outputs":
                t0 = clock()
                step(st, h)
                outputs(st.t, st.q, st.qd, out)
            else:
                t0 = clock()
                step_outputs(st, h, out)
            times[k] = clock() - t0
    assert slv.status == 0, "a step failed"
    return times / 1e3, slv.nrebase


ROLLOUT_PATHS = ("step", "step + outputs", "step_outputs", "rollout", "rollout-all")


def _rollout_table(a):
    print("| model (n, m) | path | median µs/step | p99.9 | round medians | rebases |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in a.models.split(","):
        system = load_model(name)
        res = {p: [] for p in ROLLOUT_PATHS}
        reb = {}
        for p in ROLLOUT_PATHS:  # (compiles what the cache lacks, e.g. the no-outputs rollout)
            _path_us(system, p, 2 * a.chunk, 0, a.chunk)
        for r in range(a.rounds):
            order = ROLLOUT_PATHS[r % 5:] + ROLLOUT_PATHS[:r % 5]
            for p in order:
                t, reb[p] = _path_us(system, p, a.steps, a.warmup, a.chunk)
                res[p].append(t)
        for p in ROLLOUT_PATHS:
            allt = np.concatenate(res[p])
            rmed = [float(np.median(t)) for t in res[p]]
            label = {"rollout": f"rollout, chunks of {a.chunk}, outputs",
                     "rollout-all": f"rollout of {a.steps} steps, no outputs"}.get(p, p)
            p999 = f"{np.percentile(allt, 99.9):.1f}" if p != "rollout-all" else "-"
            print(f"| {name} ({system.n}, {system.m}) | {label} | {np.median(allt):.1f} | "
                  f"{p999} | {min(rmed):.1f}-{max(rmed):.1f} | {reb[p]} |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="multilink-ideal,peer-quarter-car,sedan")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--chunk", type=int, default=10)
    ap.add_argument("--tables", default="fused,rollout")
    a = ap.parse_args(argv)
    tables = a.tables.split(",")
    if "fused" in tables:
        _fused_table(a)
    if "rollout" in tables:
        _rollout_table(a)
    return 0


def _fused_table(a):
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


if __name__ == "__main__":
    raise SystemExit(main())
