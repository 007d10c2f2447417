"""Algorithm 2 (``li-euler-indep`` with its one-call step) in the compiled rollout and with its
named outputs in the step (``rtmbs.solvers.rollout_indep``,
the bound step's ``step_outputs``): the same rows, state, multipliers, outputs,
extra states and counters bit for bit as a Python loop of ``step`` and ``system.outputs``, with
inputs over time, rebases (the compiled call returns to Python for them), transient tyres, a
state changed by the caller, and a diverging step."""
import numpy as np
import pytest

from rtmbs.models import load_model
from rtmbs.models.multilink import build
from rtmbs.solvers import rollout_indep
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.rollout import DIVERGENCE_LIMIT, compiled, rollout
from rtmbs.solvers.simulate import simulate

H = 1e-3


def _solver(system, opts):
    slv = get_solver("li-euler-indep")(system, **opts)
    st = system.initial_state()
    slv.reset(st)
    return slv, st


def _counts(slv):
    return (slv.nstep, slv.neval, slv.nfactor, slv.nsolve, slv.nrebase, slv.nfallback)


def _inputs(name, n):
    """Inputs over time for the models with input channels (none for the peers)."""
    k = np.arange(n)
    if name.startswith("multilink"):
        return {"drive_torque": np.linspace(0.0, 300.0, n)}
    if name.startswith("sedan"):
        return {"drive_torque": np.full(n, 400.0),
                "handwheel_angle": 0.3 * np.sin(2 * np.pi * k * H / 0.05)}
    return {}


def _loop(system, opts, n, inputs, every):
    """The reference: ``step`` then ``system.outputs`` from Python, with the rollout's row
    convention (t = t0 + k h, q̇ before the step) and its stop at a failed or diverging step."""
    slv, st = _solver(system, opts)
    t0 = st.t
    rows = {k: [] for k in ("t", "q", "qd", "qd_prev", "lam", "y", "x")}
    buf = np.zeros(len(system.output_names))
    done = 0
    for k in range(n):
        for nm, v in inputs.items():
            system.set_input(nm, v[k])
        good = (st.q.copy(), st.qd.copy(), st.x.copy())
        ok = slv.step(st, H)
        st.t = t0 + (k + 1) * H
        if not ok or not (np.abs(st.q).max() < DIVERGENCE_LIMIT
                          and np.abs(st.qd).max() < DIVERGENCE_LIMIT):
            st.q[:], st.qd[:], st.x[:] = good
            st.t = t0 + k * H
            break
        done += 1
        if done % every == 0:
            system.outputs(st.t, st.q, st.qd, buf)
            for key, v in (("t", st.t), ("q", st.q), ("qd", st.qd), ("qd_prev", good[1]),
                           ("lam", slv.lam), ("y", buf), ("x", st.x)):
                rows[key].append(np.copy(v))
    return slv, st, done, rows


def _assert_rollout_is_the_loop(make, opts, n, every, monkeypatch):
    sys_a, sys_b = make(), make()
    inputs = _inputs(sys_a.name, n)
    slv_a, st_a = _solver(sys_a, opts)
    assert compiled(slv_a) and slv_a.rollout_runner is rollout_indep.run

    def refuse(*args, **kwargs):
        raise AssertionError("a Python step in the compiled rollout")

    monkeypatch.setattr(slv_a, "step", refuse)  # (the rebase's Python end is allowed)
    r = rollout(slv_a, st_a, n, H, inputs=inputs, every=every)
    slv_b, st_b, done, rows = _loop(sys_b, opts, n, inputs, every)
    assert done == n, f"the reference loop stopped at step {done + 1}"
    assert r.status == 1 and r.nsteps == n and len(r.t) == n // every
    y = np.array([r.outputs[nm] for nm in sys_a.output_names]).T
    for key, got in (("t", r.t), ("q", r.q), ("qd", r.qd), ("qd_prev", r.qd_prev),
                     ("lam", r.lam), ("y", y), ("x", r.x)):
        want = np.array(rows[key]).reshape(got.shape)
        assert np.array_equal(got, want), f"{key} differs"
    for name in ("q", "qd", "x"):
        assert np.array_equal(getattr(st_a, name), getattr(st_b, name)), name
    assert st_a.t == st_b.t
    assert _counts(slv_a) == _counts(slv_b)
    assert np.array_equal(slv_a.zd, slv_b.zd) and np.array_equal(slv_a.cols, slv_b.cols)
    assert slv_a.ratio == slv_b.ratio and slv_a.splu.ratio == slv_b.splu.ratio
    return slv_a, r


