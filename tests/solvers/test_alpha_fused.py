"""``generalized-alpha`` as one call of the C engine per step
(src/rtmbs/engine/generalized_alpha.c): ``step_outputs`` and the engine's ``rollout`` take exactly
the steps of the step (the rollout continues from the solver's a, q̈, λ as a loop of ``step``
does); the step agrees with the dense step driven from Python (numpy and the engine's dense LU:
another linear algebra, the same method) to round-off (``simulate``: test_simulate_compiled.py)."""
import numpy as np
import pytest
from _models.fused import N, TORQUE, counters as _counters, ramp_inputs as _inputs, started

from _models.library import fresh_data
from rtmbs.models import load_model
from rtmbs.solvers import generalized_alpha
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.rollout import compiled, rollout

GA = "generalized-alpha"
H = 1e-3
CONFIGS = {
    "velocity": {},
    "projection": {"stabilize": "projection"},
    "none-1": {"stabilize": "none", "newton_iterations": 1},
}
#: the four-bar (n = 21), the quarter car, and the multilink with transient tyres (extra states)
#: under a drive torque ramp
MODELS = ["peer-four-bar", "peer-quarter-car", "multilink-transient"]

def _solver(system, opts, dense=False):
    slv, st = started(get_solver(GA)(system, linear_solver="dense" if dense else "sparse", **opts),
                      system)
    assert slv.fused != dense
    return slv, st


def _close_steps(sa, ta, sb, tb, n, inputs=(), rtol=1e-9):
    """``n`` steps of both (the inputs of each step on each system first): q, q̇ and the extra
    states agree after every step within ``rtol`` of each coordinate's largest magnitude (at
    least 1; test_golden's convention)."""
    rows = ([], [])
    for k in range(n):
        for s in inputs:
            _inputs(s, k)
        assert sa.step(ta, H) and sb.step(tb, H)
        assert ta.t == tb.t
        for r, st in zip(rows, (ta, tb)):
            r.append(np.concatenate([st.q, st.qd, st.x]))
    a, b = np.array(rows[0]), np.array(rows[1])
    err = (np.abs(a - b) / np.maximum(np.abs(b).max(axis=0), 1.0)).max()
    assert err <= rtol, f"the engine's step and the dense one differ by {err:.2e}"


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("model", ["peer-four-bar", "peer-quarter-car"])
def test_the_engine_step_agrees_with_the_dense_python_step(model, config):
    """Sparse LU in C against numpy + dense LU, 100 steps: the same states to 1e-9."""
    a, b = fresh_data(model), fresh_data(model)
    (sa, ta), (sb, tb) = _solver(a, CONFIGS[config]), _solver(b, CONFIGS[config], dense=True)
    q0 = ta.q.copy()
    _close_steps(sa, ta, sb, tb, 100, (a, b))
    assert _counters(sa)[:4] == _counters(sb)[:4]
    assert np.abs(ta.q - q0).max() > 1e-4  # (it moved)


