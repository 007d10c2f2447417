"""``explicit-euler`` as one compiled call per step (issue 11,
``rtmbs.solvers.compiled_explicit``): in every stabilisation the same trajectories, multipliers,
extra states, counters and factor statistics **bit for bit** as the step driven kernel by kernel
from Python (``instrument=True`` runs that one: the packed gather reads the same values in the
same order as the dense one, and Baumgarte's Φq q̇ + Φt is summed from Φt over each row's columns
in ascending order, as the dense loop sums it, so nothing is summed in another order);
``step_outputs``, the compiled ``rollout`` and ``simulate`` take exactly the steps of the compiled
step."""
import numpy as np
import pytest

from rtmbs.models import load_model
from rtmbs.models.multilink import build
from rtmbs.solvers import compiled_explicit, explicit
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.rollout import DIVERGENCE_LIMIT, compiled, rollout
from rtmbs.solvers.simulate import simulate

H = 1e-3
N = 300
STABS = ["none", "baumgarte", "projection"]
#: + the semi-implicit update (q + h q̇⁺) with the projection, in the bit-for-bit comparison
CONFIGS = STABS + ["projection-semi"]
#: the four-bar (n = 21), the quarter car, and the multilink with transient tyres (extra states)
#: under a drive torque ramp
MODELS = ["peer-four-bar", "peer-quarter-car", "multilink-transient"]
TORQUE = np.linspace(0.0, 400.0, N)



@pytest.fixture(scope="module")
def data():
    """``data(model)``: fresh data (``new_data``) of a model compiled once for the module."""
    built = {}

    def fresh(model):
        if model not in built:
            built[model] = (build("ideal", transient=True) if model == "multilink-transient"
                            else load_model(model))
        return built[model].new_data()
    return fresh


def _drive(systems, k):
    """The drive torque of step k, on the systems that have that input."""
    for s in systems:
        if "drive_torque" in s.input_names:
            s.set_input("drive_torque", TORQUE[k])


def _solver(system, stabilize, instrument=False):
    """The solver of ``stabilize`` (with "-semi": ``position_update="semi-implicit"``), reset."""
    semi = stabilize.endswith("-semi")
    slv = get_solver("explicit-euler")(
        system, instrument=instrument, linear_solver="sparse",
        stabilize=stabilize.removesuffix("-semi"),
        position_update="semi-implicit" if semi else "explicit")
    assert slv.semi_implicit == semi
    st = system.initial_state()
    slv.reset(st)
    assert slv.fused != instrument
    return slv, st


def _counters(slv):
    return (slv.nstep, slv.neval, slv.nfactor, slv.nsolve, slv.nfallback, slv.nanalyse)


@pytest.mark.parametrize("stabilize", CONFIGS)
@pytest.mark.parametrize("model", MODELS)
def test_compiled_step_is_bit_identical_to_the_python_driven_step(data, model, stabilize):
    a, b = data(model), data(model)
    (sa, ta), (sb, tb) = _solver(a, stabilize), _solver(b, stabilize, True)
    q0 = ta.q.copy()
    for k in range(N):
        _drive((a, b), k)
        assert sa.step(ta, H) and sb.step(tb, H)
        for name, x, y in (("q", ta.q, tb.q), ("qd", ta.qd, tb.qd), ("lam", sa.lam, sb.lam),
                           ("x", ta.x, tb.x)):
            assert np.array_equal(x, y), f"{name} differs at step {k + 1}"
        assert ta.t == tb.t
        # the factor statistics, kept as the Python-driven step keeps them
        assert (sa.kkt.ratio, sa.kkt.lu.ratio, sa.kkt.lu.growth) == (
            sb.kkt.ratio, sb.kkt.lu.ratio, sb.kkt.lu.growth), f"step {k + 1}"
    assert _counters(sa) == _counters(sb)
    assert sa.nanalyse == 0 and sa.nstep == N
    per_step = (2, 1, 2) if stabilize.startswith("projection") else (1, 1, 1)
    assert (sa.neval, sa.nfactor, sa.nsolve) == tuple(N * c for c in per_step)
    assert np.abs(ta.q - q0).max() > 1e-3  # (it moved)
    assert np.abs(sa.lam).max() > 0.0
    if model == "multilink-transient":
        assert abs(ta.x[0]) > 1e-5  # the deflections built up and were advanced alike


