"""``explicit-euler`` as one call of the C engine per step (explicit_euler.c,
fixed_rollout.c): in every stabilisation the step agrees with the dense step driven from Python
(numpy and the engine's dense LU) to round-off with the same counts; ``step_outputs`` and the
engine's ``rollout`` take exactly the steps of the step (``simulate``: test_simulate_compiled.py);
the stabilisations act; the semi-implicit update does not gain energy."""
import numpy as np
import pytest
from _models.fused import N, TORQUE, counters as _counters, started

from _models.library import fresh_data
from rtmbs.models import load_model
from rtmbs.solvers import explicit
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.rollout import DIVERGENCE_LIMIT, compiled, rollout

H = 1e-3
STABS = ["none", "baumgarte", "projection"]
#: + the semi-implicit update (q + h q̇⁺) with the projection, in the bit-for-bit comparison
CONFIGS = STABS + ["projection-semi"]
#: the four-bar (n = 21), the quarter car, and the multilink with transient tyres (extra states)
#: under a drive torque ramp
MODELS = ["peer-four-bar", "peer-quarter-car", "multilink-transient"]


@pytest.fixture(scope="module")
def data():
    """``data(model)``: fresh data (``new_data``) of a model compiled once."""
    return fresh_data


def _drive(systems, k):
    """The drive torque of step k, on the systems that have that input."""
    for s in systems:
        if "drive_torque" in s.input_names:
            s.set_input("drive_torque", TORQUE[k])


def _solver(system, stabilize, dense=False):
    """The solver of ``stabilize`` (with "-semi": ``position_update="semi-implicit"``), reset."""
    semi = stabilize.endswith("-semi")
    slv = get_solver("explicit-euler")(
        system, linear_solver="dense" if dense else "sparse",
        stabilize=stabilize.removesuffix("-semi"),
        position_update="semi-implicit" if semi else "explicit")
    assert slv.semi_implicit == semi
    slv, st = started(slv, system)
    assert slv.fused != dense
    return slv, st


@pytest.mark.parametrize("stabilize", CONFIGS)
@pytest.mark.parametrize("model", MODELS)
def test_the_engine_step_agrees_with_the_dense_python_step(data, model, stabilize):
    """Sparse LU in C against numpy + dense LU: q, q̇, λ and the extra states after every step
    within 1e-9 of each coordinate's largest magnitude (at least 1); the same counts. (On the
    multilink explicit Euler at 1 ms is at its stability limit on the stiff tyres and magnifies
    round-off by 1e5 in 50 steps, 1e14 in 100: compared over its first 30 steps.)"""
    a, b = data(model), data(model)
    (sa, ta), (sb, tb) = _solver(a, stabilize), _solver(b, stabilize, dense=True)
    q0 = ta.q.copy()
    rows = ([], [])
    n = 30 if model == "multilink-transient" else N
    for k in range(n):
        _drive((a, b), k)
        assert sa.step(ta, H) and sb.step(tb, H)
        assert ta.t == tb.t
        for r, slv, st in zip(rows, (sa, sb), (ta, tb)):
            r.append(np.concatenate([st.q, st.qd, slv.lam, st.x]))
    got, want = np.array(rows[0]), np.array(rows[1])
    err = (np.abs(got - want) / np.maximum(np.abs(want).max(axis=0), 1.0)).max()
    assert err <= 1e-9, f"the engine's step and the dense one differ by {err:.2e}"
    assert _counters(sa)[:4] == _counters(sb)[:4]
    assert sa.nanalyse == 0 and sa.nstep == n
    per_step = (2, 1, 2) if stabilize.startswith("projection") else (1, 1, 1)
    assert (sa.neval, sa.nfactor, sa.nsolve) == tuple(n * c for c in per_step)
    assert np.abs(ta.q - q0).max() > (1e-3 if n == N else 1e-6)  # (it moved)
    assert np.abs(sa.lam).max() > 0.0
    if model == "multilink-transient":
        assert abs(ta.x[0]) > 1e-9  # the deflections built up and were advanced alike


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
    assert compiled(sc) and sc.rollout_runner is explicit.run_rollout
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
def test_step_outputs_at_the_start_are_those_before_the_step(data, model):
    """``at_start``: the outputs at the state the step starts from (with the forces it applies:
    transient deflections at the step's end), gathered from the step's own evaluation: those of
    ``system.outputs`` at that state (the base class's ``at_start`` form)."""
    a, b = data(model), data(model)
    (sa, ta), (sb, tb) = _solver(a, "projection"), _solver(b, "projection")
    ya, yb = np.zeros(len(a.output_names)), np.zeros(len(b.output_names))
    for k in range(30):
        _drive((a, b), k)
        b.outputs(tb.t, tb.q, tb.qd, yb, extra_step=H)
        assert sb.step(tb, H)
        assert sa.step_outputs(ta, H, ya, at_start=True)
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
    (sa, ta), (sb, tb) = _solver(a, stabilize), _solver(b, stabilize)
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
    for name in ("evaluate", "kkt_factor", "kkt_rhs_solve", "kkt_correction", "baumgarte_index1"):
        monkeypatch.setattr(explicit, name, refuse)
    monkeypatch.setattr(type(slv.kkt), "factor", refuse)
    before = (slv.neval, slv.nfactor, slv.nsolve)
    out = np.zeros(len(system.output_names))
    for k in range(10):
        assert slv.step(st, H) if k % 2 else slv.step_outputs(st, H, out)
    expected = (2, 1, 2) if stabilize == "projection" else (1, 1, 1)
    assert tuple((a - b) // 10 for a, b in
                 zip((slv.neval, slv.nfactor, slv.nsolve), before)) == expected


def test_fallbacks_are_counted_and_keep_the_results(data):
    """With the growth limit at 0 every factorisation is flagged (refined solves): counted (one
    per step), the results those of the unflagged factors to round-off."""
    out = {}
    for flagged in (False, True):
        s = data("peer-quarter-car")
        slv, st = _solver(s, "projection")
        if flagged:
            slv.kkt.lu.growth_limit = 0.0
        rows = []
        for _ in range(30):
            assert slv.step(st, H)
            rows.append(np.concatenate([st.q, st.qd]))
        out[flagged] = (slv.nfallback, np.array(rows))
    assert out[True][0] == 30 and out[False][0] == 0
    scale = np.maximum(np.abs(out[False][1]).max(axis=0), 1.0)
    assert (np.abs(out[True][1] - out[False][1]) / scale).max() < 1e-9


def test_the_default_is_the_compiled_step_where_it_applies(data):
    """The engine's step on the sparse path of a compiled Cartesian model (``instrument`` too: it
    times the engine's step), at every size with "auto" (the double pendulum: n = 14); the
    Python-driven step on the dense path."""
    s = data("peer-quarter-car")
    assert get_solver("explicit-euler")(s).fused
    assert get_solver("explicit-euler")(s, instrument=True).fused
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
