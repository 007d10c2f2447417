"""Numerical trouble is counted in the data with its index and time (the engine's rtmbs_warn)."""
from __future__ import annotations

import numpy as np

from rtmbs.engine import warnings
from rtmbs.models import load_model
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.rollout import rollout

H = 1e-3


def _solver(name: str):
    system = load_model(name)
    solver = get_solver("li-euler")(system)
    state = system.initial_state()
    solver.reset(state)
    return system, solver, state


def test_a_singular_step_is_counted_at_its_time():
    system, solver, state = _solver("four-bar")
    for _ in range(3):
        assert solver.step(state, H)
    assert warnings(system.data)["singular"][0] == 0
    t = state.t
    state.qd[5] = np.nan  # a NaN angular velocity: Jq̇ and so the iteration matrix are NaN
    assert not solver.step(state, H)
    count, index, when = warnings(system.data)["singular"]
    assert (count, index, when) == (1, -1, t)


def test_a_step_to_a_non_finite_state_fails_and_names_the_coordinate():
    """A NaN position of a centre of mass leaves the iteration matrix finite (on the four-bar M,
    Φq and the Jacobians do not depend on it) but not the new state: the step fails (no silent
    NaN state) and counts the coordinate."""
    system, solver, state = _solver("four-bar")
    assert solver.step(state, H)
    t = state.t
    state.q[0] = np.nan
    assert not solver.step(state, H)
    w = warnings(system.data)
    assert w["singular"][0] == 0
    count, index, when = w["nonfinite"]
    assert (count, index, when) == (1, 0, t)


def test_a_diverging_rollout_counts_the_coordinate_and_time():
    system, solver, state = _solver("double-pendulum")
    before = state.q.copy()
    state.qd[:] = 1e9  # |qdot| past the divergence limit (1e8) after the first step
    r = rollout(solver, state, 10, H, outputs=False)
    assert r.status == -1 and r.nsteps == 0
    count, index, when = warnings(system.data)["nonfinite"]
    assert count == 1 and 0 <= index < system.n and when == 0.0  # (the step's start)
    np.testing.assert_array_equal(state.q, before)  # the step was undone