def test_the_stabilisations_act_on_the_compiled_path(data):
    """Baumgarte and the projection change the step (the options reach the compiled call) and
    keep Φ below the unstabilised drift (four-bar, 300 steps)."""
    from rtmbs.protocol import EVAL_PHI

    phi = {}
    for stabilize in STABS:
        s = data("peer-four-bar")
        slv, st = _solver(s, stabilize)
        for _ in range(N):
            assert slv.step(st, H)
        ws = s.workspace()
        s.evaluate(st.t, st.q, st.qd, ws, EVAL_PHI)
        phi[stabilize] = np.linalg.norm(ws.phi)
    assert phi["none"] > 1e-4
    assert phi["baumgarte"] < 0.2 * phi["none"]
    assert phi["projection"] < 1e-4 * phi["none"]


@pytest.mark.parametrize("stabilize", STABS)
@pytest.mark.parametrize("model", MODELS)
def test_step_outputs_and_rollout_equal_the_compiled_step(data, model, stabilize):
    """``step_outputs`` (one compiled call) publishes what ``step`` then ``system.outputs`` gives;
    the compiled rollout (with the drive torque over time where the model has it) takes the same
    steps with the same inputs and returns the same rows, outputs and counters."""
    a, b, c = data(model), data(model), data(model)
    (sa, ta), (sb, tb), (sc, tc) = (_solver(s, stabilize) for s in (a, b, c))
    assert compiled(sc) and sc.rollout_runner is compiled_explicit.run
    inputs = {"drive_torque": TORQUE} if "drive_torque" in c.input_names else None
    r = rollout(sc, tc, N, H, inputs=inputs, every=3)
    ya, yb = np.zeros(len(a.output_names)), np.zeros(len(b.output_names))
    rows = []
    for k in range(N):
        _drive((a, b), k)
        prev = ta.qd.copy()
        assert sa.step_outputs(ta, H, ya)
        assert sb.step(tb, H)
        b.outputs(tb.t, tb.q, tb.qd, yb)
        assert np.array_equal(ya, yb), f"outputs differ at step {k + 1}"
        if (k + 1) % 3 == 0:
            rows.append((ta.q.copy(), ta.qd.copy(), prev, sa.lam.copy(), ta.x.copy(), ya.copy()))
    assert np.array_equal(ta.q, tb.q) and np.array_equal(ta.x, tb.x)
    assert r.status == 1 and r.nsteps == N and len(r.t) == N // 3
    for j, name in enumerate(("q", "qd", "qd_prev", "lam", "x")):
        assert np.array_equal(getattr(r, name), np.array([row[j] for row in rows])), name
    np.testing.assert_allclose(r.t, H * np.arange(3, N + 1, 3), rtol=0, atol=1e-12)
    y = np.array([row[5] for row in rows])
    for j, name in enumerate(c.output_names):
        assert np.array_equal(r.outputs[name], y[:, j]), name
    assert np.array_equal(tc.q, ta.q) and np.array_equal(tc.qd, ta.qd)
    assert np.array_equal(tc.x, ta.x) and np.array_equal(sc.lam, sa.lam)
    assert tc.t == pytest.approx(ta.t, rel=0, abs=1e-12)  # (t0 + k h against a sum of h)
    assert _counters(sc) == _counters(sa) == _counters(sb)


