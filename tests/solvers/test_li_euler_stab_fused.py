"""``li-euler`` with Baumgarte, GGL and ``projection="mass"`` as one call of the C engine per step
(src/rtmbs/engine/li_euler.c): ``step_outputs`` and the engine's ``rollout`` take
exactly the steps of the step; a failing step stops the rollout at the last good state; the
stabilisations still do what they are for; no Python-level kernel runs in a step; the fallbacks of
both factorisations are counted and leave the results unchanged."""
import numpy as np
import pytest
from _models.fused import N, TORQUE, counters as _counters, ramp_inputs as _inputs, started

from _models.library import fresh_data
from rtmbs.models import load_model
from rtmbs.protocol import EVAL_PHI, EVAL_PHIQ
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.rollout import compiled, rollout

H = 1e-3
CONFIGS = {
    "baumgarte": {"stabilize": "baumgarte"},
    "baumgarte-gamma-all": {"stabilize": "baumgarte", "baumgarte_gamma": 200.0,
                            "jacobian": "all"},
    "mass": {"stabilize": "projection", "projection": "mass"},
    "mass-explicit": {"stabilize": "projection", "projection": "mass",
                      "position_update": "explicit"},
    "ggl": {"stabilize": "ggl"},
    "ggl-3": {"stabilize": "ggl", "ggl_iterations": 3},
}
#: the four-bar, the quarter car, and the multilink with transient
#: tyres (extra states) under a drive torque ramp
MODELS = ["four-bar", "peer-quarter-car", "multilink-transient"]

def _solver(system, opts, instrument=False):
    slv, st = started(get_solver("li-euler")(system, instrument=instrument, linear_solver="sparse",
                                             **opts), system)
    assert slv.fused
    return slv, st


def _second_lu(slv):
    """The SparseLU of the step's second KKT (GGL's or the projector's; None for Baumgarte)."""
    if slv.sggl is not None:
        return slv.sggl.lu
    return slv.sproj.kkt.lu if slv.sproj is not None else None


@pytest.mark.parametrize("config", ["baumgarte", "mass", "ggl-3"])
@pytest.mark.parametrize("model", MODELS)
def test_step_outputs_and_rollout_equal_the_compiled_step(model, config):
    """``step_outputs`` (one compiled call) publishes what ``step`` then ``system.outputs`` gives;
    the compiled rollout takes the same steps with the same inputs and returns the same rows."""
    a, b, c = fresh_data(model), fresh_data(model), fresh_data(model)
    (sa, ta), (sb, tb), (sc, tc) = (_solver(s, CONFIGS[config]) for s in (a, b, c))
    assert compiled(sc)
    inputs = {"drive_torque": TORQUE} if "drive_torque" in c.input_names else None
    r = rollout(sc, tc, N, H, inputs=inputs, every=3)
    ya, yb = np.zeros(len(a.output_names)), np.zeros(len(b.output_names))
    rows = []
    for k in range(N):
        _inputs(a, k)
        _inputs(b, k)
        assert sa.step_outputs(ta, H, ya)
        assert sb.step(tb, H)
        b.outputs(tb.t, tb.q, tb.qd, yb)
        assert np.array_equal(ya, yb), f"outputs differ at step {k + 1}"
        if (k + 1) % 3 == 0:
            rows.append((ta.q.copy(), ta.qd.copy(), sa.lam.copy(), ta.x.copy(), ya.copy()))
    assert np.array_equal(ta.q, tb.q) and np.array_equal(ta.x, tb.x)
    assert r.status == 1 and r.nsteps == N and len(r.t) == N // 3
    for j, name in enumerate(("q", "qd", "lam", "x")):
        assert np.array_equal(getattr(r, name), np.array([row[j] for row in rows])), name
    y = np.array([row[4] for row in rows])
    for j, name in enumerate(c.output_names):
        assert np.array_equal(r.outputs[name], y[:, j]), name
    assert np.array_equal(tc.q, ta.q) and np.array_equal(tc.qd, ta.qd)
    assert tc.t == pytest.approx(ta.t, rel=0, abs=1e-12)  # (t0 + k h against a sum of h)
    assert _counters(sc) == _counters(sa) == _counters(sb)


@pytest.mark.parametrize("config", ["baumgarte", "mass", "ggl"])
def test_rollout_stops_at_a_failing_step_and_keeps_the_last_good_state(config):
    s = load_model("multilink-ideal").new_data()
    slv, st = _solver(s, CONFIGS[config])
    torque = np.zeros(50)
    torque[20] = 1e25  # throws the wheel off at step 21
    r = rollout(slv, st, 50, H, inputs={"drive_torque": torque})
    assert r.status == -1 and r.nsteps == 20 and len(r.t) == 20
    assert "rollout stopped at step 21 of 50" in r.message
    assert np.array_equal(st.q, r.q[-1]) and np.array_equal(st.qd, r.qd[-1])
    assert st.t == r.t[-1] and np.all(np.isfinite(st.q))
    assert slv.status == -1 and slv.nstep == 21  # (the failed step is counted, as from Python)


