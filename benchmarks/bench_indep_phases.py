"""Algorithm 2's compiled step (``li-euler-indep``, B = "partition", packed storage) phase by phase:
each compiled piece of :func:`rtmbs.solvers.compiled_indep.li_euler_indep_step` called 1000 times
in a compiled loop on the state after 200 steps, and the whole step (advancing its own copy of the
state, so every call takes the normal path: no re-mapping, no rebase), µs per call.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_indep_phases.py [--models peer-quarter-car,multilink-ideal]

Process CPU time, 5 rounds, medians (issue 11; the lead's phase table, with the step no longer
reset to the same state each call, which made every call take the CHANGED path).
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from numba import njit  # noqa: E402

from rtmbs.kernels.cartesian import _GAMMA, _M, _PACKED, _PHI, _PHIQ, _Q  # noqa: E402
from rtmbs.kernels.evaluate import evaluate_cartesian, packed_views  # noqa: E402
from rtmbs.kernels.layout_views import data_buffers, model_ints  # noqa: E402
from rtmbs.models import load_model  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402
from rtmbs.solvers.basis import b_R_Sc, b_factor, b_lambda, b_project_T, b_velocity  # noqa: E402
from rtmbs.solvers.compiled_indep import _views, li_euler_indep_step  # noqa: E402
from rtmbs.solvers.reduced import lambda_rhs, reduced  # noqa: E402

PHASES = ("eval M,Q,γ", "eval Jacobians", "eval M,Q,γ+Jacobians", "Φu factor", "R, S c",
          "reduced (eq. 28)", "λ", "eval Φ at q_p", "proj T", "eval Φq end", "velocity", "step")


@njit
def _loop(ph, reps, ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, fa, fb, pidx, cols, X, W, tmp,
          aidx, kib, kfb, kidx, vec, hpiv, q, qd, m, t, h, jac_what, qs, qds, noi, noo):
    n = q.shape[0]
    na = np.intp(aidx[0])
    (Rn, AR, H, Aval, Sc, r, x, w, dqd, dq, qp, qd_pred, q_last, qd_last, dzd, zd, zero_m, lam,
     prhs) = _views(vec, n, m, na)
    basis = (fa, fb, pidx, cols, X, W, tmp)
    pq = (w0, aidx)
    nb = model_ints(ibuf, ilay).body_qadr.shape[0] - 1
    nblk = model_ints(ibuf, ilay).blk_pair.shape[0]
    m1 = data_buffers(sbuf, slay).Dx.shape[0]
    _, Q, phi, _, phit, gamma, _, _ = packed_views(w0, n, m, nb, m1, nblk)
    _, _, phi1, _, _, _, _, _ = packed_views(w1, n, m, nb, m1, nblk)
    acc = 0.0
    code = 0
    for _ in range(reps):
        if ph == 0:
            evaluate_cartesian(_PACKED | _M | _Q | _GAMMA, t, q, qd, ibuf, ilay, fbuf, flay, sbuf,
                               slay, w0, n, m)
        elif ph == 1:
            evaluate_cartesian(_PACKED | jac_what, t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay,
                               w0, n, m)
        elif ph == 2:
            evaluate_cartesian(_PACKED | _M | _Q | _GAMMA | jac_what, t, q, qd, ibuf, ilay, fbuf,
                               flay, sbuf, slay, w0, n, m)
        elif ph == 3:
            acc += b_factor(basis, pq)[0]
        elif ph == 4:
            b_R_Sc(basis, pq, gamma, Rn, Sc)
        elif ph == 5:
            acc += reduced(aidx, w0, Q, qd, h, Rn, Sc, Aval, AR, H, hpiv, r, w, dzd, dqd)
        elif ph == 6:
            lambda_rhs(aidx, Aval, r, dqd, x)
            b_lambda(basis, x, lam, h)
        elif ph == 7:
            evaluate_cartesian(np.int64(_PACKED | _PHI), t + h, q, qd, ibuf, ilay, fbuf, flay,
                               sbuf, slay, w1, n, m)
        elif ph == 8:
            for i in range(n):
                dq[i] = 0.0
            b_project_T(basis, phi1, dq)
        elif ph == 9:
            evaluate_cartesian(np.int64(_PACKED | _PHIQ), t + h, q, qd, ibuf, ilay, fbuf, flay,
                               sbuf, slay, w0, n, m)
        elif ph == 10:
            b_velocity(basis, pq, phit, zero_m, 0.0, zd, qd_pred)
        else:  # the whole step on its own state (qs, qds): the normal path every call
            res = li_euler_indep_step(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, fa, fb, pidx,
                                      cols, X, W, tmp, aidx, kib, kfb, kidx, vec, hpiv, qs, qds, m,
                                      t, h, jac_what, True, True, 2, 0.0, 0.0, noi, noo)
            code |= res[0]
            t += h
    return acc, code


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="peer-quarter-car,multilink-ideal")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args(argv)
    for name in a.models.split(","):
        s = load_model(name)
        slv = get_solver("li-euler-indep")(s, B="partition", projection_solve="T")
        st = s.initial_state()
        slv.reset(st)
        for _ in range(200):
            slv.step(st, 1e-3)
        args = slv.kernel_args
        noi, noo = np.zeros(0, np.int64), np.zeros(0)
        bufs = (slv.vec, slv.st.w0, slv.st.w1, slv.basis.lu.fb)
        saved = [b.copy() for b in bufs]
        T = {p: [] for p in PHASES}
        for r in range(a.rounds + 1):
            for k, p in enumerate(PHASES):
                # the step advances copies of the state (``vec``'s q_last is the solver's state)
                ex = (st.q.copy(), st.qd.copy(), s.m, float(st.t), 1e-3, np.int64(slv.jac_flag),
                      st.q.copy(), st.qd.copy(), noi, noo)
                if p == "step":  # the step's buffers as the solver left them at st
                    for b, v in zip(bufs, saved):
                        b[:] = v
                t0 = time.process_time_ns()
                _, code = _loop(k, 1000 if r else 2, *args, *ex)
                if r:
                    T[p].append((time.process_time_ns() - t0) / 1e6)
                assert p != "step" or code in (0, 1)  # (OK: no CHANGED, no REBASE)
        print(f"{name} (n, m, f) = ({s.n}, {s.m}, {s.n - s.m}); µs per call, median of "
              f"{a.rounds}")
        print("| " + " | ".join(PHASES) + " |")
        print("| " + " | ".join(f"{np.median(T[p]):.2f}" for p in PHASES) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
