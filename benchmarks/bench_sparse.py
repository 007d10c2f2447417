"""µs per step of li-euler and li-euler-indep, dense against sparse linear algebra (one thread).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_sparse.py [--repeats 5] [--steps 500]
        [--models spatial-chain-10,multilink-ideal,multilink-bushings] [--out FILE]

For each built-in model with fixed sparsity patterns and each configuration, the same solver is
run with ``linear_solver="dense"`` and ``"sparse"`` (B="qr" is dense only) in the same process,
interleaved, so that the ratio is measured under the same machine load. Each block: reset at the
initial state, ``steps`` steps at h = 1 ms, timed in process CPU time; median (best) of
``repeats`` blocks. The dense path steps from Python with numpy and the engine's dense LU; the
sparse path is one call of the C engine per step (its stages: benchmarks/bench_engine_stages.py).
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import pathlib  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.models import BUILTIN, load_model  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402
from rtmbs.solvers.timing import cpu_model  # noqa: E402

#: stabilize is explicit (the default is "projection").
CONFIGS = [
    ("li-euler", {"stabilize": "none"}),
    ("li-euler", {"stabilize": "projection"}),
    ("li-euler", {"stabilize": "ggl"}),
    ("li-euler-indep", {"B": "qr", "stabilize": "none"}),
    ("li-euler-indep", {"B": "qr", "stabilize": "projection"}),
    ("li-euler-indep", {"B": "partition", "stabilize": "none"}),
    ("li-euler-indep", {"B": "partition", "stabilize": "projection"}),
    ("li-euler-indep", {"B": "partition", "stabilize": "projection", "projection_solve": "T"}),
]


def _block(slv, sysm, h, steps):
    st = sysm.initial_state()
    slv.reset(st)
    t0 = time.process_time()
    for _ in range(steps):
        if not slv.step(st, h):
            return None
    return (time.process_time() - t0) / steps * 1e6


def bench_pair(sysm, solver, opts, h, steps, repeats):
    """{linear_solver: (median, best, eval µs, rest µs, nanalyse)} measured interleaved."""
    kinds = ["dense"] + (["sparse"] if opts.get("B", "partition") == "partition" else [])
    slv = {k: get_solver(solver)(sysm, linear_solver=k, **opts) for k in kinds}
    times = {k: [] for k in kinds}
    for k in kinds:
        _block(slv[k], sysm, h, min(steps, 100))  # compile, caches
    for _ in range(repeats):
        for k in kinds:
            t = _block(slv[k], sysm, h, steps)
            times[k].append(np.nan if t is None else t)
    return {k: (float(np.median(times[k])), float(np.nanmin(times[k])),
                getattr(slv[k], "nanalyse", 0)) for k in kinds}


def _label(solver, opts):
    return solver + (" " + ", ".join(f"{k}={v}" for k, v in opts.items()) if opts else "")


def _machine():
    cpu = cpu_model()
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",) * 3
    return (f"{cpu}, {os.cpu_count()} cores (shared; load average {load[0]:.1f} "
            f"{load[1]:.1f} {load[2]:.1f} at the end), Python {platform.python_version()}, "
            f"numpy {np.__version__}, OPENBLAS_NUM_THREADS="
            f"{os.environ.get('OPENBLAS_NUM_THREADS')}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--h", type=float, default=1e-3)
    ap.add_argument("--models", default="spatial-chain-10,multilink-ideal,multilink-bushings")
    ap.add_argument("--out", default=None, help="write the markdown section here")
    args = ap.parse_args(argv)
    names = [m for m in args.models.split(",") if m in BUILTIN]
    lines = []
    for name in names:
        sysm = load_model(name)
        lines += [f"### {name} (n = {sysm.n}, m = {sysm.m}, f = {sysm.n - sysm.m})", "",
                  "| solver | dense µs/step | sparse µs/step | dense/sparse |",
                  "| --- | --- | --- | --- |"]
        for solver, opts in CONFIGS:
            r = bench_pair(sysm, solver, opts, args.h, args.steps, args.repeats)
            d = r["dense"]
            s = r.get("sparse")
            cell = lambda x: f"{x[0]:.1f} ({x[1]:.1f})"  # noqa: E731
            row = (f"| {_label(solver, opts)} | {cell(d)} | "
                   + (f"{cell(s)} | {d[0] / s[0]:.1f} |" if s else "— | — |"))
            if s and s[2]:
                row += f" ({s[2]} re-analyses)"
            print(name, row, flush=True)
            lines.append(row)
        lines.append("")
    head = [
        "## Sparse linear algebra in the real-time solvers (benchmarks/bench_sparse.py)",
        "",
        f"Machine: {_machine()}.",
        f"h = {args.h:g} s; µs per step, median of {args.repeats} blocks of {args.steps} steps "
        "(best block in brackets), process CPU time, dense and sparse blocks interleaved in one "
        "process so the ratio is measured under the same load.",
        "",
    ]
    text = "\n".join(head + lines) + "\n"
    if args.out:
        pathlib.Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
