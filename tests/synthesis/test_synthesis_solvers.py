"""The synthesis provider (m = 0) under the solvers the issue names: each converges to an accurate
integration of the same ODE at its order, and the offline reference agrees with it."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import rtmbs
from rtmbs.protocol import State
from rtmbs.synthesis import SynthesisSystem, subsystem_model
from _models.synthesis import sla_model

T = 0.1


@pytest.fixture(scope="module")
def setup():
    syn = SynthesisSystem(subsystem_model(sla_model(), "chassis", dof=1), formulation="relative-joint")
    st = State(0.0, np.zeros(2), np.array([0.3, 2.0]))
    sol = solve_ivp(lambda t, x: np.concatenate([x[2:], syn.accelerations(t, x[:2], x[2:])]), (0, T),
                    np.concatenate([st.q, st.qd]), method="DOP853", rtol=1e-11, atol=1e-12)
    return syn, st, sol.y[:, -1]


def _err(syn, st, ref, solver, h):
    r = rtmbs.simulate(syn, solver, t_end=T, h=h, state=st.copy(), accelerations=False)
    assert r.t[-1] == pytest.approx(T)
    return np.abs(np.concatenate([r.q[-1], r.qd[-1]]) - ref).max()


@pytest.mark.parametrize("solver,h,order", [("ab3", 1e-3, 3), ("explicit-euler", 2e-4, 1),
                                            ("li-euler", 2e-3, 1), ("rosenbrock-grk4t", 4e-3, 3)])
def test_fixed_step_solvers_converge_at_their_order(setup, solver, h, order):
    syn, st, ref = setup
    e1, e2 = _err(syn, st, ref, solver, h), _err(syn, st, ref, solver, h / 2)
    assert e2 < e1
    assert np.log2(e1 / e2) > order - 0.5, (e1, e2)
    assert e2 < 0.01


def test_reference_solver(setup):
    syn, st, ref = setup
    r = rtmbs.simulate(syn, "reference", t_end=T, h=1e-3, state=st.copy(), accelerations=False)
    assert np.abs(np.concatenate([r.q[-1], r.qd[-1]]) - ref).max() < 1e-8
