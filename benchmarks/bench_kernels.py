"""Time one full evaluation of M, Q, Φ, Φq, γ, Jq, Jq̇ (issue 2 speed target) on body models.

Two numbers per model: the call from Python (what a Python-driven solver pays) and the call from
compiled code (what a compiled step pays). Median of repeats, single-threaded.
Run: python benchmarks/bench_kernels.py [model ...]
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from numba import njit  # noqa: E402

from rtmbs.kernels.evaluate import evaluate_cartesian  # noqa: E402
from rtmbs.models import BUILTIN, load_model  # noqa: E402
from rtmbs.protocol import EVAL_ALL  # noqa: E402


@njit(cache=True)
def _loop(n_iter, what, t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, wbuf, n, m):
    for _ in range(n_iter):
        evaluate_cartesian(what, t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, wbuf, n, m)


def bench(name, repeats=15, n_iter=2000):
    s = load_model(name)
    st = s.initial_state()
    qd = st.qd + 0.1
    ws = s.workspace()
    args = (EVAL_ALL, 0.1, st.q, qd, *s.kernel_buffers(), ws.buf, s.n, s.m)
    _loop(10, *args)
    inner, outer = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        _loop(n_iter, *args)
        inner.append((time.perf_counter() - t0) / n_iter * 1e6)
        t0 = time.perf_counter()
        for _ in range(n_iter // 4):
            s.evaluate(0.1, st.q, qd, ws, EVAL_ALL)
        outer.append((time.perf_counter() - t0) / (n_iter // 4) * 1e6)
    return {"model": name, "nbody": s.nbody, "n": s.n, "m": s.m, "nforce": len(s.force_names),
            "us_compiled_median": float(np.median(inner)), "us_compiled_min": float(np.min(inner)),
            "us_from_python_median": float(np.median(outer))}


if __name__ == "__main__":
    names = sys.argv[1:] or [n for n in ("spatial-chain-10", "slider-crank", "mcpherson-overconstrained",
                                         "multilink-ideal", "multilink-bushings") if n in BUILTIN]
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    for nm in names:
        print(json.dumps(bench(nm)))
