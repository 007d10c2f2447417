"""Model and data: several runs on one compiled model are independent (issue 11)."""
import numpy as np

from rtmbs.models import load_model
from rtmbs.solvers.base import get_solver


def _run(system, torque, n_steps, solver="li-euler"):
    slv = get_solver(solver)(system)
    st = system.initial_state()
    slv.reset(st)
    return slv, st


def test_interleaved_runs_on_one_model_equal_separate_runs():
    """Two runs with different drive torques on two data objects of one model, stepped in turn,
    end exactly where each ends when run alone."""
    model = load_model("multilink-ideal")
    torques = (150.0, -80.0)
    alone = []
    for tq in torques:
        s = model.new_data()
        s.set_input("drive_torque", tq)
        slv, st = _run(s, tq, 0)
        for _ in range(300):
            assert slv.step(st, 1e-3)
        alone.append(st.q.copy())
    runs = []
    for tq in torques:
        s = model.new_data()
        s.set_input("drive_torque", tq)
        runs.append(_run(s, tq, 0))
    for _ in range(300):
        for slv, st in runs:
            assert slv.step(st, 1e-3)
    for (slv, st), q in zip(runs, alone):
        np.testing.assert_array_equal(st.q, q)
    # and the two torques really gave different motions
    assert np.abs(alone[0] - alone[1]).max() > 1e-3


def test_new_data_shares_the_model_and_not_the_inputs():
    model = load_model("multilink-ideal")
    a, b = model.new_data(), model.new_data()
    assert a._ibuf is b._ibuf and a._fbuf is b._fbuf
    a.set_input("drive_torque", 10.0)
    assert b.fun_par[b.fun_names["drive_torque"], 0] == 0.0
    assert model.fun_par[model.fun_names["drive_torque"], 0] == 0.0
