"""A compiled step bound once to its arrays (``_engine.BoundStep``, src/rtmbs/engine/binding/
py_bound.c): ``solver.step`` passes the state alone. The bound step follows a state whose arrays
are replaced, leaves the arrays it no longer holds alone, counts into the solver's counters and
refuses a state of the wrong size."""
from __future__ import annotations

import numpy as np
import pytest

from _models.library import fresh_data
from rtmbs.engine import _engine as E
from rtmbs.solvers.base import get_solver

H = 1e-3
SOLVERS = [("li-euler", {}), ("explicit-euler", {}), ("generalized-alpha", {}),
           ("li-euler-indep", {"linear_solver": "sparse"})]


def _run(model, solver, opts, steps, replace_at=None):
    system = fresh_data(model)
    slv = get_solver(solver)(system, **opts)
    st = system.initial_state()
    slv.reset(st)
    assert isinstance(slv.bound, E.BoundStep)
    old = None
    for k in range(steps):
        if k == replace_at:  # the user's state gets new arrays (as State.copy() gives)
            old = st.q, st.qd, st.x
            st.q, st.qd, st.x = st.q.copy(), st.qd.copy(), st.x.copy()
            kept = tuple(a.copy() for a in old)
        assert slv.step(st, H)
    if old is not None:  # the arrays it held before are left as they were
        assert all(np.array_equal(a, b) for a, b in zip(old, kept))
    return slv, st


@pytest.mark.parametrize("solver,opts", SOLVERS, ids=[s for s, _ in SOLVERS])
@pytest.mark.parametrize("model", ["four-bar", "multilink-transient"])
def test_a_replaced_state_is_followed(model, solver, opts):
    _, a = _run(model, solver, opts, 40)
    _, b = _run(model, solver, opts, 40, replace_at=17)
    assert np.array_equal(a.q, b.q) and np.array_equal(a.qd, b.qd) and np.array_equal(a.x, b.x)
    assert a.t == b.t == pytest.approx(40 * H, rel=1e-15)
    if model == "multilink-transient":
        assert np.abs(a.x).max() > 0.0  # (the extra states went in and came back advanced)


def test_counts_go_to_the_solver():
    system = fresh_data("four-bar")
    slv = get_solver("li-euler")(system)
    st = system.initial_state()
    slv.reset(st)
    ne, nf, ns = slv._counts_per_step()
    for _ in range(7):
        slv.step(st, H)
    assert (slv.nstep, slv.neval, slv.nfactor, slv.nsolve) == (7, 7 * ne, 7 * nf, 7 * ns)
    assert (ne, nf, ns) == (4, 1, 3)  # projection: Φ at q + h q̇ and twice at the new positions
    slv.reset(st)
    assert (slv.nstep, slv.neval, slv.nfactor, slv.nsolve) == (0, 0, 0, 0)


def test_a_state_of_another_size_is_refused():
    system = fresh_data("four-bar")
    slv = get_solver("li-euler")(system)
    st = system.initial_state()
    slv.reset(st)
    with pytest.raises(ValueError, match=r"^li-euler: q and qd have 20 and 21 values, the model 21$"):
        slv.step(type(st)(t=0.0, q=st.q[:20].copy(), qd=st.qd), H)
    with pytest.raises(TypeError, match="^q: expected a C-contiguous aligned array of float64$"):
        slv.step(type(st)(t=0.0, q=st.q.astype(np.float32), qd=st.qd), H)
    assert slv.nstep == 0
