"""rosenbrock-grk4t and ab3 on a compiled Cartesian model run without numba: the evaluation is the
C engine's (CartesianSystem.evaluate) and the integrators' kernels are the C ones
(src/rtmbs/engine/rosenbrock.c, adams.c, dense_lu.c). Both are ODE-only (m = 0); every built-in
Cartesian model has constraints, so the model here is two free bodies in zxz Euler angles on
bushings (n = 12, m = 0; M depends on q: GRK4T's mass scaling runs). The whole step in one C call
gives the trajectory of the step driven from Python stage by stage (the C kernels) bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

from rtmbs.engine import _engine
from rtmbs.model.description import Model
from rtmbs.solvers import adams, rosenbrock
from rtmbs.solvers.base import get_solver
from rtmbs.system import compile_model

H = 1e-3
N = 200
#: the C kernels each solver's Python-driven step calls
KERNELS = {
    "rosenbrock-grk4t": (rosenbrock, ("_c_factor", "_c_stage", "_c_mass_scale")),
    "ab3": (adams, ("_c_accel", "_c_update", "_c_rk4_point")),
}
OPTIONS = [("rosenbrock-grk4t", {}), ("rosenbrock-grk4t", {"freeze_jq": True}),
           ("rosenbrock-grk4t", {"jacobian": "stiff", "time_derivative": False}), ("ab3", {})]


def _model():
    m = Model(name="free-bushed", gravity=(0.0, 0.0, -9.81),
              orientation_coordinates="euler-angles-zxz")
    for k, (nm, x) in enumerate((("a", 0.0), ("b", 1.0))):
        m.add_body(nm, 2.0, inertia=(0.1, 0.2, 0.3), position=(x, 0.0, 0.0),
                   orientation={"euler_zxz": (0.3 + k, np.pi / 2, 0.2)})
    m.add_marker("ground", "g", (0.0, 0.0, 0.0), frame="global")
    m.add_marker("a", "p", (0.0, 0.0, 0.0), frame="global")
    m.add_marker("a", "q", (1.0, 0.0, 0.0), frame="global")
    m.add_marker("b", "p", (1.0, 0.0, 0.0), frame="global")
    for nm, i, j in (("bush_a", "ground.g", "a.p"), ("bush_b", "a.q", "b.p")):
        m.add_force(nm, "bushing", marker_i=i, marker_j=j, stiffness=(1e4, 1e4, 2e4),
                    damping=(50.0, 50.0, 80.0), rotational_stiffness=(300.0, 300.0, 300.0),
                    rotational_damping=(2.0, 2.0, 2.0))
    return compile_model(m)


@pytest.fixture(scope="module")
def system():
    s = _model()
    assert type(s).__name__ == "CartesianSystem" and s.m == 0 and s.n == 12
    assert not getattr(s, "constant_mass", False)
    return s


def _run(system, name, options, instrument=True, constant_mass=False, after_reset=None):
    """N steps; ``instrument``: the Python-driven step (kernel by kernel); ``constant_mass``:
    the system declares M constant (the solvers then keep M of the reset: both paths alike)."""
    s = system.new_data()
    if constant_mass:
        s.constant_mass = True
    slv = get_solver(name)(s, instrument=instrument, **options)
    st = s.initial_state()
    st.qd[:] = np.linspace(-0.5, 0.5, s.n)  # (a motion with every coordinate)
    slv.reset(st)
    if after_reset is not None:  # (the reset evaluates from Python: not a step)
        after_reset()
    rows = []
    for _ in range(N):
        assert slv.step(st, H)
        rows.append(np.concatenate([st.q, st.qd]))
    return np.array(rows), (slv.nstep, slv.neval, slv.nfactor, slv.nsolve)


CNT_EVAL, CNT_FACTOR, CNT_SOLVE, CNT_STEP = 0, 2, 3, 5


@pytest.mark.parametrize("options", [o for n, o in OPTIONS if n == "rosenbrock-grk4t"])
def test_the_c_grk4t_step_is_the_python_driven_step(system, options):
    """``_engine.grk4t_step`` (the whole GRK4T step in one call, rosenbrock.c) from the solver's
    own buffers gives the Python-driven step's trajectory bit for bit, and counts the
    evaluations, factorisations and solves the solver counts, the same every step."""
    from rtmbs.protocol import EVAL_JAC, EVAL_JAC_STIFF

    runs = []
    for fused in (False, True):
        s = system.new_data()
        slv = get_solver("rosenbrock-grk4t")(s, instrument=True, **options)
        st = s.initial_state()
        st.qd[:] = np.linspace(-0.5, 0.5, s.n)
        slv.reset(st)
        counter = s.data.counter
        jac = EVAL_JAC if slv.jacobian == "all" else EVAL_JAC_STIFF
        rows, per_step = [], set()
        for k in range(N):
            if fused:
                c0 = counter.copy()
                assert _engine.grk4t_step(
                    *s.kernel_buffers(), slv.ws.buf, slv.ws_t.buf, slv.ws_s.buf, slv.Mn, slv.Jq,
                    slv.LU, slv.piv, slv.LUm, slv.pivm, slv.U, slv.Qt, slv.qs, slv.vs, slv.rq,
                    slv.rv, slv.tmp, st.q, st.qd, float(st.t), H, jac, slv.freeze_jq,
                    slv.time_derivative, slv.constant_mass)
                st.t += H
                per_step.add(tuple(counter[[CNT_EVAL, CNT_FACTOR, CNT_SOLVE, CNT_STEP]] -
                                   c0[[CNT_EVAL, CNT_FACTOR, CNT_SOLVE, CNT_STEP]]))
            else:
                assert slv.step(st, H)
            rows.append(np.concatenate([st.q, st.qd]))
        runs.append((np.array(rows), slv, per_step))
    (ref, slv, _), (got, _, per_step) = runs
    assert np.array_equal(got, ref), f"max difference {np.abs(got - ref).max():.2e}"
    assert per_step == {(slv.neval // N, slv.nfactor // N, slv.nsolve // N, 1)}
    # the solver runs that step by default (one call per step), with the same counters
    default, counts = _run(system, "rosenbrock-grk4t", options, instrument=False)
    assert np.array_equal(default, ref)
    assert counts == (slv.nstep, slv.neval, slv.nfactor, slv.nsolve)
    s = system.new_data()
    assert get_solver("rosenbrock-grk4t")(s, **options).fused
    assert not get_solver("rosenbrock-grk4t")(s, instrument=True, **options).fused


@pytest.mark.parametrize("constant_mass", [False, True])
@pytest.mark.parametrize("name,options", OPTIONS)
def test_the_default_step_is_one_c_call_and_gives_the_python_driven_trajectory(
        system, monkeypatch, name, options, constant_mass):
    """rosenbrock-grk4t (``_engine.grk4t_step``) and ab3 (``_engine.ab3_step``: RK4 for the
    first two steps) run their whole step in one C call by default on this model: bit for bit
    the Python-driven step (``instrument=True``), the same counters; no Python-level kernel or
    evaluation is called."""
    ref, ref_counts = _run(system, name, options, True, constant_mass)
    s = system.new_data()
    assert get_solver(name)(s, **options).fused
    assert not get_solver(name)(s, instrument=True, **options).fused

    def refuse(*args, **kwargs):
        raise AssertionError("called from Python")

    def no_python():
        module, pairs = KERNELS[name]
        for c_name in pairs:
            monkeypatch.setattr(module, c_name, refuse)
        monkeypatch.setattr(type(system), "evaluate", refuse)

    got, counts = _run(system, name, options, False, constant_mass, no_python)
    assert counts == ref_counts
    assert np.array_equal(got, ref), f"max difference {np.abs(got - ref).max():.2e}"