@pytest.mark.parametrize("config", ["velocity", "projection"])
@pytest.mark.parametrize("model", ["peer-quarter-car", "multilink-transient"])
def test_step_outputs_and_rollout_equal_the_compiled_step(model, config):
    """``step_outputs`` (one compiled call) publishes what ``step`` then ``system.outputs`` gives
    (at the step's end, or at its start as ``Solver.step_outputs`` does); the compiled rollout
    takes the same steps with the same inputs and returns the same rows and counters, and a
    second rollout goes on from the solver's state (a, q̈, λ) as the loop of steps does."""
    a, b, c, d = (fresh_data(model) for _ in range(4))
    (sa, ta), (sb, tb), (sc, tc), (sd, td) = (_solver(s, CONFIGS[config]) for s in (a, b, c, d))
    assert compiled(sc)
    half = N // 2
    inputs = ({"drive_torque": TORQUE[:half]}, {"drive_torque": TORQUE[half:]}) \
        if "drive_torque" in c.input_names else (None, None)
    r1 = rollout(sc, tc, half, H, inputs=inputs[0], every=3)
    r2 = rollout(sc, tc, N - half, H, inputs=inputs[1], every=3, time_origin=(0.0, half))
    ya, yb, yd, yd0 = (np.zeros(len(a.output_names)) for _ in range(4))
    rows = []
    for k in range(N):
        for s in (a, b, d):
            _inputs(s, k)
        assert sa.step_outputs(ta, H, ya)
        assert sb.step(tb, H)
        b.outputs(tb.t, tb.q, tb.qd, yb)
        assert np.array_equal(ya, yb), f"outputs differ at step {k + 1}"
        d.outputs(td.t, td.q, td.qd, yd0, extra_step=H)  # (the base class's at_start outputs)
        assert sd.step_outputs(td, H, yd, at_start=True)
        assert np.array_equal(yd, yd0), f"outputs at the start differ at step {k + 1}"
        if (k + 1) % 3 == 0:
            rows.append((ta.q.copy(), ta.qd.copy(), sa.lam.copy(), ta.x.copy(), ya.copy()))
    for x in (ta.q, tc.q, td.q):
        assert np.array_equal(x, tb.q)
    assert np.array_equal(ta.x, tb.x) and np.array_equal(sc.a, sb.a) and np.array_equal(sc.lam, sb.lam)
    assert r1.status == r2.status == 1 and r1.nsteps + r2.nsteps == N
    for j, name in enumerate(("q", "qd", "lam", "x")):
        got = np.concatenate([getattr(r1, name), getattr(r2, name)])
        assert np.array_equal(got, np.array([row[j] for row in rows])), name
    y = np.array([row[4] for row in rows])
    for j, name in enumerate(c.output_names):
        assert np.array_equal(np.concatenate([r1.outputs[name], r2.outputs[name]]), y[:, j]), name
    assert tc.t == pytest.approx(ta.t, rel=0, abs=1e-12)  # (t0 + k h against a sum of h)
    assert _counters(sc) == _counters(sa) == _counters(sb) == _counters(sd)
    assert sc.ratio == sb.ratio and sc.kkt.lu.growth == sb.kkt.lu.growth


@pytest.mark.parametrize("config", ["velocity", "projection"])
def test_rollout_stops_at_a_failing_step_and_keeps_the_last_good_state(config):
    """A torque of 1e25 N m at step 21 throws the wheel off: the engine's rollout stops at the
    first failed or diverging step with the state and the rows of the good steps before it."""
    torque = np.zeros(50)
    torque[20] = 1e25
    s = load_model("multilink-ideal").new_data()
    slv, st = _solver(s, CONFIGS[config])
    assert compiled(slv)
    r = rollout(slv, st, 50, H, inputs={"drive_torque": torque})
    k = r.nsteps  # (the implicit step may still be finite at step 21: its velocities are)
    assert r.status == -1 and k in (20, 21) and len(r.t) == k
    assert f"rollout stopped at step {k + 1} of 50" in r.message
    assert np.array_equal(st.q, r.q[-1]) and np.array_equal(st.qd, r.qd[-1])
    assert st.t == r.t[-1] and np.all(np.isfinite(st.q))
    assert slv.status == -1 and slv.nstep == k + 1  # (the failed step is counted, as from Python)


@pytest.mark.parametrize("config", ["velocity", "projection"])
def test_the_compiled_step_makes_no_python_level_kernel_call(monkeypatch, config):
    """The step is the one compiled call: the Python-driven step's evaluations and kernels are
    replaced by functions that raise, and the steps still run, counted as that step counts."""
    from rtmbs.solvers import generalized_alpha

    system = load_model("peer-quarter-car")
    slv, st = _solver(system, CONFIGS[config])

    def refuse(*args, **kwargs):
        raise AssertionError("called from Python")

    monkeypatch.setattr(type(system), "evaluate", refuse)
    monkeypatch.setattr(type(system), "evaluate_packed", refuse)
    monkeypatch.setattr(type(system), "advance_extra", refuse)
    for name in ("evaluate", "_predict", "_newton", "_velocity", "_finish", "kkt_factor",
                 "kkt_correction", "finite"):
        monkeypatch.setattr(generalized_alpha, name, refuse)
    before = (slv.neval, slv.nfactor, slv.nsolve)
    for _ in range(10):
        assert slv.step(st, H)
    expected = {"velocity": (4, 1, 5), "projection": (4, 2, 5)}[config]
    assert tuple((a - b) // 10 for a, b in
                 zip((slv.neval, slv.nfactor, slv.nsolve), before)) == expected


