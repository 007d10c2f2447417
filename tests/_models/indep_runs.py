"""Runs of ``li-euler-indep`` recorded step by step, and their bit-for-bit comparison (one
compiled call against the Python-driven step)."""
import numpy as np

from rtmbs.solvers.base import get_solver


def run_indep(system, options, nsteps=300, h=1e-3, change_at=None):
    """Per step: ok, t, q, q̇, λ and the counters (nstep, neval, nfactor, nsolve, nrebase,
    nfallback); the initial velocities doubled (more motion) and, before step ``change_at``,
    halved by the caller (ż must be re-mapped). Stops at a failed or non-finite step."""
    slv = get_solver("li-euler-indep")(system, **options)
    st = system.initial_state()
    st.qd *= 2.0
    slv.reset(st)
    rows = []
    for k in range(nsteps):
        if k == change_at:
            st.qd *= 0.5
        ok = slv.step(st, h)
        rows.append((ok, st.t, st.q.copy(), st.qd.copy(), slv.lam.copy(),
                     (slv.nstep, slv.neval, slv.nfactor, slv.nsolve, slv.nrebase, slv.nfallback)))
        if not ok or not np.isfinite(st.q).all():
            break
    return slv, rows


def assert_same_runs(a, b, where):
    """Two runs of :func:`run_indep` equal bit for bit, step by step."""
    assert len(a) == len(b), where
    for k, (x, y) in enumerate(zip(a, b)):
        for name, u, v in zip(("ok", "t", "q", "qd", "lam", "counts"), x, y):
            assert np.array_equal(u, v), f"{where}: {name} differs at step {k + 1}: {u} vs {v}"
