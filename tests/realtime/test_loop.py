"""The paced loop: accounting of each deadline policy under forced overruns, determinism against
``simulate``, GC handling. The policies run on a simulated clock (``rtmbs.realtime.clock``):
h = 20 ms, and the chosen steps take 50-70 ms more on that clock, so every count, slip and
lateness is exact and nothing sleeps. The tests that pace on the machine's clock check only
what its noise cannot change: the trajectory, and counts that no stall can alter."""
import gc

import numpy as np
import pytest

import _models.realtime as tm
from rtmbs.errors import SolverError
from rtmbs.realtime.clock import SimulatedClock
from rtmbs.realtime import FLAG_CATCHUP, FLAG_DEGRADED, FLAG_OVERRUN, RealtimeIO, run_realtime
from rtmbs.solvers.simulate import simulate

H = 0.02
H_NS = 20_000_000
DURATION = 0.6  # 30 steps
MS = 1e-3


class RecordingIO(RealtimeIO):
    def __init__(self):
        self.opened = self.closed = 0
        self.written_t = []
        self.reads = 0

    def open(self, system):
        self.opened += 1

    def read_inputs(self, system, t):
        self.reads += 1

    def write_outputs(self, t, values):
        self.written_t.append((t, values.copy()))

    def close(self):
        self.closed += 1

    def stats(self):
        return {"writes": len(self.written_t)}


def reference(n_steps):
    sys_ = tm.MassSpringDamper()
    return simulate(sys_, tm.SOLVER_NAME, t_end=n_steps * H, h=H)


def overrun_steps(rep):
    return [int(k) for k in np.flatnonzero(rep.flags & FLAG_OVERRUN)]


def assert_same_trajectory(rep, ref, upto=None):
    res = rep.result
    k = len(res.t) if upto is None else upto
    np.testing.assert_array_equal(res.t[:k], ref.t[:k])
    np.testing.assert_array_equal(res.q[:k], ref.q[:k])
    np.testing.assert_array_equal(res.qd[:k], ref.qd[:k])
    for name in ("x", "v", "force"):
        np.testing.assert_array_equal(res.outputs[name][:k], ref.outputs[name][:k])


def test_warn_counts_overruns_and_slips():
    system = tm.MassSpringDamper()
    clock = SimulatedClock()
    slv = tm.StallingEuler(system, stalls={5: 50 * MS, 15: 50 * MS}, clock=clock)
    io = RecordingIO()
    freeze_before = gc.get_freeze_count()
    rep = run_realtime(system, slv, h=H, clock=clock, duration=DURATION, policy="warn", io=io)
    assert rep.steps == 30
    assert overrun_steps(rep) == [5, 15]
    assert rep.overruns == 2 and rep.catchup_steps == 0
    # the schedule slipped by exactly the lateness past each missed deadline
    over = rep.flags & FLAG_OVERRUN > 0
    expected_slip = int(np.sum(rep.lateness_ns[over] + rep.turnaround_ns[over] - H_NS))
    assert rep.slip_ns == expected_slip
    assert expected_slip >= 2 * 30_000_000  # stalls of 50 ms in 20 ms periods
    assert rep.realtime_factor < 1.0
    # every step read inputs and published, the stalled ones too
    assert io.opened == 1 and io.closed == 1 and io.reads == 30
    assert [round(t / H) for t, _ in io.written_t] == list(range(1, 31))
    # the stalled steps' turnarounds include the stall
    assert rep.turnaround_ns[5] >= 50_000_000 and rep.turnaround_ns[15] >= 50_000_000
    # state continuity: same trajectory as a non-paced run
    assert_same_trajectory(rep, reference(30))
    # GC disabled inside, restored after
    assert slv.gc_enabled_seen == {False}
    assert gc.isenabled() and gc.get_freeze_count() == freeze_before


