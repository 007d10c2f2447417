"""explicit-euler's step, step with outputs and rollout in C (src/rtmbs/engine/explicit_euler.c,
fixed_rollout.c) against the numba kernels they replace (rtmbs.solvers.compiled_explicit:
explicit_euler_step, explicit_euler_step_outputs, _explicit_euler_rollout), called with the same
positional arguments on two copies of the same data: peer-four-bar, peer-quarter-car and the
multilink with transient tyres (extra states) under a drive-torque ramp, every stabilisation with
both position updates, 200 steps. q, q-dot, lambda, the extra states, the pivot ratio and the
largest multiplier agree to 1e-10 relative over the trajectories (each vector relative to its
largest magnitude, at least 1; the outputs to 1e-9) as far as the dynamics allow (FREE), and to
1e-12 one step at a time from numba's state over all 200 steps: the engines differ by round-off
only (numba contracts multiply-adds into FMA, the C does not). The C step's own counters
(evaluations, factorisations, solves, multiply-adds, steps) grow by the same amounts every step,
the amounts the solver counts.""" 
from __future__ import annotations

import numpy as np
import pytest

from rtmbs.engine import _engine
from rtmbs.kernels.layout_views import data_buffers
from rtmbs.models import load_model
from rtmbs.models.multilink import build
from rtmbs.solvers import compiled_explicit as ce
from rtmbs.solvers.base import get_solver

H = 1e-3
N = 200
RTOL = 1e-10
#: one step from the same state (numba's)
RTOL_STEP = 1e-12
#: steps over which the trajectories are compared (default N): explicit Euler at h = 1e-3 on the
#: multilink with transient tyres multiplies a perturbation of 1e-14 by ~1e3 every 20 steps (C
#: against C, qdot perturbed; O(1) after 120 steps), so two engines that differ by round-off part
#: there after ~40 steps; its steps are compared one at a time (RTOL_STEP) over all N
FREE = {"multilink-transient": 20}
MODELS = ["peer-four-bar", "peer-quarter-car", "multilink-transient"]
#: (stabilize, position_update): every option set of the step
OPTIONS = [(s, u) for s in ("none", "baumgarte", "projection")
           for u in ("explicit", "semi-implicit")]
TORQUE = np.linspace(0.0, 400.0, N)
CNT_EVAL, CNT_ELEMENT, CNT_FACTOR, CNT_SOLVE, CNT_FLOP, CNT_STEP = range(6)

_BUILT = {}


def _system(model):
    """Fresh data of a model compiled once for the module."""
    if model not in _BUILT:
        _BUILT[model] = (build("ideal", transient=True) if model == "multilink-transient"
                         else load_model(model))
    return _BUILT[model].new_data()


def _solver(model, stabilize, update):
    system = _system(model)
    slv = get_solver("explicit-euler")(system, linear_solver="sparse", stabilize=stabilize,
                                       position_update=update, alpha=7.0, beta=12.0)
    st = system.initial_state()
    slv.reset(st)
    assert slv.fused
    return system, slv, st


def _drive(system, k):
    if "drive_torque" in system.input_names:
        system.set_input("drive_torque", TORQUE[k])


def _close(what, got, want, rtol=RTOL):
    got, want = np.asarray(got, float), np.asarray(want, float)
    assert got.shape == want.shape
    if got.size == 0:
        return
    scale = max(np.abs(want).max(), 1.0)
    err = np.abs(got - want).max() / scale
    assert err <= rtol, f"{what}: relative difference {err:.2e}"


def _counters(system):
    return data_buffers(*system.kernel_buffers()[4:6]).counter.copy()


def _call(kernel, slv, st, post):
    """One step of ``kernel`` with the solver's packed buffers (the solver's own ``_call``)."""
    x = slv._extra_state
    if x is not None:
        x[:] = st.x
    ratio, growth = kernel(*slv.kernel_args, st.q, st.qd, slv._m, float(st.t), H, *post)
    if x is not None:
        st.x[:] = x
    st.t += H
    return ratio, growth


@pytest.mark.parametrize("stabilize,update", OPTIONS)
@pytest.mark.parametrize("model", MODELS)
def test_step_agrees_with_numba_and_counts_the_same_every_step(model, stabilize, update):
    """Three runs on their own data: numba's kernel (a), the C step from numba's state before
    each step (b: one step at a time, to RTOL_STEP on all N steps) and the C step on its own
    (c: the trajectory, to RTOL over the model's FREE steps)."""
    (sa, a, ta), (sb, b, tb), (sc, c, tc) = (_solver(model, stabilize, update) for _ in range(3))
    project = stabilize == "projection" and sa.m > 0
    per_step = None
    q0 = ta.q.copy()
    free = FREE.get(model, N)
    for k in range(N):
        for s in (sa, sb, sc):
            _drive(s, k)
        tb.q[:], tb.qd[:], tb.x[:], tb.t = ta.q, ta.qd, ta.x, ta.t
        c0 = _counters(sb)
        ra, ga = _call(ce.explicit_euler_step, a, ta, a._post)
        rb, gb = _call(_engine.explicit_euler_step, b, tb, b._post)
        d = _counters(sb) - c0
        rc, gc = _call(_engine.explicit_euler_step, c, tc, c._post)
        at = f"{model} {stabilize} {update} step {k + 1}"
        for what, x, y in (("q", tb.q, ta.q), ("qd", tb.qd, ta.qd), ("lam", b.lam, a.lam),
                           ("x", tb.x, ta.x), ("(ratio, growth)", (rb, gb), (ra, ga))):
            _close(f"{at}: one step: {what}", x, y, RTOL_STEP)
        if k < free:
            for what, x, y in (("q", tc.q, ta.q), ("qd", tc.qd, ta.qd), ("lam", c.lam, a.lam),
                               ("x", tc.x, ta.x), ("(ratio, growth)", (rc, gc), (ra, ga))):
                _close(f"{at}: trajectory: {what}", x, y)
        assert ra > 0.0 and rb > 0.0 and rc > 0.0
        if per_step is None:
            per_step = d
            assert d[CNT_EVAL] == 1 + project and d[CNT_FACTOR] == 1
            assert d[CNT_SOLVE] == 1 + project and d[CNT_STEP] == 1
            assert d[CNT_FLOP] > 0 and d[CNT_ELEMENT] >= 0
        assert np.array_equal(d, per_step), f"{at}: counters {d} against {per_step}"
    assert np.abs(tc.q - q0).max() > 1e-3  # (it moved)
    if model == "multilink-transient":
        assert abs(tc.x[0]) > 1e-5  # (the deflections built up)


