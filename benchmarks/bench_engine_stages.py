"""Where li-euler's step (projection, the default) spends its time in the C engine, stage by stage.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_engine_stages.py [--models ...] [--rounds 5]
        [--calls 2000]

The step (src/rtmbs/engine/li_euler.c) is: an evaluation at (t, q, q̇) of M, Q, Jq, Jq̇ (stiff),
Φq; an evaluation of Φq, Φ at the predictor q + h q̇; the gather of eq. 22's KKT matrix with the
products of its right-hand side and its LU refactorisation; one solve; the projection's solves
(each after an evaluation of Φ at the corrected positions but the first); the update. Each stage
is called here through the binding on the state the solver reached after ``--warmup`` steps,
``--calls`` times in a row, in process CPU time; the binding's own cost per call (a call of the
same arity that does no work: ``lu_pivot_range`` on the KKT, a few ns of work) is subtracted.
Printed: the median over rounds of each stage's µs per call, its count per step, the sum, and
the whole step from Python (``solver.step``) and rolled out for comparison; the rounds
interleave the models.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.engine import _engine, counters  # noqa: E402
from rtmbs.kernels.codes import _M, _PACKED, _PHI, _PHIQ, _Q  # noqa: E402
from rtmbs.models import load_model  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402
from rtmbs.solvers.rollout import rollout  # noqa: E402


def _cpu(fn, calls: int) -> float:
    t0 = time.process_time_ns()
    for _ in range(calls):
        fn()
    return (time.process_time_ns() - t0) * 1e-3 / calls


def stages(name: str, calls: int, warmup: int, h: float) -> dict:
    system = load_model(name)
    solver = get_solver("li-euler")(system)
    state = system.initial_state()
    solver.reset(state)
    for _ in range(warmup):
        solver.step(state, h)
    ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec = solver.kernel_args
    n, m = system.n, system.m
    bufs = (ibuf, ilay, fbuf, flay, sbuf, slay)
    q, qd, t = state.q.copy(), state.qd.copy(), float(state.t)
    qp = q + h * qd
    jx, phix, rhs = np.zeros(n), np.zeros(m), np.zeros(n + m)
    kfb_copy = kfb.copy()
    per = counters(system.data)["last_step"]
    nsolve = per["solves"]
    what0 = _PACKED | _M | _Q | solver.jac_flag | (_PHIQ if m else 0)

    def ev0():
        _engine.evaluate(what0, t, q, qd, *bufs, w0, n, m)

    def ev1():
        _engine.evaluate(_PACKED | _PHIQ | _PHI, t + h, qp, qd, *bufs, w1, n, m)

    def ev_phi():
        _engine.evaluate(_PACKED | _PHI, t + h, qp, qd, *bufs, w1, n, m)

    def factor():
        _engine.kkt_values_products_packed(kib, kfb_copy, kidx, w0, h * h, h, h, w1, qd, jx, phix)

    def solve():
        rhs[:] = 1.0
        _engine.lu_solve(kib, kfb_copy, rhs)

    def binding():
        _engine.lu_pivot_range(kib, kfb_copy)

    ev0(), ev1(), factor()  # (warm: the factors exist for the solves)
    base = _cpu(binding, calls)
    out = {
        "evaluation at q (M, Q, Jq, Jq̇, Φq)": (max(_cpu(ev0, calls) - base, 0.0), 1),
        "evaluation at q + hq̇ (Φq, Φ)": (max(_cpu(ev1, calls) - base, 0.0), 1),
        "evaluation of Φ (projection)": (max(_cpu(ev_phi, calls) - base, 0.0), per["evaluations"] - 2),
        "KKT gather + products + LU refactor": (max(_cpu(factor, calls) - base, 0.0), per["factorisations"]),
        "LU solve": (max(_cpu(solve, calls) - base, 0.0), nsolve),
    }
    step = _cpu(lambda: solver.step(state, h), calls)
    t0 = time.process_time_ns()
    rollout(solver, state, calls, h, outputs=False, every=calls)
    rolled = (time.process_time_ns() - t0) * 1e-3 / calls
    out["(the binding's cost per call, subtracted above)"] = (base, 0)
    out["sum of the stages"] = (sum(v * c for k, (v, c) in out.items() if not k.startswith("(")), 1)
    out["step from Python (solver.step)"] = (step, 1)
    out["step in the rollout"] = (rolled, 1)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="peer-four-bar,peer-quarter-car,multilink-ideal,sedan")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--h", type=float, default=1e-3)
    a = ap.parse_args(argv)
    models = a.models.split(",")
    runs = {name: [] for name in models}
    for _ in range(a.rounds):
        for name in models:
            runs[name].append(stages(name, a.calls, a.warmup, a.h))
    for name in models:
        print(f"\n{name}: µs per call (median over {a.rounds} rounds) × calls per step\n")
        print("| stage | µs per call | per step | µs per step |")
        print("| --- | --- | --- | --- |")
        for key in runs[name][0]:
            v = float(np.median([r[key][0] for r in runs[name]]))
            c = runs[name][0][key][1]
            print(f"| {key} | {v:.2f} | {c} | {v * c:.1f} |")


if __name__ == "__main__":
    main()
