"""Algorithm 2 (``li-euler-indep``, B = "partition", packed storage) in the C engine
(src/rtmbs/engine/li_euler_indep.c, partition.c): the data's own counters (rtmbs_count) against
the solver's when the caller changes the state between two steps (ż re-mapped inside the step).
(The comparisons of the C step with the numba kernels it replaced went with those kernels; the
C step against the dense Python-driven step: tests/solvers/test_dense_path.py.)"""
import numpy as np

from rtmbs.models import load_model
from rtmbs.solvers.base import get_solver


H = 1e-3
RTOL = 1e-10
NSTEPS = 250
CHANGE_AT = 150  # the caller halves q̇ before this step (ż re-mapped inside the compiled call)
CNT_EVAL, CNT_ELEMENT, CNT_FACTOR, CNT_SOLVE, CNT_FLOP, CNT_STEP = range(6)

# four-bar is small (n < 18): linear_solver="sparse" puts it on the compiled (packed) path
MODELS = {"four-bar": {"linear_solver": "sparse"}, "peer-quarter-car": {}, "multilink-ideal": {}}


def _counts(slv):
    return (slv.nstep, slv.neval, slv.nfactor, slv.nsolve, slv.nrebase, slv.nfallback)


def _close(name, got, want, where, normwise=False):
    """Per entry, relative to max(|want|, 1) (``normwise``: to max(max |want|, 1))."""
    got, want = np.asarray(got, float), np.asarray(want, float)
    assert got.shape == want.shape, where
    if want.size == 0:
        return 0.0
    scale = max(np.abs(want).max(), 1.0) if normwise else np.maximum(np.abs(want), 1.0)
    err = np.abs(got - want) / scale
    assert err.max() <= RTOL, f"{where}: {name} differs by {err.max():.2e} (relative)"
    return float(err.max())


def _run(model, options):
    system = load_model(model)
    slv = get_solver("li-euler-indep")(system, **options)
    assert slv.fused_step
    st = system.initial_state()
    st.qd *= 2.0  # (more motion)
    slv.reset(st)
    rows = []
    for k in range(NSTEPS):
        if k == CHANGE_AT:
            st.qd *= 0.5
        before = _counts(slv), system.data.counter.copy()
        ok = slv.step(st, H)
        rows.append(dict(ok=ok, t=st.t, q=st.q.copy(), qd=st.qd.copy(), lam=slv.lam.copy(),
                         zd=slv.zd.copy(), counts=_counts(slv), before=before,
                         engine=system.data.counter.copy(), cols=slv.cols.copy()))
        if not ok:
            break
    return slv, rows


def test_changed_state_step_counts_the_remapping():
    """The caller's change of q̇ costs one evaluation, factorisation and solve more, in C."""
    slv, rows = _run("multilink-ideal", {})
    (c0, e0), e1 = rows[CHANGE_AT]["before"], rows[CHANGE_AT]["engine"]
    (c0b, e0b), e1b = rows[CHANGE_AT - 1]["before"], rows[CHANGE_AT - 1]["engine"]
    cnt = [CNT_EVAL, CNT_FACTOR, CNT_SOLVE]
    assert list((e1 - e0)[cnt] - (e1b - e0b)[cnt]) == [1, 1, 1]
    assert tuple(np.subtract(rows[CHANGE_AT]["counts"], c0)[1:4]) == tuple(
        np.subtract(rows[CHANGE_AT - 1]["counts"], c0b)[1:4] + 1)
