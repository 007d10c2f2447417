"""The truck's C provider (engine/providers/truck.c): its road, its status codes and the checks
of its binding (the Jacobians against finite differences are in test_truck_model.py)."""
import numpy as np
import pytest

from rtmbs.engine import _engine
from rtmbs.models.truck import truck
from rtmbs.protocol import EVAL_ALL, EVAL_Q


def test_road_bump_and_sine_are_the_analytic_profiles():
    sys = truck("ode", bump_height=0.2, bump_length=5.0, bump_times=(1.0,), speed=10.0)
    xi0 = 10.0 * 1.0 + sys.params.x_front                 # where the bump starts
    assert _engine.truck_road(sys.road, xi0 - 0.1) == (0.0, 0.0)
    u, du = _engine.truck_road(sys.road, xi0 + 2.5)      # mid-bump: crest, zero slope
    assert u == pytest.approx(0.2, abs=1e-15) and du == pytest.approx(0.0, abs=1e-15)
    u, du = _engine.truck_road(sys.road, xi0 + 1.25)     # quarter: half height, slope H π / L
    assert u == pytest.approx(0.1, abs=1e-15) and du == pytest.approx(0.2 * np.pi / 5.0, rel=1e-14)
    sine = truck("ode", road="sine", sine_amplitude=0.05, sine_wavelength=10.0)
    u, du = _engine.truck_road(sine.road, 2.5)
    assert u == pytest.approx(0.05, rel=1e-15) and du == pytest.approx(0.0, abs=1e-15)


def test_a_view_of_the_state_gives_the_values_of_a_copy():
    sys = truck("dae")
    big = np.zeros((9, 2))
    big[:, 0] = sys.q_eq + 0.01
    q_view = big[:, 0]                                   # strided: the binding refuses it
    with pytest.raises(TypeError, match="q: expected a C-contiguous aligned array of float64"):
        _engine.truck_evaluate(sys._par, 0.0, q_view, np.zeros(9), EVAL_ALL, sys.workspace().buf)
    ws1, ws2 = sys.workspace(), sys.workspace()
    sys.evaluate(0.0, q_view, np.ones(9), ws1, EVAL_ALL)
    sys.evaluate(0.0, q_view.copy(), np.ones(9), ws2, EVAL_ALL)
    assert np.array_equal(ws1.buf, ws2.buf) and np.abs(ws1.Q).max() > 0


def test_bad_arguments_are_refused_with_the_argument_named():
    sys = truck("dae")
    q, qd = sys.q_eq.copy(), np.zeros(9)
    short = np.zeros(sys.workspace().buf.size - 1)
    with pytest.raises(ValueError, match="ws: .* entries, expected at least"):
        _engine.truck_evaluate(sys._par, 0.0, q, qd, EVAL_Q, short)
    with pytest.raises(RuntimeError, match="truck_evaluate: par: buffer too short"):
        _engine.truck_evaluate(sys._par[:-1], 0.0, q, qd, EVAL_Q, sys.workspace().buf)
    bad = sys._par.copy()
    bad[0] = 1.0                                         # m must be 0 or 2
    with pytest.raises(RuntimeError, match="argument out of range"):
        _engine.truck_evaluate(bad, 0.0, q, qd, EVAL_Q, sys.workspace().buf)
    with pytest.raises(ValueError, match="q: 8 entries, expected at least 9"):
        _engine.truck_evaluate(sys._par, 0.0, q[:8].copy(), qd, EVAL_Q, sys.workspace().buf)


def test_a_collapsed_air_spring_is_reported_as_a_status():
    sys = truck("ode")
    ws = sys.workspace()
    q = sys.q_eq.copy()
    assert _engine.truck_evaluate(sys._par, 0.0, q, np.zeros(9), EVAL_Q, ws.buf) == 0
    q[2] -= 1.0                    # chassis 1 m down: the rear air volume 0.04 + 0.16 (s - s0) < 0
    assert _engine.truck_evaluate(sys._par, 0.0, q, np.zeros(9), EVAL_Q, ws.buf) == 4
    assert not np.all(np.isfinite(ws.Q))