@pytest.mark.parametrize("model", ["peer-quarter-car", "multilink-transient"])
def test_step_outputs_at_the_start_are_the_python_driven_ones(data, model):
    """``at_start``: the outputs at the state the step starts from (with the forces it applies:
    transient deflections at the step's end), gathered from the step's own evaluation."""
    a, b = data(model), data(model)
    (sa, ta), (sb, tb) = _solver(a, "projection"), _solver(b, "projection", True)
    ya, yb = np.zeros(len(a.output_names)), np.zeros(len(b.output_names))
    for k in range(30):
        _drive((a, b), k)
        assert sa.step_outputs(ta, H, ya, at_start=True)
        assert sb.step_outputs(tb, H, yb, at_start=True)
        assert np.array_equal(ya, yb), f"outputs differ at step {k + 1}"
        assert np.array_equal(ta.q, tb.q) and np.array_equal(ta.x, tb.x)
    assert _counters(sa) == _counters(sb)


def _python_loop(system, slv, st, torque):
    """The reference: ``step`` from Python with the rollout's stop at a failed or diverging
    step (the last good state put back)."""
    qs = []
    for k in range(len(torque)):
        system.set_input("drive_torque", torque[k])
        good = (st.q.copy(), st.qd.copy())
        ok = slv.step(st, H)
        if not ok or not (np.abs(st.q).max() < DIVERGENCE_LIMIT
                          and np.abs(st.qd).max() < DIVERGENCE_LIMIT):
            st.q[:], st.qd[:] = good
            return k, np.array(qs)
        qs.append(st.q.copy())
    return len(torque), np.array(qs)


@pytest.mark.parametrize("stabilize", ["none", "projection"])
def test_rollout_stops_at_a_diverging_step_and_keeps_the_last_good_state(data, stabilize):
    a, b = data("multilink-ideal"), data("multilink-ideal")
    (sa, ta), (sb, tb) = _solver(a, stabilize), _solver(b, stabilize, True)
    torque = np.zeros(50)
    torque[20] = 1e25  # throws the wheel off at step 21
    r = rollout(sa, ta, 50, H, inputs={"drive_torque": torque})
    done, qs = _python_loop(b, sb, tb, torque)
    assert done == 20
    assert r.status == -1 and r.nsteps == 20 and len(r.t) == 20
    assert "rollout stopped at step 21 of 50" in r.message
    assert np.array_equal(r.q, qs)
    assert np.array_equal(ta.q, r.q[-1]) and np.array_equal(ta.qd, r.qd[-1])
    assert np.array_equal(ta.q, tb.q) and np.array_equal(ta.qd, tb.qd)
    assert ta.t == r.t[-1] and np.all(np.isfinite(ta.q))
    assert sa.status == -1 and sa.nstep == 21  # (the failed step is counted, as from Python)
    assert _counters(sa) == _counters(sb)


def test_simulate_runs_the_compiled_rollout_and_gives_the_python_driven_result(monkeypatch):
    """``simulate`` goes through the compiled rollout (a Python step would raise) and saves what
    the Python-driven step gives (``instrument=True``: its own loop), outputs and accelerations
    included."""
    ref = simulate(load_model("peer-quarter-car"), "explicit-euler", t_end=0.3, h=H,
                   save_every=2, instrument=True)

    def refuse(*args, **kwargs):
        raise AssertionError("a Python step")

    monkeypatch.setattr(explicit.ExplicitEuler, "step", refuse)
    res = simulate(load_model("peer-quarter-car"), "explicit-euler", t_end=0.3, h=H, save_every=2)
    assert res.meta["status"] == 1 and len(res.t) == 151
    for key in ("t", "q", "qd", "lam", "x", "phi_norm", "phid_norm"):
        assert np.array_equal(getattr(res, key), getattr(ref, key)), key
    assert res.outputs.keys() == ref.outputs.keys()
    for nm in res.outputs:
        assert np.array_equal(res.outputs[nm], ref.outputs[nm]), nm
    assert res.meta["steps"] == ref.meta["steps"] == 300