CASES = {  # name: (model factory, solver options, steps, every)
    "peer-quarter-car": (lambda: load_model("peer-quarter-car"), {}, 300, 1),
    "peer-four-bar rebase every step": (lambda: load_model("peer-four-bar"),
                                        {"rebase_tol": 1e3}, 300, 3),
    "multilink-ideal": (lambda: load_model("multilink-ideal"), {}, 400, 4),
    "multilink-ideal projection-T": (lambda: load_model("multilink-ideal"),
                                     {"projection_solve": "T", "jacobian": "all"}, 300, 1),
    "multilink-ideal none": (lambda: load_model("multilink-ideal"),
                             {"stabilize": "none", "multipliers": False}, 300, 1),
    "multilink-ideal baumgarte": (lambda: load_model("multilink-ideal"),
                                  {"stabilize": "baumgarte", "position_update": "explicit"},
                                  300, 2),
    "multilink transient tyre": (lambda: build("ideal", transient=True), {}, 300, 1),
    "sedan-transient": (lambda: load_model("sedan-transient"), {}, 30, 2),
}


@pytest.mark.parametrize("case", list(CASES))
def test_rollout_is_bit_identical_to_the_step_loop(case, monkeypatch):
    make, opts, n, every = CASES[case]
    slv, r = _assert_rollout_is_the_loop(make, opts, n, every, monkeypatch)
    if case == "peer-quarter-car":  # B chosen again on the way: the call returned to Python
        assert slv.nrebase >= 1
    if case.startswith("peer-four-bar"):
        assert slv.nrebase == n
    if "transient" in case:  # the deflections move
        assert slv.system.nx > 0 and np.abs(r.x[-1] - r.x[0]).max() > 1e-6
    if case == "multilink-ideal":  # the input acted: without it the motion is another
        slv0, st0 = _solver(make(), opts)
        r0 = rollout(slv0, st0, n, H, every=every)
        assert np.abs(r.q[-1] - r0.q[-1]).max() > 1e-3


@pytest.mark.parametrize("rebase_tol", [0.1, 1e3])
def test_a_diverging_rollout_stops_at_the_last_good_step(rebase_tol):
    """A torque that throws the wheel off at step 21: status -1 after 20 good steps, the state
    back at the last good step, the counters those of the 21 steps taken (with B chosen again
    at every step too: the failing step is then finished in Python before it is undone)."""
    opts = {"rebase_tol": rebase_tol}
    torque = np.zeros(50)
    torque[20] = 1e25
    sys_a, sys_b = load_model("multilink-ideal"), load_model("multilink-ideal")
    slv_a, st_a = _solver(sys_a, opts)
    r = rollout(slv_a, st_a, 50, H, inputs={"drive_torque": torque})
    slv_b, st_b, done, rows = _loop(sys_b, opts, 50, {"drive_torque": torque}, 1)
    assert done == 20
    assert r.status == -1 and r.nsteps == 20 and len(r.t) == 20
    assert "rollout stopped at step 21 of 50 (t = 0.021 s)" in r.message
    assert slv_a.status == -1
    assert np.array_equal(st_a.q, r.q[-1]) and np.array_equal(st_a.qd, r.qd[-1])
    assert np.array_equal(st_a.q, st_b.q) and np.array_equal(st_a.qd, st_b.qd)
    assert st_a.t == r.t[-1] == st_b.t
    assert np.array_equal(r.q, np.array(rows["q"]))
    assert _counts(slv_a) == _counts(slv_b) and slv_a.nstep == 21


def test_rollout_after_the_caller_changed_the_state():
    """q̇ halved between two rollouts: the first step of the next one re-maps ż (one
    evaluation, factorisation and solve more), as ``step`` does."""
    sys_a, sys_b = load_model("multilink-ideal"), load_model("multilink-ideal")
    slv_a, st_a = _solver(sys_a, {})
    slv_b, st_b = _solver(sys_b, {})
    torque = np.full(100, 150.0)
    rollout(slv_a, st_a, 100, H, inputs={"drive_torque": torque})
    sys_b.set_input("drive_torque", 150.0)
    for _ in range(100):
        assert slv_b.step(st_b, H)
    st_a.qd *= 0.5
    st_b.qd *= 0.5
    before = slv_a.neval
    r = rollout(slv_a, st_a, 100, H, inputs={"drive_torque": torque},
                time_origin=(0.0, 100))
    for _ in range(100):
        assert slv_b.step(st_b, H)
    assert r.status == 1
    assert np.array_equal(st_a.q, st_b.q) and np.array_equal(st_a.qd, st_b.qd)
    assert _counts(slv_a) == _counts(slv_b)
    assert slv_a.neval - before == 100 * slv_a._step_counts[0] + 1


def test_which_solvers_roll_out_compiled():
    system = load_model("multilink-ideal")
    make = get_solver("li-euler-indep")
    assert compiled(make(system)) and compiled(get_solver("li-euler")(system))
    assert not compiled(make(system, linear_solver="dense"))
    assert not compiled(make(system, B="qr"))
    assert not compiled(make(system, storage="dense"))


STEP_CASES = {
    "peer-quarter-car": (lambda: load_model("peer-quarter-car"), {}),
    "multilink-ideal": (lambda: load_model("multilink-ideal"), {}),
    "multilink transient tyre": (lambda: build("ideal", transient=True), {}),
    "peer-four-bar rebase every step": (lambda: load_model("peer-four-bar"), {"rebase_tol": 1e3}),
}


