"""What would the velocity unknowns of a ``li-euler`` step cost in its linear algebra?
(where the remaining time of a step goes).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_formulation.py [--models peer-quarter-car,...]
        [--rounds 7] [--reps 3000]

The seeds' dependent Cartesian coordinates give each Euler-parameter body 7 velocity unknowns
(ṙ, ṗ) and one normalisation row, so the KKT matrix of Carpinelli 2016 eq. 22 is n + m wide (the
quarter car: 42 + 38 = 80). Three versions of that matrix, from the same dense evaluation after
50 steps of ``li-euler`` (M, Q, Φq, the stiff Jq, Jq̇ at q; Φq at q + hq̇; h = 1 ms):

1. Euler-parameter rates with each body's full 7 × 7 mass block in the pattern (``li-euler``
   until 27 Nov 2026);
2. the same with M's own structure (m I₃ and the rotation block, ``mass_structure``: ``li-euler``
   now);
3. *body twists* (ṙ, ω, 6 per body, as Chrono's and Exudyn's Lie-group bodies: ṗ = ½ Gᵀ ω):

       [Tᵀ A T     h Tᵀ Φqᵀ] [Δν]   [Tᵀ (hQ + h² Jq q̇)]
       [Φq T          0    ] [λ ] = [      ...        ],    T = blockdiag(I₃, ½ Gᵀ(p)) per body,

   where the normalisation rows vanish (G p = 0: they are dropped) and Tᵀ M T = blockdiag(m I₃,
   J) needs no augmentation; its pattern is the structural product (no accidental zeros).

Each is analysed by ``SparseKKT`` (its ordering, augmentation, pivots) and ``lu_refactor`` and
one ``lu_solve_sp`` (the C engine's) are timed in loops of calls from Python (each call adds
Python's call overhead, a fraction of a µs, to both versions alike), the versions interleaved, process CPU time.
For the peer mechanisms MuJoCo's size is printed beside (nv, and the rows of its loop-closing
``connect`` equalities, from ``benchmarks/peers``). Version 3 is not a solver: the experiment
measures what a twist formulation would save in the LU and solves only.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.kernels.codes import NROT, ROT_EP  # noqa: E402
from rtmbs.models import load_model  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402
from rtmbs.protocol import EVAL_JAC_STIFF, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q  # noqa: E402
from rtmbs.solvers.sparse import SparseKKT, kkt_hubs, lu_refactor, lu_solve_sp  # noqa: E402


def twist_map(system, q):
    """T (n × n') with Δq̇ = T Δν: identity on translations and non-Euler-parameter rotations,
    ½ Gᵀ(p) on each body's Euler parameters; its structure; each body's columns in ν (hubs)."""
    n = system.n
    cols, T, P, j = [], np.zeros((n, n)), np.zeros((n, n), bool), 0
    for a, r in zip(np.asarray(system.body_qadr), np.asarray(system.body_rtype)):
        if a < 0:
            continue
        a, nr = int(a), int(NROT[r])
        j0 = j
        P[range(a, a + 3), range(j, j + 3)] = True
        T[range(a, a + 3), range(j, j + 3)] = 1.0
        j += 3
        if r == ROT_EP:
            e0, e1, e2, e3 = q[a + 3:a + 7]
            G = np.array([[-e1, e0, e3, -e2], [-e2, -e3, e0, e1], [-e3, e2, -e1, e0]])
            T[a + 3:a + 7, j:j + 3] = 0.5 * G.T
            P[a + 3:a + 7, j:j + 3] = True
            j += 3
        else:
            P[range(a + 3, a + 3 + nr), range(j, j + nr)] = True
            T[range(a + 3, a + 3 + nr), range(j, j + nr)] = 1.0
            j += nr
        cols.append(np.arange(j0, j))
    return T[:, :j], P[:, :j], cols


def _bool_product(*mats):
    out = mats[0].astype(np.int64)
    for b in mats[1:]:
        out = out @ b.astype(np.int64)
    return out > 0


def kkts(name, h=1e-3):
    """li-euler's KKT of eq. 22 after 50 steps, factorised three ways (``SparseKKT``: its
    ordering, augmentation and pivots): as compiled (Euler-parameter rates, each body's full
    mass block in the pattern), with M's exact structure, and in body twists (M's exact
    structure, no normalisation rows)."""
    s = load_model(name)
    slv = get_solver("li-euler")(s)
    st = s.initial_state()
    slv.reset(st)
    for _ in range(50):
        slv.step(st, h)
    ws, ws1 = s.workspace(), s.workspace()
    s.evaluate(st.t, st.q, st.qd, ws, EVAL_M | EVAL_Q | EVAL_PHIQ | EVAL_JAC_STIFF)
    s.evaluate(st.t, st.q + h * st.qd, st.qd, ws1, EVAL_PHIQ | EVAL_PHI)
    full, exact = np.asarray(s.mass_pattern, bool), np.asarray(s.mass_structure, bool)
    jp = np.asarray(s.jacobian_pattern(True), bool)
    pp = np.asarray(s.phiq_pattern, bool)
    hubs = kkt_hubs(s)
    out = []
    for mp in (full, exact):
        k = SparseKKT(mp | jp, pp, hubs=hubs, augment_pattern=mp)
        k.factor(ws.M, ws.Jq, ws.Jqd, h * h, h, ws.phiq, h, ws1.phiq)
        out.append(k)
    T, P, body_cols = twist_map(s, st.q)
    keep = np.ones(s.m, bool)
    keep[[int(r) for r in np.asarray(s.body_eprow) if r >= 0]] = False
    mp_t, jp_t = _bool_product(P.T, exact, P), _bool_product(P.T, jp, P)
    pp_t = _bool_product(pp, P)[keep]
    hubs_t = [c for c in body_cols if any(np.array_equal(np.nonzero(P[:, c].any(axis=1))[0], hb)
                                          for hb in hubs)]
    k = SparseKKT(mp_t | jp_t, pp_t, hubs=hubs_t, augment_pattern=mp_t)
    k.factor(T.T @ ws.M @ T, T.T @ ws.Jq @ T, T.T @ ws.Jqd @ T, h * h, h, (ws.phiq @ T)[keep], h,
             (ws1.phiq @ T)[keep])
    out.append(k)
    return out


def mujoco_size(name):
    """(nv, connect rows) of the MuJoCo peer, or None."""
    here = Path(__file__).resolve().parent / "peers"
    sys.path.insert(0, str(here))
    try:
        import mujoco
        from mechanisms import mechanism
        from mujoco_peers import TREES, mjcf
    except ImportError:
        return None
    if name not in TREES:
        return None
    model = mujoco.MjModel.from_xml_string(mjcf(mechanism(name)))
    return model.nv, 3 * int(model.neq)


def _loop(ib, fb, b, x, reps, solve):
    for _ in range(reps):
        if solve:
            x[:] = b
            lu_solve_sp(ib, fb, x)
        else:
            lu_refactor(ib, fb)


def timed(lus, rounds, reps):
    """Median µs of one refactorisation and of one solve per LU (each ``reps`` times in one
    loop), the LUs interleaved round by round."""
    rhs = [np.random.default_rng(0).standard_normal(lu.N) for lu in lus]
    times = {}
    for r in range(rounds + 1):  # (round 0 compiles and warms)
        for k, (lu, b) in enumerate(zip(lus, rhs)):
            for solve in (False, True):
                x = b.copy()
                t0 = time.process_time_ns()
                _loop(lu.ib, lu.fb, b, x, reps if r else 10, solve)
                if r:
                    times.setdefault((k, solve), []).append(
                        (time.process_time_ns() - t0) / reps / 1e3)
    return [(float(np.median(times[(k, False)])), float(np.median(times[(k, True)])))
            for k in range(len(lus))]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="peer-four-bar,peer-chain,peer-quarter-car,multilink-ideal")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--reps", type=int, default=5000)
    args = ap.parse_args(argv)
    print("N (n + m), multiply-adds, refactor / one solve µs (median); the ratio: refactor + 3 "
          "solves against li-euler's")
    print()
    print("| model | Euler-parameter rates, each body's full mass block (li-euler to 27 Nov) "
          "| M's own structure (li-euler now) | body twists | MuJoCo nv + connect rows |")
    print("| --- | --- | --- | --- | --- |")
    for name in args.models.split(","):
        ks = kkts(name)
        times = timed([k.lu for k in ks], args.rounds, args.reps)
        base = times[0][0] + 3 * times[0][1]
        cells = []
        for k, (tf, ts) in zip(ks, times):
            km = k.map
            cells.append(f"{km.n + km.m} ({km.n} + {km.m}), {k.lu.flops}, {tf:.2f} / {ts:.2f}"
                         f" ({(tf + 3 * ts) / base:.2f})")
        mj = mujoco_size(name)
        print(f"| {name} | " + " | ".join(cells) + f" | {f'{mj[0]} + {mj[1]}' if mj else '—'} |",
              flush=True)


if __name__ == "__main__":
    main()