@pytest.mark.parametrize("at_start", [False, True])
@pytest.mark.parametrize("stabilize", ["none", "baumgarte", "projection"])
@pytest.mark.parametrize("model", MODELS)
def test_step_outputs_agree_with_numba(model, stabilize, at_start):
    (sa, a, ta), (sb, b, tb) = (_solver(model, stabilize, "explicit") for _ in range(2))
    ya, yb = np.zeros(len(sa.output_names)), np.zeros(len(sb.output_names))
    assert len(ya) > 0
    oidx = sa.output_index
    for k in range(min(50, FREE.get(model, N))):
        _drive(sa, k)
        _drive(sb, k)
        _call(ce.explicit_euler_step_outputs, a, ta, a.step_options + (oidx, ya, at_start))
        _call(_engine.explicit_euler_step_outputs, b, tb, b.step_options + (oidx, yb, at_start))
        _close(f"{model} step {k + 1}: outputs", yb, ya, 1e-9)
        _close(f"{model} step {k + 1}: q", tb.q, ta.q)


def _numba_runner(solver, state, *args):
    """``compiled_explicit.run`` with the numba rollout kernel (the reference)."""
    return ce.run_rollout_kernel(ce._explicit_euler_rollout, solver.step_options, solver, state,
                                 *args)


def _both_rollouts(monkeypatch, a, ta, b, tb, n, inputs, every):
    from rtmbs.solvers import rollout as ro

    assert b.rollout_runner is ce.run
    rb = ro.rollout(b, tb, n, H, inputs=inputs, every=every)  # (C: _engine.explicit_euler_rollout)
    with monkeypatch.context() as mp:
        mp.setattr(ro, "_runner", lambda solver: _numba_runner)
        ra = ro.rollout(a, ta, n, H, inputs=inputs, every=every)
    return ra, rb


@pytest.mark.parametrize("stabilize,update", [("projection", "explicit"),
                                              ("baumgarte", "semi-implicit"),
                                              ("none", "explicit")])
@pytest.mark.parametrize("model", MODELS)
def test_rollout_agrees_with_numba(monkeypatch, model, stabilize, update):
    """The C rollout (the solver's ``rollout_runner``) against the numba rollout kernel: the
    same rows, outputs, final state and counters; every 3rd step saved, the drive torque as
    input where the model has it."""
    (sa, a, ta), (sb, b, tb) = (_solver(model, stabilize, update) for _ in range(2))
    n = FREE.get(model, N)
    inputs = {"drive_torque": TORQUE[:n]} if "drive_torque" in sa.input_names else None
    c0 = _counters(sb)
    ra, rb = _both_rollouts(monkeypatch, a, ta, b, tb, n, inputs, 3)
    assert ra.status == rb.status == 1 and ra.nsteps == rb.nsteps == n
    for name in ("t", "q", "qd", "qd_prev", "lam", "x"):
        _close(f"{model}: {name}", getattr(rb, name), getattr(ra, name))
    assert ra.outputs.keys() == rb.outputs.keys() and len(ra.outputs) > 0
    for nm in ra.outputs:
        _close(f"{model}: output {nm}", rb.outputs[nm], ra.outputs[nm], 1e-9)
    _close("final q", tb.q, ta.q)
    _close("final x", tb.x, ta.x)
    assert (a.nstep, a.neval, a.nfactor, a.nsolve) == (b.nstep, b.neval, b.nfactor, b.nsolve)
    d = _counters(sb) - c0  # (the C counts: N steps, and the outputs' evaluations of N // 3 rows)
    project = stabilize == "projection"
    assert d[CNT_STEP] == n and d[CNT_FACTOR] == n and d[CNT_SOLVE] == n * (1 + project)
    assert d[CNT_EVAL] == n * (1 + project) + n // 3


@pytest.mark.parametrize("stabilize", ["none", "projection"])
def test_a_diverging_step_stops_the_c_rollout_where_numba_stops(monkeypatch, stabilize):
    """A torque of 1e25 at step 21 throws the multilink's wheel off: both rollouts stop there
    with the last good state put back."""
    (sa, a, ta), (sb, b, tb) = (_solver("multilink-ideal", stabilize, "explicit")
                                for _ in range(2))
    torque = np.zeros(50)
    torque[20] = 1e25
    ra, rb = _both_rollouts(monkeypatch, a, ta, b, tb, 50, {"drive_torque": torque}, 1)
    assert ra.status == rb.status == -1 and ra.nsteps == rb.nsteps == 20
    _close("q rows", rb.q, ra.q)
    _close("q", tb.q, ta.q)
    _close("qd", tb.qd, ta.qd)
    assert np.array_equal(tb.q, rb.q[-1]) and np.all(np.isfinite(tb.q))
    assert b.nstep == a.nstep == 21