@pytest.mark.parametrize("outputs_at", ["end", "start"])
def test_catch_up_skips_publishing_and_realigns_with_wall_clock(outputs_at):
    system = tm.MassSpringDamper()
    clock = SimulatedClock()
    slv = tm.StallingEuler(system, stalls={5: 70 * MS}, clock=clock)
    io = RecordingIO()
    rep = run_realtime(system, slv, h=H, clock=clock, duration=DURATION, policy="catch-up", io=io,
                       outputs_at=outputs_at)
    assert rep.steps == 30
    assert overrun_steps(rep) == [5]
    # 70 ms stall: ticks of steps 6 and 7 are >= one period in the past -> catch-up steps
    assert [int(k) for k in np.flatnonzero(rep.flags & FLAG_CATCHUP)] == [6, 7]
    assert rep.catchup_steps == 2 and rep.overruns == 1 and rep.slip_ns == 0
    assert np.all(rep.lateness_ns[[6, 7]] >= H_NS) and rep.lateness_ns[8] < H_NS
    # steps 6 and 7 (from t = 6 h, 7 h to 7 h, 8 h) published nothing; all others did, the
    # outputs at their end (t_k+1) or start (t_k)
    published = [round(t / H) for t, _ in io.written_t]
    first = 0 if outputs_at == "start" else 1
    assert published == [k + first for k in range(30) if k not in (6, 7)]
    assert rep.outputs_at == outputs_at and rep.summary()["outputs_at"] == outputs_at
    assert io.reads == 30
    # back on the wall clock: 30 steps took exactly 30 periods
    assert rep.wall_ns == 30 * H_NS
    assert rep.realtime_factor == pytest.approx(1.0, abs=1e-12)
    assert_same_trajectory(rep, reference(30))


def test_degrade_uses_solver_set_degraded_until_budget_met():
    system = tm.MassSpringDamper()
    clock = SimulatedClock()
    # steps 6 and 7 would stall too, but not in degraded mode
    slv = tm.DegradableStallingEuler(system, stalls={5: 50 * MS, 6: 50 * MS, 7: 50 * MS, 20: 50 * MS}, clock=clock)
    rep = run_realtime(system, slv, h=H, clock=clock, duration=DURATION, policy="degrade", recover_after=5)
    assert rep.degrade_mode == "solver.set_degraded"
    assert overrun_steps(rep) == [5, 20]
    assert rep.degrade_entries == 2
    assert [int(k) for k in np.flatnonzero(rep.flags & FLAG_DEGRADED)] == [6, 7, 8, 9, 10,
                                                                           21, 22, 23, 24, 25]
    assert rep.degraded_steps == 10
    # nstep at each switch: entered after step 5 (nstep 6), left after 5 good steps (nstep 11)
    assert slv.degrade_calls == [(6, True), (11, False), (21, True), (26, False)]
    assert rep.turnaround_ns[6] < 50_000_000 and rep.turnaround_ns[7] < 50_000_000
    assert_same_trajectory(rep, reference(30))


@pytest.mark.parametrize("outputs_at", ["end", "start"])
def test_degrade_fallback_skips_outputs_when_solver_cannot_degrade(outputs_at):
    system = tm.MassSpringDamper()
    clock = SimulatedClock()
    slv = tm.StallingEuler(system, stalls={5: 50 * MS}, clock=clock)
    io = RecordingIO()
    rep = run_realtime(system, slv, h=H, clock=clock, duration=DURATION, policy="degrade", io=io,
                       recover_after=4, outputs_at=outputs_at)
    assert rep.degrade_mode == "skip outputs"
    assert rep.degrade_entries == 1 and rep.degraded_steps == 4 and rep.overruns == 1
    published = [round(t / H) for t, _ in io.written_t]
    first = 0 if outputs_at == "start" else 1
    assert published == [k + first for k in range(30) if k not in (6, 7, 8, 9)]
    # the recorded outputs are complete all the same (at start: the row left by step 5 for
    # step 6, which did not publish, is filled too)
    assert_same_trajectory(rep, reference(30))