def test_fallbacks_of_both_factorisations_are_counted_and_keep_the_results():
    """With the growth limit at 0 every factorisation of the iteration matrix and of the
    projection matrix is flagged (refined solves): counted (one per factorisation), the results
    those of the unflagged factors to round-off."""
    out = {}
    for flagged in (False, True):
        s = load_model("peer-quarter-car")
        slv, st = _solver(s, CONFIGS["projection"])
        if flagged:
            slv.kkt.lu.growth_limit = 0.0
            slv.pkkt.lu.growth_limit = 0.0
        rows = []
        for _ in range(30):
            assert slv.step(st, H)
            rows.append(np.concatenate([st.q, st.qd]))
        out[flagged] = (slv.nfallback, slv.pkkt.lu.nfallback, np.array(rows))
    assert out[True][0] == 60 and out[True][1] == 30 and out[False][0] == 0
    scale = np.maximum(np.abs(out[False][2]).max(axis=0), 1.0)
    assert (np.abs(out[True][2] - out[False][2]) / scale).max() < 1e-9


def test_the_state_between_steps_lives_in_the_compiled_buffer():
    """a, q̈ and λ are views of the buffer the compiled step updates (so a rollout continues
    from them), and the kernel is the module's."""
    s = fresh_data("peer-quarter-car")
    slv, st = _solver(s, {})
    for v in (slv.a, slv.qdd, slv.lam):
        assert np.shares_memory(v, slv.vec)
    assert slv.kernel_args[-1] is slv.vec
    assert slv.rollout_runner is generalized_alpha.run_rollout
    assert get_solver(GA)(s, linear_solver="dense").rollout_runner is None


def test_without_constraints_the_compiled_step_is_the_python_driven_one():
    """m = 0 (four bodies in zxz angles on springs to the ground): the iteration matrix is
    M − sγ'Jq̇ − sJq alone, no stabilisation; the engine's step and rollout run it as the dense
    step from Python does (to round-off)."""
    from rtmbs.model.files import model_from_dict
    from rtmbs.system import compile_model

    bodies, forces = [], []
    for i in range(4):
        bodies.append(dict(name=f"b{i}", mass=1.0, inertia=[0.1, 0.1, 0.1],
                           position=[float(i), 0.0, 0.0], orientation={"z_axis": [0, 1, 0]},
                           markers={"m": {"position": [0.0, 0.0, 0.0]}}))
        forces.append(dict(name=f"s{i}", type="spring-damper", marker_i=f"b{i}.m",
                           marker_j=f"ground.g{i}", stiffness=100.0, damping=1.0,
                           free_length=0.5))
    s = compile_model(model_from_dict(dict(
        name="free", gravity=[0, 0, -9.81], orientation_coordinates="euler-angles-zxz",
        bodies=bodies, forces=forces,
        ground={"markers": {f"g{i}": {"position": [float(i), 0.0, 1.0]} for i in range(4)}})))
    assert s.m == 0 and s.n == 24
    (sa, ta), (sb, tb) = _solver(s.new_data(), {}), _solver(s.new_data(), {}, dense=True)
    assert sa.stabilize == "none"
    _close_steps(sa, ta, sb, tb, 50)
    r = rollout(sa, ta, 50, H)
    for _ in range(50):
        assert sb.step(tb, H)
    assert r.status == 1 and r.lam.shape == (50, 0)
    np.testing.assert_allclose(ta.q, tb.q, rtol=0, atol=1e-9)
    assert _counters(sa)[:4] == _counters(sb)[:4]
