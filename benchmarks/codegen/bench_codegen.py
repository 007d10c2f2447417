"""Straight-line generated LU (rtmbs.codegen) against lu_refactor + lu_solve_sp (issue 11).

    OPENBLAS_NUM_THREADS=1 python benchmarks/codegen/bench_codegen.py \
        [--models peer-four-bar,peer-quarter-car,multilink-ideal] [--rounds 7] [--calls 2000]
        [--backends "c,c:-O2,numba"] [--numba-max-flops 30000]

For each model: ``li-euler`` with its default options (the compiled step: eq. 22's KKT gathered
and factored once, then 1 + ``projection_solves`` = 3 solves), reset and stepped 20 times; its
``SparseLU`` is handed to the generator (C through the system compiler and ctypes, -O3
-march=native unless ``c:FLAGS`` is given; numba through llvmlite IR intrinsics). Reported:
generation + compile CPU seconds, code size, the largest difference of factors and solution
against lu_refactor / lu_solve_sp, and per-call process CPU time
(clock_gettime(CLOCK_PROCESS_CPUTIME_ID) read from compiled code around each call, the median
cost of an empty pair of reads subtracted) of refactor and of one solve, the variants and the
whole ``solver.step`` (timed from Python with time.process_time_ns, as ``rtmbs bench``)
interleaved in ``rounds`` rounds of ``calls`` calls each. The whole-step estimate is
step − (refactor + 3 solves) + (generated refactor + 3 generated solves), medians.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse  # noqa: E402
import ctypes  # noqa: E402
import platform  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from numba import njit  # noqa: E402

from rtmbs.codegen import build_c, build_numba, compiler  # noqa: E402
from rtmbs.codegen.build import CFLAGS  # noqa: E402
from rtmbs.models import load_model  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402
from rtmbs.solvers.sparse import lu_refactor, lu_solve_sp  # noqa: E402

_libc = ctypes.CDLL(None)
_gettime = _libc.clock_gettime
_gettime.argtypes = (ctypes.c_int, ctypes.c_void_p)
_gettime.restype = ctypes.c_int
CLOCK_PROCESS_CPUTIME_ID = 2


@njit
def _now(ts):
    _gettime(CLOCK_PROCESS_CPUTIME_ID, ts.ctypes.data)
    return ts[0] * 1e9 + ts[1]


@njit
def _overhead(ts, out):
    for i in range(out.shape[0]):
        t0 = _now(ts)
        out[i] = _now(ts) - t0


def _loop(refactor, solve):
    """A compiled loop timing ``refactor(ib, fb, aux)`` and ``solve(ib, fb, x, aux)`` per call."""

    @njit
    def run(ib, fb, aux, b, x, ts, tf, tsol):
        for i in range(tf.shape[0]):
            t0 = _now(ts)
            refactor(ib, fb, aux)
            t1 = _now(ts)
            for j in range(b.shape[0]):
                x[j] = b[j]
            t2 = _now(ts)
            solve(ib, fb, x, aux)
            t3 = _now(ts)
            tf[i] = t1 - t0
            tsol[i] = t3 - t2
    return run


def variants(gens):
    out = {}

    @njit
    def ref_f(ib, fb, aux):
        lu_refactor(ib, fb)

    @njit
    def ref_s(ib, fb, x, aux):
        lu_solve_sp(ib, fb, x)

    out["lu_refactor + lu_solve_sp (numba, index arrays)"] = _loop(ref_f, ref_s)
    if "numba" in gens:
        nf, ns = gens["numba"].nb_refactor, gens["numba"].nb_solve

        @njit
        def nb_f(ib, fb, aux):
            nf(fb)

        @njit
        def nb_s(ib, fb, x, aux):
            ns(fb, x)

        out["generated, numba (LLVM IR intrinsics)"] = _loop(nb_f, nb_s)
    for be, g in gens.items():
        if be.startswith("c"):
            out[f"generated, C (cc {' '.join(g.cflags[:-3])}, ctypes)"] = _c_loop(g)
    return out


def _c_loop(g):
    cf, cs = g.c_refactor, g.c_solve

    @njit
    def c_f(ib, fb, aux):
        cf(fb.ctypes.data, aux.ctypes.data)

    @njit
    def c_s(ib, fb, x, aux):
        cs(fb.ctypes.data, x.ctypes.data)

    return _loop(c_f, c_s)


def _stats(a):
    return np.median(a), np.percentile(a, 99.9), a.max()


def bench_model(name, rounds, calls, backends, numba_max_flops):
    sysm = load_model(name)
    slv = get_solver("li-euler")(sysm)
    st = sysm.initial_state()
    slv.reset(st)
    for _ in range(20):
        slv.step(st, 1e-3)
    lu = slv.skkt.lu
    nsolve = 1 + slv.projection_solves
    fb0 = lu.fb.copy()
    rng = np.random.default_rng(1)
    b = rng.standard_normal(lu.N)
    # reference results
    lu_refactor(lu.ib, lu.fb)
    x_ref = b.copy()
    lu_solve_sp(lu.ib, lu.fb, x_ref)
    f_ref = lu.fb[:lu.ne + lu.nnz].copy()
    info = dict(N=lu.N, ne=lu.ne, nnz=lu.nnz, flops=lu.flops, nsolve=nsolve, gens={})
    gens = {}
    for be in backends:
        if be == "numba" and lu.flops > numba_max_flops:
            print(f"{name}: numba back-end skipped ({lu.flops} multiply-adds > "
                  f"--numba-max-flops {numba_max_flops})")
            continue
        t0 = time.process_time()
        # a fresh directory: a cold build (numba's cache is keyed on the module's path)
        tmp = tempfile.mkdtemp(prefix="rtmbs-codegen-")
        if be.startswith("c"):  # "c" or "c:FLAGS" (FLAGS replace -O3 -march=native)
            flags = tuple(be[2:].split()) if ":" in be else CFLAGS[:-3]
            g = build_c(lu, cache_dir=tmp, cflags=flags + CFLAGS[-3:])
            g.cflags = flags + CFLAGS[-3:]
        else:
            g = build_numba(lu, cache_dir=tmp)
        gen_s = time.process_time() - t0  # generation (+ numba compile, in process)
        lu.fb[:] = fb0
        g.refactor()
        x = b.copy()
        g.solve(x)
        df = np.abs(lu.fb[:lu.ne + lu.nnz] - f_ref).max() / np.abs(f_ref).max()
        dx = np.abs(x - x_ref).max() / np.abs(x_ref).max()
        gens[be] = g
        info["gens"][be] = dict(compile_s=g.compile_s, gen_s=gen_s, lines=g.lines,
                                src_kb=g.source_bytes / 1024,
                                so_kb=(g.binary_bytes or 0) / 1024, dfactor=df, dx=dx)
    lu.fb[:] = fb0
    loops = variants(gens)
    ts = np.zeros(2, np.int64)
    aux = np.zeros(2)
    x = np.zeros(lu.N)
    res = {k: ([], []) for k in loops}
    ovh, step = [], []
    for k, run in loops.items():  # compile the loops
        run(lu.ib, lu.fb, aux, b, x, ts, np.zeros(5), np.zeros(5))
    st = sysm.initial_state()
    slv.reset(st)
    for r in range(rounds):
        o = np.zeros(calls)
        _overhead(ts, o)
        ovh.append(o)
        for k, run in loops.items():
            lu.fb[:] = fb0
            tf, tsol = np.zeros(calls), np.zeros(calls)
            run(lu.ib, lu.fb, aux, b, x, ts, tf, tsol)
            res[k][0].append(tf)
            res[k][1].append(tsol)
        ss = np.zeros(min(calls, 1000))
        pt = time.process_time_ns
        for i in range(ss.size):
            t0 = pt()
            slv.step(st, 1e-3)
            ss[i] = pt() - t0
        step.append(ss)
    lu.fb[:] = fb0
    o = np.median(np.concatenate(ovh))
    info["timer_ns"] = o
    info["times"] = {k: (np.concatenate(f) - o, np.concatenate(s) - o) for k, (f, s) in res.items()}
    o_py = _python_timer_overhead()
    info["step"] = np.concatenate(step) - o_py
    info["py_timer_ns"] = o_py
    return info


def _python_timer_overhead(n=20000):
    pt = time.process_time_ns
    a = np.zeros(n)
    for i in range(n):
        t0 = pt()
        a[i] = pt() - t0
    return float(np.median(a))


def report(name, info):
    us = 1e-3
    print(f"\n### {name}: KKT N = {info['N']}, entries {info['ne']}, factor non-zeros "
          f"{info['nnz']}, multiply-adds {info['flops']}; {info['nsolve']} solves per step")
    print("\n| back-end | compile CPU s (generation + compile) | generated lines | source kB | "
          ".so kB | max rel. diff factors / solution vs lu_refactor |")
    print("| --- | --- | --- | --- | --- | --- |")
    for be, g in info["gens"].items():
        print(f"| {be} | {g['compile_s']:.1f} ({g['gen_s']:.1f}) | {g['lines']} | "
              f"{g['src_kb']:.0f} | {g['so_kb']:.0f} | {g['dfactor']:.1e} / {g['dx']:.1e} |")
    print(f"\nper call, µs: median / p99.9 / max (CPU timer pair {info['timer_ns']:.0f} ns "
          "subtracted)\n")
    print("| variant | refactor | one solve | refactor + solve (medians) | "
          f"refactor + {info['nsolve']} solves |")
    print("| --- | --- | --- | --- | --- |")
    lu_part = {}
    for k, (f, s) in info["times"].items():
        fm, f9, fx = (v * us for v in _stats(f))
        sm, s9, sx = (v * us for v in _stats(s))
        lu_part[k] = fm + info["nsolve"] * sm
        print(f"| {k} | {fm:.2f} / {f9:.2f} / {fx:.1f} | {sm:.2f} / {s9:.2f} / {sx:.1f} | "
              f"{fm + sm:.2f} | {lu_part[k]:.2f} |")
    sm, s9, sx = (v * us for v in _stats(info["step"]))
    base = next(iter(lu_part.values()))
    print(f"\nwhole `li-euler` step (solver.step from Python, process_time_ns, "
          f"{info['py_timer_ns']:.0f} ns timer subtracted): median {sm:.1f}, p99.9 {s9:.1f}, "
          f"max {sx:.0f} µs")
    for k, v in list(lu_part.items())[1:]:
        print(f"- estimated step with {k}: {sm:.1f} − {base:.1f} + {v:.1f} = "
              f"{sm - base + v:.1f} µs")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="peer-four-bar,peer-quarter-car,multilink-ideal")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--backends", default="c,numba",
                    help="comma-separated: c, numba, or c:FLAGS (optimisation flags instead of "
                    "-O3 -march=native, e.g. 'c:-O2')")
    ap.add_argument("--numba-max-flops", type=int, default=30000,
                    help="skip the numba back-end above this many multiply-adds (LLVM's time and "
                    "memory on one function of that length: the multilink's 48.6k did not "
                    "compile in 20 min / 4.4 GB)")
    a = ap.parse_args(argv)
    backends = [b for b in a.backends.split(",") if b]
    if compiler() is None and any(b.startswith("c") for b in backends):
        print("no C compiler: C back-end skipped")
        backends = [b for b in backends if not b.startswith("c")]
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}, numpy {np.__version__}; compiler {compiler()}; "
          f"load average {os.getloadavg()[0]:.1f} at the start")
    for name in a.models.split(","):
        info = bench_model(name, a.rounds, a.calls, backends, a.numba_max_flops)
        report(name, info)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
