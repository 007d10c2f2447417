"""GRK4T (rosenbrock-grk4t) and AB3: measured convergence order, stability, counters."""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from rtmbs.errors import SimulationDiverged, SolverError
from rtmbs.models.truck import truck
from rtmbs.protocol import EVAL_JAC, EVAL_JAC_STIFF, EVAL_M, EVAL_Q, MechanicalSystem, State
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.rosenbrock import lu_factor, lu_solve
from rtmbs.solvers.simulate import simulate


class ForcedOscillator(MechanicalSystem):
    """m x'' + c x' + k x = F sin(Ωt): known solution, time-dependent force."""

    n, m, name = 1, 0, "oscillator"
    constant_mass = True

    def __init__(self, mass=2.0, k=50.0, c=0.8, F=3.0, Om=3.0, x0=0.1, v0=-0.2):
        self.mass, self.k, self.c, self.F, self.Om, self.x0, self.v0 = mass, k, c, F, Om, x0, v0

    def evaluate(self, t, q, qd, ws, what):
        if what & EVAL_M:
            ws.M[0, 0] = self.mass
        if what & EVAL_Q:
            ws.Q[0] = -self.k * q[0] - self.c * qd[0] + self.F * math.sin(self.Om * t)
        if what & (EVAL_JAC | EVAL_JAC_STIFF):
            ws.Jq[0, 0] = -self.k
            ws.Jqd[0, 0] = -self.c

    def initial_state(self):
        return State(0.0, np.array([self.x0]), np.array([self.v0]))

    def exact(self, t):
        w = math.sqrt(self.k / self.mass)
        z = self.c / (2 * math.sqrt(self.k * self.mass))
        wd = w * math.sqrt(1 - z * z)
        P = (self.F / self.mass) / (w * w - self.Om**2 + 2j * z * w * self.Om)
        xp = lambda s: (P * np.exp(1j * self.Om * s)).imag
        vp0 = (1j * self.Om * P).imag
        A = self.x0 - xp(0.0)
        B = (self.v0 - vp0 + z * w * A) / wd
        return np.exp(-z * w * t) * (A * np.cos(wd * t) + B * np.sin(wd * t)) + xp(t)


def _slope(hs, errs):
    return np.polyfit(np.log(hs), np.log(errs), 1)[0]


def _truck_reference(sys, T):
    ws = sys.workspace()
    minv = 1.0 / sys.masses

    def f(t, y):
        sys.evaluate(t, y[:9], y[9:], ws, EVAL_Q)
        return np.concatenate([y[9:], ws.Q * minv])

    st = sys.initial_state()
    sol = solve_ivp(f, (0, T), np.concatenate([st.q, st.qd]), method="DOP853", rtol=1e-12,
                    atol=1e-13)
    return sol.y[:9, -1]


def test_lu_helpers_solve_like_numpy():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((9, 9))
    b = rng.standard_normal(9)
    LU, piv, x = A.copy(), np.zeros(9, np.int64), b.copy()
    assert lu_factor(LU, piv)
    lu_solve(LU, piv, x)
    assert np.allclose(x, np.linalg.solve(A, b), rtol=1e-12, atol=1e-12)
    assert not lu_factor(np.zeros((3, 3)), np.zeros(3, np.int64))


@pytest.mark.parametrize("solver,order,hs", [
    ("rosenbrock-grk4t", 4, [0.04, 0.02, 0.01, 0.005]),
    ("ab3", 3, [0.01, 0.005, 0.0025, 0.00125]),
])
def test_order_on_forced_oscillator(solver, order, hs):
    sys = ForcedOscillator()
    T = 2.0
    errs = []
    for h in hs:
        r = simulate(sys, solver, t_end=T, h=h)
        errs.append(np.abs(r.q[:, 0] - sys.exact(r.t)).max())
    assert abs(_slope(hs, errs) - order) < 0.4, errs


def test_grk4t_needs_the_time_derivative_for_order_4():
    sys = ForcedOscillator(x0=0.0, v0=0.0, F=30.0, Om=8.0)
    hs = [0.02, 0.01, 0.005, 0.0025]
    errs = {}
    for td in (True, False):
        errs[td] = [np.abs(simulate(sys, "rosenbrock-grk4t", t_end=1.0, h=h,
                                    time_derivative=td).q[-1, 0] - sys.exact(1.0)) for h in hs]
    assert _slope(hs, errs[True]) > 3.6
    assert _slope(hs, errs[False]) < 3.0


@pytest.mark.parametrize("solver,order,hs", [
    ("rosenbrock-grk4t", 4, [0.004, 0.002, 0.001, 0.0005]),
    ("ab3", 3, [4e-4, 2e-4, 1e-4, 5e-5]),
])
def test_order_on_truck_with_smooth_road(solver, order, hs):
    sys = truck("ode", road="sine")
    T = 0.2
    ref = _truck_reference(sys, T)
    errs = [np.abs(simulate(sys, solver, t_end=T, h=h).q[-1] - ref).max() for h in hs]
    assert abs(_slope(hs, errs) - order) < 0.4, errs


@pytest.mark.parametrize("h", [1e-3, 5e-3, 2e-2])
def test_grk4t_is_stable_on_the_stiff_linear_truck(h):
    sys = truck("linear", bump_times=(1.0,))
    r = simulate(sys, "rosenbrock-grk4t", t_end=6.0, h=h)
    dev = np.abs(r.q - sys.q_eq)
    assert dev.max() < 0.3                         # the bump moves it, nothing blows up
    assert dev[-1].max() < 0.02 * dev.max()         # and it settles back
    assert dev.max() > 0.02                         # the bump did excite it


def test_ab3_is_unstable_on_the_stiff_truck_at_1ms():
    # the hinge mode (|λ| ≈ 1150 1/s) is outside AB3's region at h = 1 ms: stiffness is real
    with pytest.raises(SimulationDiverged, match="'ab3'"):
        simulate(truck("linear", bump_times=(0.5,)), "ab3", t_end=2.0, h=1e-3)


def test_counters_and_phases():
    sys = truck("ode")
    slv = get_solver("rosenbrock-grk4t")(sys, instrument=True)
    simulate(sys, slv, t_end=0.05, h=1e-3)
    assert slv.nstep == 50 and slv.nfactor == 50 and slv.nsolve == 200
    assert slv.neval == 4 * 50          # set-up work in reset is not counted (base.py)
    ph = slv.phase_times_us()
    assert ph["factorisation"] > 0 and ph["solve"] > 0 and ph["evaluation"] > 0
    ab = get_solver("ab3")(sys)
    simulate(sys, ab, t_end=0.01, h=1e-4)
    assert ab.nstep == 100 and ab.nsolve == 2 * 4 + 98    # two RK4 start steps


def test_stiff_only_jacobian_option():
    sys = truck("ode", road="sine")
    ref = _truck_reference(sys, 0.2)
    r = simulate(sys, "rosenbrock-grk4t", t_end=0.2, h=1e-3, jacobian="stiff")
    assert np.abs(r.q[-1] - ref).max() < 1e-5
    with pytest.raises(SolverError, match="jacobian must be 'all' or 'stiff', got 'some'"):
        get_solver("rosenbrock-grk4t")(sys, jacobian="some")


def test_ode_only_solvers_refuse_the_dae():
    for name in ("rosenbrock-grk4t", "ab3"):
        with pytest.raises(SolverError, match=f"'{name}' is for ODE models.*'truck-dae' has m = 2"):
            simulate(truck("dae"), name, t_end=0.01, h=1e-3)
