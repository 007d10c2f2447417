"""The generalized-alpha step of the C engine (src/rtmbs/engine/generalized_alpha.c:
``_engine.generalized_alpha_step``): every option set (stabilize velocity / projection / none,
jacobian all / stiff, 1 and 3 Newton corrections) on peer-quarter-car, multilink-ideal with
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
    assert slv.fused and slv._kernel is E.generalized_alpha_step
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


def test_arguments_are_checked():
    """Wrong counts, dtypes, lengths and options raise instead of reading out of bounds."""
    s = fresh_data("peer-quarter-car")
    slv, st = _solver(s, {})
    args = (*slv.kernel_args, st.q, st.qd, s.m, 0.0, H, *slv.options_args)
    with pytest.raises(TypeError):
        E.generalized_alpha_step(*args[:-1])
    bad = list(args)
    bad[15] = slv.vec[:5]  # vec too short
    with pytest.raises(ValueError):
        E.generalized_alpha_step(*bad)
    bad = list(args)
    bad[14] = bad[14].astype(np.int64)  # midx of the wrong dtype
    with pytest.raises(TypeError):
        E.generalized_alpha_step(*bad)
    bad = list(args)
    bad[-1] = 7  # stab
    with pytest.raises(ValueError):
        E.generalized_alpha_step(*bad)
    r = E.generalized_alpha_step(*args)
    assert len(r) == 5 and r[0] > 0.0 and r[4] is True