def test_degrade_with_a_degraded_solver():
    system = tm.MassSpringDamper()
    clock = SimulatedClock()
    slv = tm.StallingEuler(system, stalls={5: 50 * MS}, clock=clock)
    cheap = tm.SemiImplicitEuler(system)
    rep = run_realtime(system, slv, h=H, clock=clock, duration=DURATION, policy="degrade", recover_after=3,
                       degraded_solver=cheap, warmup=False)
    assert rep.degrade_mode == "degraded_solver 'test-symplectic-euler'"
    assert rep.degraded_steps == 3 and cheap.nstep == 3 and slv.nstep == 27
    assert_same_trajectory(rep, reference(30))


def test_stop_keeps_results_up_to_first_overrun():
    system = tm.MassSpringDamper()
    clock = SimulatedClock()
    slv = tm.StallingEuler(system, stalls={5: 50 * MS, 9: 50 * MS}, clock=clock)
    io = RecordingIO()
    rep = run_realtime(system, slv, h=H, clock=clock, duration=DURATION, policy="stop", io=io)
    assert rep.stopped_early and rep.overruns == 1
    assert rep.steps == 6 and len(rep.turnaround_ns) == 6
    assert "step 6 of 30" in rep.message
    assert len(rep.result.t) == 7 and rep.result.t[-1] == pytest.approx(6 * H)
    assert io.closed == 1 and len(io.written_t) == 6
    assert_same_trajectory(rep, reference(30), upto=7)


def test_paced_run_is_identical_to_simulate():
    system = tm.MassSpringDamper()
    system.set_input("force", 3.0)
    rep = run_realtime(system, tm.SOLVER_NAME, h=1e-3, duration=0.2)
    ref_sys = tm.MassSpringDamper()
    ref_sys.set_input("force", 3.0)
    ref = simulate(ref_sys, tm.SOLVER_NAME, t_end=0.2, h=1e-3)
    assert rep.steps == 200 and len(ref.t) == 201
    np.testing.assert_array_equal(rep.result.q, ref.q)
    np.testing.assert_array_equal(rep.result.qd, ref.qd)
    np.testing.assert_array_equal(rep.result.outputs["force"], np.full(201, 3.0))
    # the input acted: the run differs from one with no force
    free = simulate(tm.MassSpringDamper(), tm.SOLVER_NAME, t_end=0.2, h=1e-3)
    assert np.abs(free.q - ref.q).max() > 1e-4


