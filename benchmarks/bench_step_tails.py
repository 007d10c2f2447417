"""Tails of the step time: median, p99.9 and max per step over 10⁵ steps, for every built-in model
(a real-time step is fixed cost: the aim is max/median ≤ 3 for the step itself).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_step_tails.py [--steps 100000] [--models a,b]
        [--out docs/benchmarks/step-tails.md]

Each step is timed twice: wall time (perf_counter_ns) and the thread's CPU time
(thread_time_ns), with the garbage collector off as in the real-time loop. On a shared machine the wall tail holds the operating system's interruptions;
the CPU tail is the step's own variation (plus cache effects of being descheduled). The solver's
re-analyses, fallbacks and rebases during the timed steps are listed beside the times.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import gc  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.models import BUILTIN, load_model  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402
from rtmbs.solvers.timing import cpu_model  # noqa: E402

CONFIGS = (("li-euler", {}), ("li-euler-indep", {}), ("generalized-alpha", {}))


def time_steps(system, solver, opts, steps, warmup=500, h=1e-3):
    slv = get_solver(solver)(system, **opts)
    st = system.initial_state()
    slv.reset(st)
    for _ in range(warmup):
        slv.step(st, h)
    ev0 = (slv.nanalyse, slv.nfallback, getattr(slv, "nrebase", 0))
    wall = np.empty(steps, np.int64)
    cpu = np.empty(steps, np.int64)
    wclock, cclock, step = time.perf_counter_ns, time.thread_time_ns, slv.step
    ok = True
    gc.collect()
    gc.freeze()
    gc.disable()  # as the real-time loop does (rtmbs.realtime.loop)
    for i in range(steps):
        c0 = cclock()
        w0 = wclock()
        ok &= step(st, h)
        w1 = wclock()
        cpu[i] = cclock() - c0
        wall[i] = w1 - w0
    gc.enable()
    gc.unfreeze()
    ev = (slv.nanalyse - ev0[0], slv.nfallback - ev0[1], getattr(slv, "nrebase", 0) - ev0[2])
    return dict(ok=bool(ok) and bool(np.isfinite(st.q).all()), wall=wall / 1e3, cpu=cpu / 1e3,
                events=ev)


def _stats(x):
    med = float(np.median(x))
    return med, float(np.percentile(x, 99.9)), float(x.max())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=100_000)
    ap.add_argument("--models", default=None, help="comma-separated (default: every built-in)")
    ap.add_argument("--out", default=None, help="Markdown file for the table")
    a = ap.parse_args(argv)
    models = a.models.split(",") if a.models else list(BUILTIN)
    rows = []
    for name in models:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            system = load_model(name)
            for solver, opts in CONFIGS:
                if system.m == 0 and solver == "li-euler-indep":
                    continue
                try:
                    r = time_steps(system, solver, opts, a.steps)
                except Exception as exc:  # noqa: BLE001 - a solver that stops is a result
                    row = f"| {name} | {solver} | stopped: {type(exc).__name__}: {exc} |"
                    print(row, flush=True)
                    rows.append(row)
                    continue
                cm, c9, cx = _stats(r["cpu"])
                wm, w9, wx = _stats(r["wall"])
                row = (f"| {name} | {solver} | {cm:.1f} | {c9:.1f} | {cx:.0f} | {cx / cm:.1f} | "
                       f"{wm:.1f} | {w9:.1f} | {wx:.0f} | {r['events'][0]} / {r['events'][1]} / "
                       f"{r['events'][2]} | {'ok' if r['ok'] else 'FAILED'} |")
                print(row, flush=True)
                rows.append(row)
    head = [f"Step time over {a.steps} steps at h = 1 ms after 500 warm-up steps, default options "
            f"(li-euler: projection, implicit positions; li-euler-indep: partition, projection; "
            f"generalized-alpha: 3 Newton iterations, velocity correction). Machine: "
            f"{cpu_model()}, {os.cpu_count()} cores, shared (load average "
            f"{os.getloadavg()[0]:.1f} at the end). µs.",
            "",
            "| model | solver | CPU median | CPU p99.9 | CPU max | CPU max/median | wall median | "
            "wall p99.9 | wall max | re-analyses / fallbacks / rebases | status |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    text = "\n".join(head + rows) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
