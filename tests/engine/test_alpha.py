"""The generalized-alpha step of the C engine (src/rtmbs/engine/generalized_alpha.c, bound to
its arrays as ``_engine.BoundStep("generalized-alpha", ...)``): every option set (stabilize
velocity / projection / none, jacobian all / stiff, 1 and 3 Newton corrections) on peer-quarter-car, multilink-ideal with
transient tyres (extra states) and four-bar, 200 steps of 1 ms, the engine's own counters grow
by the solver's counts and the LU's multiply-adds (from its own plan) in every step; the
arguments are checked. (The comparisons with the numba kernels it replaced went with them; the
trajectories against the recorded golden ones: test_golden.py; against the dense Python-driven
step: tests/solvers/test_dense_path.py.)
"""
from __future__ import annotations

import numpy as np
import pytest

from _models.library import fresh_data
from rtmbs.engine import _engine as E
from rtmbs.solvers.base import get_solver

H = 1e-3
N = 200
#: the engine's counters (rtmbs.h rtmbs_counter)
CNT_EVAL, CNT_ELEMENT, CNT_FACTOR, CNT_SOLVE, CNT_FLOP, CNT_STEP = range(6)
MODELS = ["peer-quarter-car", "multilink-transient", "four-bar"]
OPTIONS = [dict(stabilize=s, jacobian=j, newton_iterations=k)
           for s in ("velocity", "projection", "none") for j in ("all", "stiff") for k in (1, 3)]
IDS = [f"{o['stabilize']}-{o['jacobian']}-{o['newton_iterations']}" for o in OPTIONS]

def _inputs(system, k):
    """A drive-torque ramp where the model has one (the multilink): the tyres build up forces."""
    if "drive_torque" in system.input_names:
        system.set_input("drive_torque", 2.0 * k)


def _solver(system, opts):
    slv = get_solver("generalized-alpha")(system, linear_solver="sparse", **opts)
    st = system.initial_state()
    slv.reset(st)
    assert slv.fused and isinstance(slv.bound, E.BoundStep)
    return slv, st


def _expected_counts(slv, system):
    """Counter increments of one step: evaluations, elements, factorisations, solves, LU
    multiply-adds, steps (with unflagged factors)."""
    ne, nf, ns = slv._counts_per_step()
    refactor, solve, _ = E.lu_flops(slv.kkt.lu.ib)
    flops = refactor + ns * solve
    if slv.stabilize == "projection":  # its factorisation and two solves are the projection's
        prefactor, psolve, _ = E.lu_flops(slv.pkkt.lu.ib)
        flops = refactor + (ns - 2) * solve + prefactor + 2 * psolve
    nfrc = len(system.force_out)
    return np.array([ne, slv.newton_iterations * nfrc, nf, ns, flops, 1], np.int64)


@pytest.mark.parametrize("opts", OPTIONS, ids=IDS)
@pytest.mark.parametrize("model", MODELS)
def test_c_step_counts_the_same_work_every_step(model, opts):
    a = fresh_data(model)
    sa, ta = _solver(a, opts)
    expect = _expected_counts(sa, a)
    q0 = ta.q.copy()
    for k in range(N):
        _inputs(a, k)
        c0 = a.data.counter.copy()
        w0 = a.data.warning.copy()
        assert sa.step(ta, H)
        got = (a.data.counter - c0).astype(np.int64)
        assert np.array_equal(got[:6], expect), f"counters of step {k + 1}: {got[:6]} != {expect}"
        assert np.array_equal(a.data.warning, w0)
    assert sa.nfallback == 0
    assert np.abs(ta.q - q0).max() > 1e-4  # (it moved)
    if model == "multilink-transient":
        assert np.abs(ta.x).max() > 1e-6  # (the deflections built up and were advanced)


def _bind(args):
    """A bound generalized-alpha step on ``args`` (its step function's argument list)."""
    return E.BoundStep("generalized-alpha", tuple(args), np.zeros(0, np.int64), np.zeros(4),
                       np.zeros(4, np.int64), (1, 1, 1))


def test_arguments_are_checked():
    """Wrong counts, dtypes, lengths and options raise instead of reading out of bounds."""
    s = fresh_data("peer-quarter-car")
    slv, st = _solver(s, {})
    args = (*slv.kernel_args, st.q, st.qd, s.m, 0.0, H, *slv.options_args, *slv.rows_args)
    assert slv.rows_args == (None,)  # (every row: no redundant ones)
    with pytest.raises(TypeError, match=r"generalized-alpha\(\) takes 29 arguments \(28 given\)"):
        _bind(args[:-1])
    bad = list(args)
    bad[15] = slv.vec[:5]  # vec too short
    with pytest.raises(ValueError, match="vec has 5 values"):
        _bind(bad)
    bad = list(args)
    bad[14] = bad[14].astype(np.int64)  # midx of the wrong dtype
    with pytest.raises(TypeError, match="midx: expected a C-contiguous aligned array of uint32"):
        _bind(bad)
    bad = list(args)
    bad[-2] = 7  # stab
    with pytest.raises(ValueError, match="stab is 0, 1 or 2"):
        _bind(bad)
    b = _bind(args)
    with pytest.raises(ValueError, match="q and qd have 5 and 42 values, the model 42"):
        b.step(st.q[:5], st.qd, st.x, 0.0, H)
    counts = np.zeros(4, np.int64)
    b = E.BoundStep("generalized-alpha", args, np.zeros(0, np.int64), np.zeros(4), counts,
                    (2, 1, 3))
    assert b.step(st.q, st.qd, st.x, 0.0, H) is True
    assert list(counts) == [1, 2, 1, 3]
