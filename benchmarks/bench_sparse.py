"""µs per step of li-euler and li-euler-indep, dense against sparse linear algebra (one thread).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_sparse.py [--repeats 5] [--steps 500]
        [--models spatial-chain-10,multilink-ideal,multilink-bushings] [--out FILE]

For each built-in model with fixed sparsity patterns and each configuration, the same solver is
run with ``linear_solver="dense"`` and ``"sparse"`` (B="qr" is dense only) in the same process,
interleaved, so that the ratio is measured under the same machine load. Each block: reset at the
initial state, ``steps`` steps at h = 1 ms; median (best) of ``repeats`` blocks. The split between
model evaluation (``system.evaluate``: phases evaluation + jacobians) and the rest (linear algebra
and Python glue) comes from one instrumented block (the timers add ~0.1-0.3 µs per phase).
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

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
    t0 = time.perf_counter()
    for _ in range(steps):
        if not slv.step(st, h):
            return None
    return (time.perf_counter() - t0) / steps * 1e6


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
    out = {}
    for k in kinds:
        inst = get_solver(solver)(sysm, linear_solver=k, instrument=True, **opts)
        _block(inst, sysm, h, steps)
        ph = inst.phase_times_us()
        ev = ph["evaluation"] + ph["jacobians"]
        rest = sum(ph.values()) - ev
        out[k] = (float(np.median(times[k])), float(np.nanmin(times[k])), ev, rest,
                  getattr(slv[k], "nanalyse", 0))
    return out


def _best(fn, calls=200, repeats=7):
    fn()
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls * 1e6)
    return best


def components(sysm, h):
    """Best-of-repeats µs of the pieces of one step (less sensitive to load than the medians)."""
    st = sysm.initial_state()
    out = {}
    li = {k: get_solver("li-euler")(sysm, linear_solver=k, stabilize="none")
          for k in ("dense", "sparse")}
    for slv in li.values():
        slv.reset(st.copy())
        slv._evaluate(0.0, st.q, st.qd, slv.what0)
        slv._evaluate(0.0, st.q, st.qd, slv.jac_flag)
    s = li["sparse"]
    ws, ws1 = s.ws, s.ws1
    out["evaluate M, Q, Φq"] = _best(lambda: sysm.evaluate(0.0, st.q, st.qd, ws, s.what0))
    out["evaluate Jq, Jq̇ (stiff)"] = _best(lambda: sysm.evaluate(0.0, st.q, st.qd, ws, s.jac_flag))
    out["evaluate Φq, Φt (at q + Δq / at the end)"] = _best(
        lambda: sysm.evaluate(0.0, st.q, st.qd, ws1, s.what1))
    sysm.evaluate(0.0, st.q, st.qd, ws1, s.what1)
    lu = s.skkt.lu
    out["li-euler KKT: N, entries, factor non-zeros, multiply-adds"] = (
        f"{lu.N}, {lu.ne}, {lu.nnz}, {lu.flops}")
    for k, slv in li.items():
        out[f"li-euler eq. 22 gather + factor + solve, {k}"] = _best(
            lambda slv=slv: slv._factor_solve(slv.ws, ws1, st.q, st.qd, 0.0, h, slv.zero_m))
    if sysm.m:
        al = {k: get_solver("li-euler-indep")(sysm, B="partition", linear_solver=k,
                                              stabilize="none")
              for k in ("dense", "sparse")}
        for slv in al.values():
            slv.reset(st.copy())
            slv._evaluate(0.0, st.q, st.qd, slv.what0)
            slv._evaluate(0.0, st.q, st.qd, slv.jac_flag)
        lu = al["sparse"].splu
        out["Φu: m, entries, factor non-zeros, multiply-adds"] = (
            f"{lu.N}, {lu.ne}, {lu.nnz}, {lu.flops}")
        for k, slv in al.items():
            out[f"li-euler-indep R, Sc, eq. 28, λ, {k}"] = _best(
                lambda slv=slv: slv._middle(slv.ws, st.qd, h))
            out[f"li-euler-indep factor Φu + velocity solve, {k}"] = _best(
                lambda slv=slv: (slv._factor_T(), slv._velocity(st.qd, 0.0)))
    return out


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
                  "Pieces of a step (µs, best of 7 × 200 calls):", "",
                  "| piece | µs |", "| --- | --- |"]
        for key, v in components(sysm, args.h).items():
            lines.append(f"| {key} | {v if isinstance(v, str) else f'{v:.1f}'} |")
            print(name, lines[-1], flush=True)
        lines += ["", "Whole steps:", "",
                  "| solver | dense µs/step | sparse µs/step | dense/sparse | dense: eval + rest "
                  "| sparse: eval + rest |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for solver, opts in CONFIGS:
            r = bench_pair(sysm, solver, opts, args.h, args.steps, args.repeats)
            d = r["dense"]
            s = r.get("sparse")
            cell = lambda x: f"{x[0]:.1f} ({x[1]:.1f})"  # noqa: E731
            split = lambda x: f"{x[2]:.1f} + {x[3]:.1f}"  # noqa: E731
            row = (f"| {_label(solver, opts)} | {cell(d)} | "
                   + (f"{cell(s)} | {d[0] / s[0]:.1f} | {split(d)} | {split(s)} |" if s else
                      f"— | — | {split(d)} | — |"))
            if s and s[4]:
                row += f" ({s[4]} re-analyses)"
            print(name, row, flush=True)
            lines.append(row)
        lines.append("")
    head = [
        "## Sparse linear algebra in the real-time solvers (benchmarks/bench_sparse.py)",
        "",
        f"Machine: {_machine()}.",
        f"h = {args.h:g} s; µs per step, median of {args.repeats} blocks of {args.steps} steps "
        "(best block in brackets), dense and sparse blocks interleaved in one process so the "
        "ratio is measured under the same load. 'eval' = `system.evaluate` (phases evaluation + "
        "jacobians), 'rest' = linear algebra and glue, from one instrumented block.",
        "",
    ]
    text = "\n".join(head + lines) + "\n"
    if args.out:
        pathlib.Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