def test_summary_and_files(tmp_path):
    system = tm.MassSpringDamper()
    rep = run_realtime(system, tm.SOLVER_NAME, h=2e-3, duration=0.05, out=tmp_path)
    s = rep.summary()
    assert s["steps"] == 25
    us = rep.turnaround_ns * 1e-3
    assert s["turnaround_us_max"] == pytest.approx(us.max())
    assert s["turnaround_us_p50"] == pytest.approx(np.median(us))
    assert s["turnaround_us_p50"] <= s["turnaround_us_p99"] <= s["turnaround_us_p999"] <= s["turnaround_us_max"]
    import json

    assert json.loads((tmp_path / "summary.json").read_text())["steps"] == 25
    assert "| turnaround (µs) |" in (tmp_path / "summary.md").read_text()
    assert (tmp_path / "turnaround.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    t = np.load(tmp_path / "timings.npz")
    np.testing.assert_array_equal(t["turnaround_ns"], rep.turnaround_ns)


def test_unknown_policy_is_named():
    with pytest.raises(SolverError, match="unknown deadline policy 'catchup'.*did you mean 'catch-up'"):
        run_realtime(tm.MassSpringDamper(), tm.SOLVER_NAME, policy="catchup")


class NaNAt(tm.SemiImplicitEuler):
    """Semi-implicit Euler whose step ``bad`` (0-based) produces a NaN velocity."""

    def __init__(self, system, bad, **options):
        super().__init__(system, **options)
        self.bad = bad

    def _step_impl(self, state, h):
        ok = super()._step_impl(state, h)
        if self.nstep == self.bad:
            state.qd[0] = np.nan
        return ok


def test_divergence_stops_the_run_and_keeps_the_good_states():
    system = tm.MassSpringDamper()
    rep = run_realtime(system, NaNAt(system, bad=7), h=2e-3, duration=0.05, warmup=False)
    assert rep.status == -1 and rep.steps == 8
    assert rep.message.startswith("simulation diverged at t = 0.016 s (step 8 of 25")
    assert len(rep.result.t) == 8 and np.isfinite(rep.result.qd).all()
    ref = simulate(tm.MassSpringDamper(), tm.SOLVER_NAME, t_end=0.014, h=2e-3)
    np.testing.assert_array_equal(rep.result.q, ref.q)


def test_priority_is_restored():
    import os

    before = (os.sched_getscheduler(0), os.sched_getparam(0).sched_priority)
    rep = run_realtime(tm.MassSpringDamper(), tm.SOLVER_NAME, h=2e-3, duration=0.01, priority=5)
    assert rep.sched == "SCHED_FIFO 5" or rep.sched.startswith("default (SCHED_FIFO 5 refused")
    assert rep.summary()["sched"] == rep.sched
    assert (os.sched_getscheduler(0), os.sched_getparam(0).sched_priority) == before


@pytest.mark.parametrize("model, solver", [("truck-dae", "li-euler"), ("slider-crank", "li-euler")])
def test_paced_equals_simulate_with_library_models(model, solver):
    from rtmbs.models import load_model

    rep = run_realtime(load_model(model), solver, h=1e-3, duration=0.1)
    ref = simulate(load_model(model), solver, t_end=0.1, h=1e-3)
    assert rep.status == 1 and rep.steps == 100
    np.testing.assert_array_equal(rep.result.q, ref.q)
    np.testing.assert_array_equal(rep.result.qd, ref.qd)
    np.testing.assert_allclose(rep.result.phi_norm, ref.phi_norm, rtol=0, atol=1e-15)


def test_busy_wait_never_sleeps_and_runs_the_same_steps():
    """``busy_wait=True`` spins through every period (no sleep) and is reported in ``sched``;
    the default sleeps until ``SPIN_NS`` before each tick. Both take the steps of ``simulate``."""
    from rtmbs.realtime.loop import SPIN_NS

    system = tm.MassSpringDamper()
    ref = simulate(system, tm.SOLVER_NAME, t_end=0.02, h=2e-3)
    for busy in (True, False):
        clock = SimulatedClock()
        rep = run_realtime(system, tm.SOLVER_NAME, h=2e-3, duration=0.02, busy_wait=busy,
                           clock=clock)
        if busy:
            assert clock.slept_ns == 0
        else:  # 10 periods of 2 ms, each slept to SPIN_NS before its tick (the first: from t0)
            assert 9 * (2_000_000 - SPIN_NS) <= clock.slept_ns <= 10 * 2_000_000
        assert ("busy-wait" in rep.sched) == busy
        np.testing.assert_array_equal(rep.result.q, ref.q)


def test_compiled_step_publishes_the_outputs_simulate_gives():
    """On a compiled model the loop steps and evaluates the outputs in one compiled call
    (``LIEuler.step_outputs``): the recorded outputs are those of ``simulate``."""
    from rtmbs.models import load_model

    rep = run_realtime(load_model("peer-quarter-car"), "li-euler", h=1e-3, duration=0.05)
    ref = simulate(load_model("peer-quarter-car"), "li-euler", t_end=0.05, h=1e-3)
    np.testing.assert_array_equal(rep.result.q, ref.q)
    for name in rep.result.outputs:
        np.testing.assert_array_equal(rep.result.outputs[name], ref.outputs[name])
    assert np.ptp(ref.outputs["tyre_spring.force"]) > 100.0  # N: the outputs move


@pytest.mark.parametrize("model", ["peer-quarter-car", "multilink-ideal"])
def test_outputs_at_start_publish_the_state_each_step_starts_from(model):
    """``outputs_at="start"``: step k publishes (t_k, y_k), y_k the outputs of the state it
    starts from — on the compiled step gathered from the step's own evaluation at t_k — which
    are ``simulate``'s outputs at t_k; the recorded result is ``simulate``'s, last row included."""
    from rtmbs.models import load_model

    io = RecordingIO()
    rep = run_realtime(load_model(model), "li-euler", h=1e-3, duration=0.05, io=io,
                       outputs_at="start")
    ref = simulate(load_model(model), "li-euler", t_end=0.05, h=1e-3)
    names = list(rep.result.outputs)  # (simulate adds the accelerations)
    assert [t for t, _ in io.written_t] == pytest.approx(ref.t[:-1], abs=1e-15)
    for k, (_, y) in enumerate(io.written_t):
        np.testing.assert_array_equal(y, [ref.outputs[nm][k] for nm in names])
    np.testing.assert_array_equal(rep.result.q, ref.q)
    for nm in names:
        np.testing.assert_array_equal(rep.result.outputs[nm], ref.outputs[nm])
    moving = max(names, key=lambda nm: np.ptp(ref.outputs[nm]))
    assert np.ptp(ref.outputs[moving]) > 1.0  # the outputs move from step to step


def test_outputs_at_is_checked():
    with pytest.raises(SolverError, match=r"^outputs_at = 'middle': expected one of end, start$"):
        run_realtime(tm.MassSpringDamper(), tm.SOLVER_NAME, h=1e-3, duration=0.01,
                     outputs_at="middle")


@pytest.mark.parametrize("model,outputs_at", [("peer-quarter-car", "end"),
                                              ("multilink-ideal", "start")])
def test_prewarm_takes_shadow_steps_and_leaves_the_run_as_simulate(model, outputs_at):
    """``prewarm``: before every tick a second solver steps a copy of the state on a second data
    object of the model; the real run is still ``simulate``'s bit for bit (the shadow writes
    nothing the real step reads), and every tick either had its shadow step or counted it as
    skipped."""
    from rtmbs.models import load_model

    rep = run_realtime(load_model(model), "li-euler", h=1e-3, duration=0.05, busy_wait=True,
                       prewarm=True, outputs_at=outputs_at)
    ref = simulate(load_model(model), "li-euler", t_end=0.05, h=1e-3)
    assert rep.status == 1 and "prewarm" in rep.sched
    assert rep.prewarm_steps + rep.prewarm_skipped == rep.steps == 50
    assert rep.prewarm_steps >= 1  # (a tick's is skipped when the loop starts late: load)
    np.testing.assert_array_equal(rep.result.q, ref.q)
    np.testing.assert_array_equal(rep.result.qd, ref.qd)
    for name in rep.result.outputs:
        np.testing.assert_array_equal(rep.result.outputs[name], ref.outputs[name])


@pytest.mark.realtime  # its count depends on the machine's clock (fails at load 6 on 2 cores)
def test_prewarm_wakes_the_sleeping_loop_early_enough_for_the_shadow_step(monkeypatch):
    """Sleeping (no busy-wait), the loop wakes ``SPIN_NS`` before a tick, or earlier by the
    shadow step's lead when that is longer (here a 0.3 ms margin, more than ``SPIN_NS``): the
    shadow steps are taken, not skipped for a late start."""
    import rtmbs.realtime.loop as loop
    from rtmbs.models import load_model

    monkeypatch.setattr(loop, "PREWARM_MARGIN_NS", 300_000)
    assert loop.PREWARM_MARGIN_NS > loop.SPIN_NS
    rep = run_realtime(load_model("peer-quarter-car"), "li-euler", h=1e-3, duration=0.05,
                       prewarm=True, record=False)
    assert rep.status == 1 and "busy-wait" not in rep.sched
    assert rep.prewarm_steps + rep.prewarm_skipped == 50
    assert rep.prewarm_steps > rep.prewarm_skipped


def test_prewarm_needs_a_model_with_data_objects():
    with pytest.raises(SolverError, match=r"^prewarm needs a model with its own data objects \(a "
                       r"compiled Cartesian model\); '.*' has none$"):
        run_realtime(tm.MassSpringDamper(), tm.SOLVER_NAME, h=1e-3, duration=0.01, prewarm=True)