@pytest.mark.parametrize("at_start", [False, True], ids=["end", "start"])
@pytest.mark.parametrize("case", list(STEP_CASES))
def test_step_outputs_is_the_step_and_the_outputs(case, at_start):
    """``step_outputs`` (one compiled call; a rebasing step's outputs at its end from Python)
    publishes exactly what ``step`` with ``system.outputs`` after it (at the step's start: before
    it, with the deflections of the step's end) gives, at every step; before step 150 the caller
    changes q̇ (the start outputs are those of the q̇ given, not of the re-mapped one)."""
    make, opts = STEP_CASES[case]
    sys_a, sys_b = make(), make()
    slv_a, st_a = _solver(sys_a, opts)
    slv_b, st_b = _solver(sys_b, opts)
    assert slv_a.fused_step
    inputs = _inputs(sys_a.name, 200)
    ya, yb = np.zeros(len(sys_a.output_names)), np.zeros(len(sys_b.output_names))
    first = None
    for k in range(200):
        for nm, v in inputs.items():
            sys_a.set_input(nm, v[k])
            sys_b.set_input(nm, v[k])
        if k == 150:  # (+ 0.01: not a consistent q̇, so the re-mapped one differs)
            st_a.qd[:] = 0.5 * st_a.qd + 0.01
            st_b.qd[:] = 0.5 * st_b.qd + 0.01
        assert slv_a.step_outputs(st_a, H, ya, at_start=at_start)
        if at_start:
            sys_b.outputs(st_b.t, st_b.q, st_b.qd, yb, extra_step=H if sys_b.nx else 0.0)
            assert slv_b.step(st_b, H)
        else:
            assert slv_b.step(st_b, H)
            sys_b.outputs(st_b.t, st_b.q, st_b.qd, yb)
        assert np.array_equal(ya, yb), f"outputs differ at step {k + 1}"
        assert st_a.t == st_b.t
        first = ya.copy() if first is None else first
    for name in ("q", "qd", "x"):
        assert np.array_equal(getattr(st_a, name), getattr(st_b, name)), name
    assert _counts(slv_a) == _counts(slv_b)
    assert np.abs(ya - first).max() > 1e-3  # the outputs are those of a moving state
    if case == "peer-quarter-car":
        assert slv_a.nrebase >= 1


def test_step_outputs_leaves_the_outputs_of_a_failed_step():
    """A step that diverges (a torque of 1e25 N m: Φu's pivot check fails at positions of
    1e21 m) fails instead of choosing B there, and leaves ``out`` as the last good step left it."""
    system = load_model("multilink-ideal")
    slv, st = _solver(system, {})
    y = np.zeros(len(system.output_names))
    for _ in range(20):
        assert slv.step_outputs(st, H, y)
    good = y.copy()
    system.set_input("drive_torque", 1e25)
    assert not slv.step_outputs(st, H, y)
    assert slv.status == -1 and slv.nrebase == 0
    assert np.array_equal(y, good) and np.abs(good).max() > 0.0


class _Recording:
    """Real-time IO that keeps what the loop publishes."""

    def __init__(self):
        from rtmbs.realtime import RealtimeIO

        class IO(RealtimeIO):
            def open(self, system):
                pass

            def read_inputs(self, system, t):
                pass

            def write_outputs(io, t, values):
                self.written.append((t, values.copy()))

            def close(self):
                pass

        self.written = []
        self.io = IO()


@pytest.mark.parametrize("outputs_at", ["end", "start"])
def test_the_paced_loop_publishes_the_outputs_simulate_gives(outputs_at):
    """The real-time loop's ``step_outputs`` on li-euler-indep (the quarter car chooses B again
    on the way): published outputs, at the step's end or start, and the recorded run are
    ``simulate``'s (the compiled rollout) bit for bit."""
    from rtmbs.realtime import run_realtime

    rec = _Recording()
    rep = run_realtime(load_model("peer-quarter-car"), "li-euler-indep", h=H, duration=0.3,
                       io=rec.io, outputs_at=outputs_at)
    ref = simulate(load_model("peer-quarter-car"), "li-euler-indep", t_end=0.3, h=H)
    assert rep.status == 1 and rep.steps == 300 and len(rec.written) == 300
    names = list(rep.result.outputs)  # (simulate adds the accelerations)
    rows = range(1, 301) if outputs_at == "end" else range(300)
    for (t, y), k in zip(rec.written, rows):
        assert t == pytest.approx(ref.t[k], abs=1e-15)
        assert np.array_equal(y, [ref.outputs[nm][k] for nm in names]), f"row {k}"
    np.testing.assert_array_equal(rep.result.q, ref.q)
    for nm in names:
        np.testing.assert_array_equal(rep.result.outputs[nm], ref.outputs[nm])
