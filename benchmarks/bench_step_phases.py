"""Where the time of one compiled ``li-euler`` step goes (issue 11): an instrumented copy of the
phases of :func:`rtmbs.solvers.compiled_step.li_euler_step`, each repeated in a compiled loop.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_step_phases.py [--models peer-quarter-car,...]
        [--rounds 7] [--reps 2000]

Phases (default li-euler: projection with the step's factors, implicit positions, 2 projection
solves): evaluation at q (M, Q, Φq, Jq, Jq̇), evaluation at q_p (Φq, Φ), the gather of the KKT
values, the LU (``lu_refactor``), one triangular solve (``lu_solve_sp``), one Φ-only evaluation
(the projection does two, with a solve each), and the whole step. Every phase runs ``reps``
times in one compiled call on the state after 200 steps; process CPU time; ``rounds`` rounds
interleaved over phases; median (min) µs per call. Not the product path.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from numba import njit  # noqa: E402

from rtmbs.kernels.cartesian import _M, _PACKED, _PHI, _PHIQ, _Q  # noqa: E402
from rtmbs.kernels.evaluate import evaluate_cartesian  # noqa: E402
from rtmbs.models import load_model  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402
from rtmbs.solvers.compiled_step import li_euler_step  # noqa: E402
from rtmbs.solvers.sparse import _H_NE, _extras, kkt_gather_packed, lu_refactor, lu_solve_sp  # noqa: E402

PHASES = ("eval q (M,Q,Φq,Jq)", "eval q_p (Φq,Φ)", "gather", "LU", "solve", "eval Φ", "step")


@njit
def _loop(phase, reps, what0, ib_, il, fb_, fl, sb, sl, w0, w1, kib, kfb, kidx, vec, q, qd, m, h,
          rhs0, rhs, qs, qds, jac):
    n = q.shape[0]
    ne = np.intp(kib[_H_NE])
    cval = _extras(kib, kfb)[4]
    acc = 0.0
    for _ in range(reps):
        if phase == 0:
            evaluate_cartesian(what0, 0.0, q, qd, ib_, il, fb_, fl, sb, sl, w0, n, m)
        elif phase == 1:
            evaluate_cartesian(np.int64(_PACKED | _PHIQ | _PHI), h, q, qd, ib_, il, fb_, fl, sb, sl, w1, n,
                               m)
        elif phase == 2:
            kkt_gather_packed(kidx, w0, h * h, h, h, w1, kfb[:ne], cval)
        elif phase == 3:
            acc += lu_refactor(kib, kfb)[0]
        elif phase == 4:
            for i in range(rhs.shape[0]):
                rhs[i] = rhs0[i]
            lu_solve_sp(kib, kfb, rhs)
        elif phase == 5:
            evaluate_cartesian(np.int64(_PACKED | _PHI), h, q, qd, ib_, il, fb_, fl, sb, sl, w1, n, m)
        else:
            for i in range(n):
                qs[i] = q[i]
                qds[i] = qd[i]
            acc += li_euler_step(ib_, il, fb_, fl, sb, sl, w0, w1, kib, kfb, kidx, vec, qs, qds, m,
                                 0.0, h, jac, True, True, 2, kidx[:0], rhs[:0])[0]
    return acc


def profile(name, rounds, reps, h=1e-3):
    s = load_model(name)
    if "drive_torque" in s.input_names:
        s.set_input("drive_torque", 100.0)
    slv = get_solver("li-euler")(s)
    st = s.initial_state()
    slv.reset(st)
    for _ in range(200):
        slv.step(st, h)
    if not slv.fused:
        raise SystemExit(f"{name}: li-euler is not on the compiled path")
    n, m = s.n, s.m
    args = slv.kernel_args
    what0 = np.int64(_PACKED | _M | _Q | slv.jac_flag | (_PHIQ if m else 0))
    lu = slv.skkt.lu
    rhs0 = np.random.default_rng(0).standard_normal(n + m)
    extra = (st.q.copy(), st.qd.copy(), m, h, rhs0, rhs0.copy(), st.q.copy(), st.qd.copy(),
             np.int64(slv.jac_flag))
    times = {p: [] for p in PHASES}
    for k in range(len(PHASES)):  # compile, warm
        _loop(k, 10, what0, *args, *extra)
    for _ in range(rounds):
        for k, p in enumerate(PHASES):
            t0 = time.process_time_ns()
            _loop(k, reps, what0, *args, *extra)
            times[p].append((time.process_time_ns() - t0) / reps / 1e3)
    flops = lu.flops
    return n, m, lu.N, lu.nnz, flops, {p: (float(np.median(v)), float(np.min(v))) for p, v in times.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="peer-quarter-car,multilink-ideal,sedan")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--reps", type=int, default=2000)
    a = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f}")
    print("| model | n, m, KKT N, LU nnz, multiply-adds | " + " | ".join(PHASES) + " | sum of parts |")
    print("| --- " * (len(PHASES) + 3) + "|")
    for name in a.models.split(","):
        reps = max(50, a.reps // (1 + (name.startswith("sedan")) * 9))
        n, m, N, nnz, fl, t = profile(name, a.rounds, reps)
        parts = (t[PHASES[0]][0] + t[PHASES[1]][0] + t["gather"][0] + t["LU"][0]
                 + 3 * t["solve"][0] + 2 * t["eval Φ"][0])
        cells = " | ".join(f"{v[0]:.1f} ({v[1]:.1f})" for v in t.values())
        print(f"| {name} | {n}, {m}, {N}, {nnz}, {fl} | {cells} | {parts:.1f} |", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
