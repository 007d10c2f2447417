"""Time advances once per step: ``Solver.step`` moves ``state.t`` by h and no loop adds h again
(``rtmbs bench`` used to: 10 steps of 1 ms ended at t = 0.020)."""
import numpy as np
import pytest

from rtmbs.solvers.timing import bench_steps
from rtmbs.solvers import base
from _models.linkages import LinearOscillator, pendulum

base._load_all()
#: every fixed-step solver of the package (test modules may register their own: not these)
FIXED_STEP = sorted(name for name, cls in base.SOLVERS.items()
                    if not cls.offline and cls.__module__.startswith("rtmbs."))
T0, H, N = 0.37, 1e-3, 250


def _systems(cls):
    return [LinearOscillator()] + ([] if cls.ode_only else [pendulum(theta0=1.0)])


def _started_at_t0(cls):
    """(system, solver, state) for each test system of solver class ``cls``, reset at t = T0."""
    for sysm in _systems(cls):
        slv = cls(sysm)
        st = sysm.initial_state()
        st.t = T0
        slv.reset(st)
        yield sysm, slv, st


def test_the_fixed_step_solvers_are_all_here():
    assert {"explicit-euler", "li-euler", "li-euler-indep", "rosenbrock-grk4t", "ab3"} <= set(FIXED_STEP)


@pytest.mark.parametrize("name", FIXED_STEP)
def test_n_steps_of_h_end_at_t0_plus_n_h(name):
    for sysm, slv, st in _started_at_t0(base.get_solver(name)):
        for k in range(1, N + 1):
            assert slv.step(st, H)
            assert st.t == pytest.approx(T0 + k * H, abs=1e-12), (sysm.name, k)


@pytest.mark.parametrize("name", FIXED_STEP)
def test_bench_advances_time_once_per_step(name):
    sysm = _systems(base.get_solver(name))[-1]
    r = bench_steps(sysm, name, H, steps=10, warmup=5)
    assert r["t_end"] == pytest.approx(sysm.initial_state().t + 15 * H, abs=1e-12)


@pytest.mark.parametrize("name", FIXED_STEP)
def test_the_step_alone_moves_the_time(name):
    """A Python-driven ``_step_impl`` leaves ``state.t``; ``Solver.step`` sets it to the step's
    start plus h (exactly, whatever a step does with t inside)."""
    for sysm, slv, st in _started_at_t0(base.get_solver(name)):
        slv._step_impl(st, H)
        assert st.t == T0, (sysm.name, st.t)
        assert slv.step(st, H)
        assert st.t == T0 + H


@pytest.mark.parametrize("solver", ["li-euler", "li-euler-indep", "explicit-euler", "generalized-alpha"])
def test_runs_of_steps_keep_time_on_the_grid(solver):
    """``simulate`` (compiled chunks, and the Python loop with input callables) and ``rollout``
    (compiled, and the Python loop of the dense step) give every row the time
    t0 + k h of its step count, exactly, from any start; a loop of single steps sums h and
    drifts from that grid by round-off."""
    from rtmbs.models import load_model
    from rtmbs.solvers.rollout import compiled, rollout
    from rtmbs.solvers.simulate import simulate

    model = load_model("multilink-ideal")
    n = 700
    grid = T0 + np.arange(n + 1) * H
    for options in ({}, {"linear_solver": "dense"}):
        d = model.new_data()
        slv = base.get_solver(solver)(d, **options)
        st = d.initial_state()
        st.t = T0
        slv.reset(st)
        assert compiled(slv) == (not options)
        r = rollout(slv, st, n, H, every=7)
        assert r.status == 1
        np.testing.assert_array_equal(r.t, grid[7::7])
        assert st.t == grid[-1]
    for inputs in (None, {"drive_torque": lambda t: 100.0 * t}):
        d = model.new_data()
        st = d.initial_state()
        st.t = T0
        res = simulate(d, solver, t_end=T0 + n * H, h=H, state=st, save_every=5, inputs=inputs,
                       accelerations=False)
        np.testing.assert_array_equal(res.t, grid[::5])
    d = model.new_data()
    slv = base.get_solver(solver)(d)
    st = d.initial_state()
    st.t = T0
    slv.reset(st)
    summed = [T0]
    for _ in range(n):
        assert slv.step(st, H)
        summed.append(st.t)
    assert np.abs(np.array(summed) - grid).max() > 0.0  # (the round-off the grid avoids)
    np.testing.assert_allclose(summed, grid, rtol=0, atol=1e-12)
