"""Time advances once per step: ``Solver.step`` moves ``state.t`` by h and no loop adds h again
(``rtmbs bench`` used to: 10 steps of 1 ms ended at t = 0.020)."""
import pytest

from rtmbs.solvers.timing import bench_steps
from rtmbs.solvers import base
from solvertest_models import LinearOscillator, pendulum

base._load_all()
#: every fixed-step solver of the package (test modules may register their own: not these)
FIXED_STEP = sorted(name for name, cls in base.SOLVERS.items()
                    if not cls.offline and cls.__module__.startswith("rtmbs."))
T0, H, N = 0.37, 1e-3, 250


def _systems(cls):
    return [LinearOscillator()] + ([] if cls.ode_only else [pendulum(theta0=1.0)])


def test_the_fixed_step_solvers_are_all_here():
    assert {"explicit-euler", "li-euler", "li-euler-indep", "rosenbrock-grk4t", "ab3"} <= set(FIXED_STEP)


@pytest.mark.parametrize("name", FIXED_STEP)
def test_n_steps_of_h_end_at_t0_plus_n_h(name):
    cls = base.get_solver(name)
    for sysm in _systems(cls):
        slv = cls(sysm)
        st = sysm.initial_state()
        st.t = T0
        slv.reset(st)
        for k in range(1, N + 1):
            assert slv.step(st, H)
            assert st.t == pytest.approx(T0 + k * H, abs=1e-12), (sysm.name, k)


@pytest.mark.parametrize("name", FIXED_STEP)
def test_bench_advances_time_once_per_step(name):
    sysm = _systems(base.get_solver(name))[-1]
    r = bench_steps(sysm, name, H, steps=10, warmup=5)
    assert r["t_end"] == pytest.approx(sysm.initial_state().t + 15 * H, abs=1e-12)