def _residuals(system, slv, st, n_steps):
    """‖Φ(q)‖ and ‖Φq q̇ + Φt‖ after each of ``n_steps`` steps."""
    ws = system.workspace()
    phi, phid = [], []
    for _ in range(n_steps):
        assert slv.step(st, H)
        system.evaluate(st.t, st.q, st.qd, ws, EVAL_PHI | EVAL_PHIQ)
        phi.append(np.linalg.norm(ws.phi))
        phid.append(np.linalg.norm(ws.phiq @ st.qd + ws.phit))
    return np.array(phi), np.array(phid)


def test_ggl_baumgarte_and_mass_projection_keep_the_constraints_on_the_compiled_path():
    """On the four-bar (explicit positions, 1000 steps): without stabilisation Φ drifts. GGL keeps
    it at the Newton residual of its corrections (two of them: round-off) with the velocity
    constraint met at the corrected positions; Baumgarte (γ_B = 1/h) imposes
    Φq q̇⁺ + Φt = −Φ/h at the new positions (= the predicted ones) every step and so keeps Φ at
    about one step's defect; projection="mass" leaves a Newton step's residual."""
    out = {}
    for name, opts in (("none", {"stabilize": "none", "position_update": "explicit"}),
                       ("ggl-2", {"stabilize": "ggl", "ggl_iterations": 2}),
                       ("ggl-1", {"stabilize": "ggl"}),
                       ("baumgarte", {"stabilize": "baumgarte"}),
                       ("mass", CONFIGS["mass-explicit"])):
        s = load_model("four-bar")
        slv, st = _solver(s, opts)
        assert slv.fused
        out[name] = _residuals(s, slv, st, 1000)
    drift = out["none"][0].max()
    assert drift > 1e-3 and out["none"][0][-1] > 10 * out["none"][0][99], "Φ grows unstabilised"
    phi, phid = out["ggl-2"]
    assert phi.max() < 1e-12 and phid.max() < 1e-9
    phi, phid = out["ggl-1"]
    assert phi.max() < 1e-6 * drift and phid.max() < 1e-9
    phi, phid = out["baumgarte"]
    np.testing.assert_allclose(phid, phi / H, rtol=1e-6, atol=1e-12)
    assert phi.max() < 0.05 * drift
    assert out["mass"][0].max() < 1e-5 * drift


@pytest.mark.parametrize("config", ["baumgarte", "mass", "ggl-3"])
def test_the_compiled_step_makes_no_python_level_kernel_call(monkeypatch, config):
    """The step is the one compiled call: the Python-driven step's evaluations and kernels are
    replaced by functions that raise, and the steps still run, counted as that step counts."""
    from rtmbs.solvers import li_euler, stabilization

    system = load_model("peer-quarter-car")
    slv, st = _solver(system, CONFIGS[config])

    def refuse(*args, **kwargs):
        raise AssertionError("called from Python")

    monkeypatch.setattr(type(system), "evaluate", refuse)
    monkeypatch.setattr(type(system), "evaluate_packed", refuse)
    for name in ("evaluate", "_factor", "_solve", "_ggl_newton", "update", "kkt_correction",
                 "lu_factor", "lu_solve"):
        monkeypatch.setattr(li_euler, name, refuse)
    monkeypatch.setattr(stabilization.Projector, "correct", refuse)
    before = (slv.neval, slv.nfactor, slv.nsolve)
    for _ in range(10):
        assert slv.step(st, H)
    k = CONFIGS[config].get("ggl_iterations", 1)
    expected = {"baumgarte": (2, 1, 1), "mass": (3, 2, 2), "ggl-3": (2 + k, 2, 1 + k)}[config]
    assert tuple((a - b) // 10 for a, b in
                 zip((slv.neval, slv.nfactor, slv.nsolve), before)) == expected


@pytest.mark.parametrize("config", ["mass", "ggl"])
def test_fallbacks_of_both_factorisations_are_counted_and_keep_the_results(config):
    """With the growth limit at 0 every factorisation of eq. 22 and of the second KKT is flagged
    (refined solves): counted (one per factorisation), and the results are those of the
    unflagged factors to round-off."""
    out = {}
    for flagged in (False, True):
        s = load_model("peer-quarter-car")
        slv, st = _solver(s, CONFIGS[config])
        if flagged:
            slv.skkt.lu.growth_limit = 0.0
            _second_lu(slv).growth_limit = 0.0
        rows = []
        for _ in range(30):
            assert slv.step(st, H)
            rows.append(np.concatenate([st.q, st.qd, slv.lam]))
        out[flagged] = (slv.nfallback, _second_lu(slv).nfallback, np.array(rows))
    assert out[True][0] == 60 and out[True][1] == 30 and out[False][0] == 0
    scale = np.maximum(np.abs(out[False][2]).max(axis=0), 1.0)
    assert (np.abs(out[True][2] - out[False][2]) / scale).max() < 1e-7  # (λ: 1.1e-9 measured)
