"""Transient tyres in the engine's step: the carcass deflections (extra states, Carpinelli 2015
eq. 4.23) are advanced inside ``li-euler``'s one call of the C engine, its ``step_outputs`` and
the engine's ``rollout`` as the dense step driven from Python advances them (``Solver.step`` sets
the step, runs the step, then ``CartesianSystem.advance_extra``): the same deflections, states
and outputs to round-off."""
import numpy as np
import pytest

from rtmbs.models.multilink import build
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.rollout import compiled, rollout
from rtmbs.solvers.simulate import simulate

N = 300
TORQUE = np.linspace(0.0, 400.0, N)  # drive torque ramp: the longitudinal deflection builds up


@pytest.fixture(scope="module")
def model():
    return build("ideal", transient=True)


def _solver(system, dense):
    slv = get_solver("li-euler")(system, linear_solver="dense" if dense else "auto")
    st = system.initial_state()
    slv.reset(st)
    assert slv.fused != dense and system.nx == 2
    return slv, st


def _close(got, want, rtol=1e-8):
    """Within ``rtol`` of the largest magnitude of each column (at least 1)."""
    got, want = np.atleast_2d(got), np.atleast_2d(want)
    assert got.shape == want.shape
    err = (np.abs(got - want) / np.maximum(np.abs(want).max(axis=0), 1.0)).max()
    assert err <= rtol, f"differ by {err:.2e}"


def test_compiled_step_and_outputs_advance_the_deflections_as_the_python_step(model):
    a, b = model.new_data(), model.new_data()
    (sa, ta), (sb, tb) = _solver(a, False), _solver(b, True)
    ya, yb = np.zeros(len(a.output_names)), np.zeros(len(b.output_names))
    for i in range(N):
        a.set_input("drive_torque", TORQUE[i])
        b.set_input("drive_torque", TORQUE[i])
        assert sa.step_outputs(ta, 1e-3, ya)
        assert sb.step_outputs(tb, 1e-3, yb)
        _close(ta.x, tb.x)
        _close(ya, yb, 1e-7)
    _close(ta.q, tb.q)
    _close(ta.qd, tb.qd)
    np.testing.assert_array_equal(a.extra_state, ta.x)  # the data object holds the same states
    assert abs(ta.x[0]) > 1e-4  # the longitudinal deflection did build up (m)
    # the published tyre force is that of the advanced deflections: one more step changes it
    j = a.output_names.index("tyre.Fx")
    assert abs(ya[j]) > 100.0


def test_compiled_rollout_keeps_the_deflections_and_restores_them_at_a_bad_step(model):
    a, b = model.new_data(), model.new_data()
    (sa, ta), (sb, tb) = _solver(a, False), _solver(b, True)
    assert compiled(sa) and not compiled(sb)
    ra = rollout(sa, ta, N, 1e-3, inputs={"drive_torque": TORQUE}, every=3)
    rb = rollout(sb, tb, N, 1e-3, inputs={"drive_torque": TORQUE}, every=3)
    assert ra.status == rb.status == 1 and ra.x.shape == (N // 3, 2)
    _close(ra.x, rb.x)
    _close(ra.q, rb.q)
    _close(ra.outputs["tyre.Fx"], rb.outputs["tyre.Fx"], 1e-7)
    np.testing.assert_array_equal(ta.x, ra.x[-1])
    # a torque that throws the wheel off: the rollout stops with the deflections of the last
    # good step, in the state and in the data object
    bad = np.zeros(50)
    bad[20] = 1e25
    before = ta.x.copy()
    r = rollout(sa, ta, 50, 1e-3, inputs={"drive_torque": bad})
    assert r.status == -1 and r.nsteps == 20
    np.testing.assert_array_equal(ta.x, r.x[-1])
    np.testing.assert_array_equal(a.extra_state, ta.x)
    assert np.abs(ta.x - before).max() > 0.0


def test_simulate_records_the_deflections_of_the_compiled_chunks(model):
    runs = []
    for dense in (False, True):
        s = model.new_data()
        s.set_input("drive_torque", 250.0)
        slv = get_solver("li-euler")(s, linear_solver="dense" if dense else "auto")
        runs.append(simulate(s, slv, t_end=0.5, h=1e-3, save_every=10, progress=False))
    _close(runs[0].x, runs[1].x)
    _close(runs[0].q, runs[1].q)
    assert runs[0].x.shape == (51, 2) and abs(runs[0].x[-1, 0]) > 1e-4