@pytest.mark.parametrize("stabilize", STABS)
def test_the_compiled_step_makes_no_python_level_kernel_call(data, monkeypatch, stabilize):
    """The step is the one compiled call: the Python-driven step's evaluations and kernels are
    replaced by functions that raise, and the steps still run, counted as that step counts."""
    system = data("peer-quarter-car")
    slv, st = _solver(system, stabilize)

    def refuse(*args, **kwargs):
        raise AssertionError("called from Python")

    monkeypatch.setattr(type(system), "evaluate", refuse)
    monkeypatch.setattr(type(system), "evaluate_packed", refuse)
    monkeypatch.setattr(type(system), "advance_extra", refuse)
    for name in ("evaluate", "kkt_rhs_solve", "kkt_correction", "baumgarte_index1", "_update"):
        monkeypatch.setattr(explicit, name, refuse)
    monkeypatch.setattr(type(slv.kkt), "factor", refuse)
    before = (slv.neval, slv.nfactor, slv.nsolve)
    out = np.zeros(len(system.output_names))
    for k in range(10):
        assert slv.step(st, H) if k % 2 else slv.step_outputs(st, H, out)
    expected = (2, 1, 2) if stabilize == "projection" else (1, 1, 1)
    assert tuple((a - b) // 10 for a, b in
                 zip((slv.neval, slv.nfactor, slv.nsolve), before)) == expected


def test_fallbacks_are_counted_and_computed_alike(data):
    """With the growth limit at 0 every factorisation is flagged (refined solves): counted (one
    per step) and computed alike on both paths."""
    out = {}
    for instrument in (False, True):
        s = data("peer-quarter-car")
        slv, st = _solver(s, "projection", instrument)
        slv.kkt.lu.growth_limit = 0.0
        rows = []
        for _ in range(30):
            assert slv.step(st, H)
            rows.append(np.concatenate([st.q, st.qd, slv.lam]))
        out[instrument] = (slv.nfallback, slv.last_fallback, np.array(rows))
    assert out[False][:2] == out[True][:2] and out[False][0] == 30
    assert np.array_equal(out[False][2], out[True][2])


def test_the_default_is_the_compiled_step_where_it_applies(data):
    """Compiled on the sparse path of a compiled Cartesian model unless ``instrument``, at every
    size with "auto" (the double pendulum: n = 14); the Python-driven step on the dense path."""
    s = data("peer-quarter-car")
    assert get_solver("explicit-euler")(s).fused
    assert not get_solver("explicit-euler")(s, instrument=True).fused
    d = load_model("double-pendulum")
    assert d.n < 18 and get_solver("explicit-euler")(d).fused
    slv = get_solver("explicit-euler")(d, linear_solver="dense")
    assert not slv.sparse and not slv.fused and slv.rollout_runner is None
    st = d.initial_state()
    slv.reset(st)
    assert not compiled(slv)
    r = rollout(slv, st, 10, H)
    assert r.status == 1 and r.nsteps == 10


def test_the_semi_implicit_update_does_not_gain_energy_on_an_undamped_mechanism(data):
    """The undamped four-bar (no force but gravity) over 2 s with the projection: eq. 11's
    explicit update gains energy (forward Euler on an oscillation: +9.7 % at 2 s), the
    semi-implicit one (symplectic Euler, q + h q̇⁺) does not gain any; it loses 3.3 % (the
    projection of the positions alone is not symplectic)."""
    from rtmbs.models.peers import mechanical_energy

    energy = {}
    for update in ("explicit", "semi-implicit"):
        s = data("peer-four-bar")
        slv = get_solver("explicit-euler")(s, position_update=update)
        st = s.initial_state()
        slv.reset(st)
        e0 = mechanical_energy(s, st.q, st.qd)
        r = rollout(slv, st, 2000, H, outputs=False)
        assert r.status == 1, r.message
        e = mechanical_energy(s, r.q, r.qd)
        energy[update] = (e - e0) / abs(e0)
    assert energy["explicit"][-1] > 0.05
    assert energy["semi-implicit"].max() < 1e-4
    assert energy["semi-implicit"].min() > -0.05
